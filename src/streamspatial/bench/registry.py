"""Finding the adapter for a file, loading it, and checking its videos.

``load_benchmark`` is what the rest of the system calls: it returns only when the whole file
(and, given ``videos``, every video it names) is sound, and otherwise raises one
:class:`~streamspatial.core.errors.InputError` carrying every problem.  ``check_benchmark`` is
the same work without raising, for ``streamspatial validate``.
"""

from __future__ import annotations

import errno
from pathlib import Path

from streamspatial.core.errors import InputError, Problem, StreamspatialError
from streamspatial.core.schema import Item

from . import (
    mmsivideo,
    omnimmi,
    ostbench,
    ovobench,
    ovos,
    rtvbench,
    s3,
    streamingbench,
    ucs,
    vcbench,
    vsibench,
    vsisuper,
)
from .base import BenchmarkAdapter, LoadResult
from .home import Benchmark

# Each benchmark in its own folder, listed once: its reader, rules, tables and writer.  The
# simulator's benchmarks come last, in the order ``sim generate`` writes and lists their files
# (S3-Bench, OVO-S-Bench, VCBench, UCS-Bench).
HOMES: dict[str, Benchmark] = {
    b.name: b
    for b in (
        ovobench.BENCHMARK,
        streamingbench.BENCHMARK,
        ostbench.BENCHMARK,
        vsibench.BENCHMARK,
        vsisuper.BENCHMARK,
        rtvbench.BENCHMARK,
        omnimmi.BENCHMARK,
        mmsivideo.BENCHMARK,
        s3.BENCHMARK,
        ovos.BENCHMARK,
        vcbench.BENCHMARK,
        ucs.BENCHMARK,
    )
}

# Every format, in the order ``--format`` and detection list them.
ADAPTERS: dict[str, BenchmarkAdapter] = {
    a.name: a
    for a in (
        ovos.BENCHMARK.adapter,
        vcbench.BENCHMARK.adapter,
        ucs.BENCHMARK.adapter,
        s3.BENCHMARK.adapter,
        vsibench.BENCHMARK.adapter,
        ovobench.BENCHMARK.adapter,
        streamingbench.BENCHMARK.adapter,
        ostbench.BENCHMARK.adapter,
        vsisuper.BENCHMARK.adapter,
        rtvbench.BENCHMARK.adapter,
        omnimmi.BENCHMARK.adapter,
        mmsivideo.BENCHMARK.adapter,
    )
}
FORMATS = ("auto", *ADAPTERS)


def get_adapter(name: str) -> BenchmarkAdapter:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise StreamspatialError(
            f"unknown benchmark format {name!r}; expected one of {', '.join(FORMATS)}"
        ) from None


def detect_format(path: Path) -> str:
    """The format name of ``path``, judged from its first record or its parquet columns."""
    path = Path(path)
    folder = _release_folder(path)
    if folder is not None:
        return folder
    _check_file(path)
    matches = [name for name, a in ADAPTERS.items() if a.sniff(path)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(
            Problem(
                str(path),
                "",
                "could not tell the benchmark format from the "
                "first record; pass --format " + "|".join(ADAPTERS),
            )
        )
    raise InputError(
        Problem(
            str(path),
            "",
            f"the file looks like several formats ({', '.join(matches)}); pass --format",
        )
    )


def check_benchmark(
    path: Path, format: str = "auto", videos: Path | None = None
) -> tuple[BenchmarkAdapter, LoadResult]:
    """Load and validate everything; problems are returned, not raised.

    Raises only when the file cannot be read at all or its format is unknown.
    """
    path = Path(path)
    adapter = get_adapter(detect_format(path) if format == "auto" else format)
    if not (path.is_dir() and adapter.reads_folder(path)):
        _check_file(path)
    result = adapter.load(path)
    if videos is not None:
        result.items = check_videos(adapter, result, Path(videos), str(path))
    return adapter, result


def load_benchmark(
    path: Path, format: str = "auto", videos: Path | None = None
) -> tuple[BenchmarkAdapter, list[Item]]:
    """The adapter and the items of a sound benchmark file; InputError with all problems else."""
    adapter, result = check_benchmark(path, format, videos)
    if result.problems:
        raise InputError(result.problems)
    return adapter, result.items


def check_videos(
    adapter: BenchmarkAdapter, result: LoadResult, videos: Path, file: str
) -> list[Item]:
    """Probe each distinct video once; report missing or unreadable videos and query times
    past the end.  Returns the items with end-of-video query times resolved (VSI-Bench)."""
    if not videos.is_dir():
        raise StreamspatialError(f"{videos}: videos folder not found")
    durations: dict[Path, float | None] = {}
    out: list[Item] = []
    for item in result.items:
        where = result.locations.get(item.id, "")
        vpath = adapter.video_path(item, videos)
        files = adapter.frame_files(item, videos)
        if vpath not in durations:
            try:
                durations[vpath] = video_duration(vpath, files)
            except StreamspatialError as exc:
                durations[vpath] = None
                result.problems.append(
                    Problem(
                        file, "video", f"{vpath}: {_reason(exc)}", item_id=item.id, location=where
                    )
                )
        duration = durations[vpath]
        if duration is None:
            out.append(item)
            continue
        item = adapter.with_duration(item, duration)
        if adapter.polling(item) is not None and item.queries[0].time > duration:
            # Polling stops at the ground truth + 4 s, or where the video ends.
            q = item.queries[0].model_copy(update={"time": duration})
            item = item.model_copy(update={"queries": (q,)})
        for q in item.queries:
            if q.time > duration + 1e-6:
                field = "query_times" if len(item.queries) > 1 else "query_time"
                result.problems.append(
                    Problem(
                        file,
                        f"{field}[{q.index}]" if len(item.queries) > 1 else field,
                        f"expected a query time within the video ({duration:g} s), "
                        f"got {q.time:g} s",
                        item_id=item.id,
                        location=where,
                    )
                )
        out.append(item)
    return out


def _release_folder(path: Path) -> str | None:
    """The format of a release folder one adapter reads whole (OmniMMI's six lists), else
    None (a file, or a folder no adapter reads: ``_check_file`` says so)."""
    if not path.is_dir():
        return None
    matches = [name for name, a in ADAPTERS.items() if a.reads_folder(path)]
    return matches[0] if len(matches) == 1 else None


def video_duration(path: Path, files: tuple[Path, ...] | None = None) -> float:
    """Seconds of a video file, of a 1 fps frame folder (one second per frame), or of the
    still images ``files`` stand for (one second each; every one must exist)."""
    if files is not None:
        missing = [f for f in files if not f.is_file()]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise InputError(Problem(str(missing[0]), "", f"image {missing[0]} not found{more}"))
        return float(len(files))
    # Imported here: bench must not decode video, and only this optional check touches it.
    from streamspatial.video.sources import probe_duration

    return probe_duration(path)


def _reason(exc: StreamspatialError) -> str:
    if isinstance(exc, InputError) and exc.problems:
        return exc.problems[0].expected
    return str(exc)


_WIDE_BOMS = {
    b"\xff\xfe\x00\x00": "UTF-32",
    b"\x00\x00\xfe\xff": "UTF-32",
    b"\xff\xfe": "UTF-16",
    b"\xfe\xff": "UTF-16",
}


def _check_file(path: Path) -> None:
    """The benchmark file can be read, and is not obviously something else (one line each)."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StreamspatialError(
                f"{path}: symbolic link loop; expected a benchmark file"
            ) from None
        if path.is_symlink():
            raise StreamspatialError(f"{path}: symbolic link to a missing file") from None
        if exc.errno == errno.ENOENT:
            raise StreamspatialError(f"{path}: file not found") from None
        raise StreamspatialError(f"{path}: cannot read: {exc.strerror}") from None
    if path.is_dir():
        raise StreamspatialError(f"{path}: is a folder; expected a benchmark file")
    try:  # /proc and pipes report 0 bytes and still hold data: read to know
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise StreamspatialError(f"{path}: cannot read: {exc.strerror}") from None
    if not head:  # else format detection blames "the first record"
        raise StreamspatialError(f"{path}: empty file (0 bytes); expected benchmark records")
    if path.suffix == ".parquet":
        return
    wide = next((name for bom, name in _WIDE_BOMS.items() if head.startswith(bom)), None)
    if wide is None and b"\x00" in head:
        zeros = max(head[0::2].count(0), head[1::2].count(0))
        wide = "UTF-16" if zeros > len(head) // 4 else None
        if wide is None:
            raise StreamspatialError(
                f"{path}: binary data (NUL bytes); expected UTF-8 JSON/JSONL text or parquet"
            )
    if wide is not None:
        raise StreamspatialError(f"{path}: {wide} text; expected UTF-8 (re-save the file as UTF-8)")


__all__ = [
    "ADAPTERS",
    "FORMATS",
    "HOMES",
    "check_benchmark",
    "check_videos",
    "detect_format",
    "get_adapter",
    "load_benchmark",
    "video_duration",
]
