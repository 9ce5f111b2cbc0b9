"""``streamspatial export-sft``: a folder's training records as a fine-tuning dataset.

Each record's prefix frames are the ones it names, or the ones a sampling policy
(:mod:`streamspatial.video.policies`, ``--policy``) picks from ``[0, ⌊t_q·fps⌋]``; they are
decoded in one forward pass per video, resized as runs resize them, and written once as JPEG
under ``images/``, shared by path by every example that shows them.  Each user turn reads
``Frame at T s: <image>`` per frame (the caption runs put before a frame), then its other
pictures, then its text.  Nothing is half-written: the export is built in a hidden folder
beside the destination and moved into place when complete; bad records stop it before any
video is decoded, with one line naming the file, line, record and field.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from streamspatial.bench.prompts import frame_caption
from streamspatial.core.benchmark_folder import GENERATION, MANIFEST, read_manifest
from streamspatial.core.errors import CausalityError, InputError, Problem
from streamspatial.sim.qa.export import videos_dir
from streamspatial.video.cache import ResizeSpec, decode_jpeg, encode_jpeg
from streamspatial.video.policies import parse_policy, select_frames
from streamspatial.video.prefix import query_frame_index
from streamspatial.video.sources import open_source

from .formats import FORMATS, IMAGE, ExportTarget, Prepared
from .records import KINDS, TRAIN_FILE, ExtraImage, TrainingExample, read_numbered

DEFAULT_POLICY = "uniform-16"  # prefix frames per example unless a record names its own
DEFAULT_DATASET = "streamspatial_train"
Progress = Callable[[str, int, int], None]  # (stage, done, total) in videos


@dataclass
class ExportSummary:
    out: Path
    format: str
    source: str  # where the format is documented
    counts: dict[str, int] = field(default_factory=dict)  # examples per kind
    images: int = 0  # picture files written
    files: list[str] = field(default_factory=list)


@dataclass
class _Planned:
    ex: TrainingExample
    indices: list[int]
    fps: float


def default_out(src: Path, fmt: str) -> Path:
    return Path(src) / "sft" / fmt


def export_sft(
    src: Path,
    fmt: str,
    *,
    out: Path | None = None,
    policy: str = DEFAULT_POLICY,
    frame_size: int = 448,
    kinds: Iterable[str] = KINDS,
    dataset: str = DEFAULT_DATASET,
    force: bool = False,
    progress: Progress | None = None,
) -> ExportSummary:
    """Export ``src``'s ``train.jsonl`` in format ``fmt`` (see the module)."""
    src = Path(src)
    if fmt not in FORMATS:
        raise InputError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    kinds = tuple(kinds)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise InputError(f"--kinds: expected some of {', '.join(KINDS)}, got {','.join(kinds)}")
    if not dataset.replace("_", "").replace("-", "").isalnum():
        raise InputError(f"--dataset: expected letters, digits, - and _, got {dataset!r}")
    spec = parse_policy(policy)
    if spec.offline:
        raise InputError(f"--policy {policy}: reads the answers' evidence; not for training data")
    out = Path(out) if out is not None else default_out(src, fmt)
    if out.exists() and not force:
        raise InputError(f"{out} already exists; pass --force to replace it")
    every = read_numbered(src / TRAIN_FILE)
    _check_generation(src, every)
    numbered = [(n, ex) for n, ex in every if ex.kind in kinds]
    records = [ex for _, ex in numbered]
    if not records:
        raise InputError(
            Problem(str(src / TRAIN_FILE), "kind", f"some records of kind {', '.join(kinds)}")
        )
    planned = _plan(src, numbered, policy)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        spec = ResizeSpec(short_side=frame_size)
        paths = _write_frames(src, planned, tmp, spec, progress)
        extra = _write_extra_images(src, records, tmp, spec)
        prepared = [_prepare(p, paths, extra) for p in planned]
        writer = FORMATS[fmt]
        about = {"manifest": read_manifest(src) or {}, "policy": policy,
                 "frame_size": frame_size, "kinds": list(kinds)}  # fmt: skip
        files = writer.write(prepared, ExportTarget(tmp, out, dataset, about))
        _move_into_place(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ExportSummary(
        out=out,
        format=fmt,
        source=writer.source,
        counts=dict(Counter(p.ex.kind for p in planned)),
        images=len(set(paths.values())) + len(set(extra.values())),
        files=files,
    )


def _check_generation(src: Path, records: list[tuple[int, TrainingExample]]) -> None:
    """Every record comes from the generation the folder's manifest describes: records of
    another one (an interrupted or different run into the same folder) are never exported."""
    manifest = read_manifest(src)
    expected = (manifest or {}).get(GENERATION)
    problems = []
    for line, ex in records:
        if ex.generation == expected:
            continue
        if manifest is None:
            want = f"no generation: {src} has no {MANIFEST} to match {ex.generation}"
        else:
            want = f"generation {expected} of {src / MANIFEST}, got {ex.generation}"
        problems.append(Problem(str(src / TRAIN_FILE), "generation", want, ex.id, f"line {line}"))
    if problems:
        raise InputError(problems)


def _plan(src: Path, records: list[tuple[int, TrainingExample]], policy: str) -> list[_Planned]:
    """Each record's prefix frame indices, all ≤ ⌊t_q·fps⌋; every problem found, at once."""
    problems: list[Problem] = []
    info: dict[str, tuple[float, int] | None] = {}
    planned = []
    for line, ex in records:
        at = (str(src / TRAIN_FILE), ex.id, f"line {line}")

        def problem(field: str, expected: str, at: tuple[str, str, str] = at) -> None:
            problems.append(Problem(at[0], field, expected, at[1], at[2]))

        if ex.video not in info:
            path = videos_dir(src) / ex.video
            try:
                source = open_source(path)
                info[ex.video] = (source.fps, source.n_frames)
            except InputError:
                info[ex.video] = None
        got = info[ex.video]
        if got is None:
            problem("video", f"a video at {videos_dir(src) / ex.video}")
            continue
        fps, n_frames = got
        n_q = query_frame_index(ex.t_q, fps, n_frames)
        if ex.frames is None:
            indices = select_frames(policy, n_q, fps, t_q=ex.t_q)
        else:
            indices = [round(t * fps) for t in ex.frames]
            off = [t for t, i in zip(ex.frames, indices, strict=True) if abs(i / fps - t) > 1e-3]
            if off:
                problem("frames", f"frame times on the video's {fps:g} fps grid, got {off[0]}")
                continue
        if any(i > n_q for i in indices):  # a frame after t_q: never exported
            problem("frames", f"frames at or before t_q = {ex.t_q}")
            continue
        for image in _extra_images(ex):
            if image.path is not None and not (src / image.path).is_file():
                problem("images.path", f"a file at {src / image.path}")
        planned.append(_Planned(ex, indices, fps))
    if problems:
        raise InputError(problems)
    return planned


def _frame_path(video: str, index: int) -> str:
    stem = Path(video).with_suffix("").as_posix()
    return f"images/{stem}/{index:06d}.jpg"


def _write_frames(
    src: Path, planned: list[_Planned], folder: Path, spec: ResizeSpec, progress: Progress | None
) -> dict[tuple[str, int], str]:
    """Decode every needed frame once per video (one forward pass) and write it once."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for p in planned:
        wanted[p.ex.video].update(p.indices)
    paths: dict[tuple[str, int], str] = {}
    for done, (video, indices) in enumerate(sorted(wanted.items())):
        if progress is not None:
            progress(f"frames of {Path(video).stem}", done, len(wanted))
        source = open_source(videos_dir(src) / video)
        for frame in source.read(sorted(indices)):
            rel = _frame_path(video, frame.index)
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(encode_jpeg(frame.image, spec))
            paths[(video, frame.index)] = rel
    if progress is not None:
        progress("frames", len(wanted), len(wanted))
    return paths


def _extra_images(ex: TrainingExample) -> list[ExtraImage]:
    return [image for m in ex.messages for image in m.images]


def _write_extra_images(
    src: Path, records: list[TrainingExample], folder: Path, spec: ResizeSpec
) -> dict[ExtraImage, str]:
    """Exploration views (read from the training folder and written as JPEG at the frames'
    size, as runs send them) and option pictures (decoded from their data URI, as released),
    each written once: views by their path, options by their content."""
    out: dict[ExtraImage, str] = {}
    for ex in records:
        for image in _extra_images(ex):
            if image in out:
                continue
            if image.path is not None:  # under "<source>/" (the record checks it)
                rel = f"images/{PurePosixPath(image.path).with_suffix('.jpg')}"
                try:  # PIL reads any picture format here, PNG views included
                    rgb = decode_jpeg((src / image.path).read_bytes())
                except OSError:
                    raise InputError(
                        Problem(str(src / image.path), "images.path", "a PNG or JPEG", ex.id)
                    ) from None
                data = encode_jpeg(rgb, spec)
            else:
                assert image.data is not None
                header, _, payload = image.data.partition(",")
                mime = header.removeprefix("data:").split(";")[0] or "image/png"
                data = base64.b64decode(payload)
                ext = {"image/jpeg": "jpg", "image/png": "png"}.get(mime, "img")
                rel = f"images/{image.source}/{hashlib.sha1(data).hexdigest()[:16]}.{ext}"
            target = folder / rel
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            out[image] = rel
    return out


def _prepare(p: _Planned, paths: dict, extra: dict) -> Prepared:
    ex = p.ex
    turns, images, views = [], [], []
    frame_times = tuple(i / p.fps for i in p.indices)
    for m in ex.messages:
        lines = []
        if m.prefix:
            for i, t in zip(p.indices, frame_times, strict=True):
                lines.append(f"{frame_caption(t)} {IMAGE}")
                images.append(paths[(ex.video, i)])
        for image in m.images:
            lines.append(f"{image.caption} {IMAGE}")
            images.append(extra[image])
            if image.source == "explore":
                views.append(float(image.time or 0.0))
        lines.append(m.text)
        turns.append((m.role, "\n".join(lines)))
    late = [t for t in frame_times if t > ex.t_q + 1e-9]
    if late:  # the causality check, once more, on what is written: a bug, never exported
        raise CausalityError(f"{ex.id}: frame at {late[0]} s after t_q = {ex.t_q}")
    return Prepared(ex.id, ex.kind, ex.video, ex.t_q, frame_times, tuple(views), tuple(turns),
                    tuple(images))  # fmt: skip


def _move_into_place(tmp: Path, out: Path) -> None:
    """Swap the finished export in; an old one (``--force``) goes only once the new is there."""
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        out.rename(old)
    tmp.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
