"""Bad-input suite: a corpus of broken inputs, each through the real CLI.

For every case — broken benchmark files (JSONL, JSON, parquet), broken videos and frame
folders, broken YAML configs — ``streamspatial run`` (and ``validate`` for benchmark files)
must answer with one clear line naming the file and, where there is one, the item and field;
exit non-zero; print no traceback; and leave no run folder behind (nothing half-written).
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from runner_fixtures import ovos_rows, write_ovos

DATA = "ovo_s_bench_l1_l4.jsonl"


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Path], list[str]]  # builds the inputs in a folder; returns extra run args
    expect: tuple[str, ...]  # substrings of the one error line (besides the file name)
    file: str = DATA  # the file the line must name (relative to the case folder)
    validate: bool = True  # also run `streamspatial validate` on the data file
    # Found only while decoding (the run folder exists by then): run.json must say failed.
    mid_run: bool = False


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("good")
    write_ovos(root)
    return root


def rows() -> list[dict]:
    return copy.deepcopy(ovos_rows())


def write_rows(root: Path, records: list[dict]) -> None:
    (root / DATA).write_text("".join(json.dumps(r) + "\n" for r in records))


def mutate(fn: Callable[[list[dict]], None]) -> Callable[[Path], list[str]]:
    def make(root: Path) -> list[str]:
        records = rows()
        fn(records)
        write_rows(root, records)
        return []

    return make


def raw_data(data: bytes) -> Callable[[Path], list[str]]:
    def make(root: Path) -> list[str]:
        (root / DATA).write_bytes(data)
        return []

    return make


def good_lines() -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows()).encode()


def setitem(index: int, key: str, value: object) -> Callable[[list[dict]], None]:
    def fn(records: list[dict]) -> None:
        records[index][key] = value

    return fn


def drop(index: int, key: str) -> Callable[[list[dict]], None]:
    def fn(records: list[dict]) -> None:
        del records[index][key]

    return fn


def broken_video(content: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    """Replace a.mp4 with a broken file (the data file stays good)."""

    def make(root: Path) -> list[str]:
        write_rows(root, rows())
        target = root / "videos" / "src" / "a.mp4"
        target.unlink()
        content(target)
        return []

    return make


def truncate(path: Path) -> None:
    good = path.with_name("b.mp4").read_bytes()
    path.write_bytes(good[: len(good) // 2])


def audio_only(path: Path) -> None:
    import av
    import numpy as np

    with av.open(str(path), "w", format="mp4") as out:
        stream = out.add_stream("aac", rate=16000)
        samples = np.zeros((1, 1024), dtype=np.float32)
        for k in range(20):
            frame = av.AudioFrame.from_ndarray(samples, format="fltp", layout="mono")
            frame.sample_rate = 16000
            frame.pts = k * 1024
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def frame_folder(gap: bool) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        from streamspatial.video.synthetic import write_frame_folder

        write_frame_folder(path, 6.0, fps=1.0, size=(64, 48))
        if gap:
            (path / "000003.jpg").unlink()
        else:
            for f in path.iterdir():
                f.unlink()

    return make


def yaml_config(text: str) -> Callable[[Path], list[str]]:
    """A config file holding the data/videos/model lines plus ``text``."""

    def make(root: Path) -> list[str]:
        write_rows(root, rows())
        cfg = root / "run.yaml"
        cfg.write_text(
            f"data: {root / DATA}\nvideos: {root / 'videos'}\nmodel: random\n"
            f"out: {root / 'out'}\n" + text
        )
        return ["--config", str(cfg)]

    return make


def truncate_faststart(path: Path) -> None:
    """Cut a file whose index comes first: it still opens, and lists frames it lost."""
    import av

    good = path.with_name("b.mp4")
    whole = path.with_name("whole.mp4")
    faststart = {"movflags": "faststart"}
    with av.open(str(good)) as src, av.open(str(whole), "w", options=faststart) as dst:
        stream = dst.add_stream_from_template(src.streams.video[0])
        for packet in src.demux(src.streams.video[0]):
            if packet.dts is not None:
                packet.stream = stream
                dst.mux(packet)
    data = whole.read_bytes()
    whole.unlink()
    path.write_bytes(data[: len(data) * 6 // 10])


def symlink_loop(name: str) -> Callable[[Path], None]:
    def make(root: Path) -> None:
        (root / f"{name}.loop").symlink_to(root / name)
        (root / name).unlink(missing_ok=True)
        (root / name).symlink_to(root / f"{name}.loop")

    return make


def data_as(name: str, make_file: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    def make(root: Path) -> list[str]:
        make_file(root)
        return ["--data", str(root / name)] if name != DATA else []

    return make


def out_at(relative: str, prepare: Callable[[Path], None] = lambda root: None):
    def make(root: Path) -> list[str]:
        write_rows(root, rows())
        prepare(root)
        target = relative if relative.startswith("/") else str(root / relative)
        return ["--out", target]

    return make


def nested_line() -> bytes:
    return b"[" * 100_000 + b"]" * 100_000 + b"\n" + good_lines().split(b"\n", 1)[1]


def yaml_bytes(data: bytes) -> Callable[[Path], list[str]]:
    def make(root: Path) -> list[str]:
        write_rows(root, rows())
        (root / "run.yaml").write_bytes(
            f"data: {root / DATA}\nvideos: {root / 'videos'}\nmodel: random\n".encode() + data
        )
        return ["--config", str(root / "run.yaml")]

    return make


BOMB = "".join(
    f"  {a}: &{a} [{', '.join([f'*{p}'] * 9 if p else ['x'] * 9)}]\n"
    for p, a in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True)
)


def yaml_raw(text: str) -> Callable[[Path], list[str]]:
    def make(root: Path) -> list[str]:
        write_rows(root, rows())
        (root / "run.yaml").write_text(text)
        return ["--config", str(root / "run.yaml")]

    return make


def parquet_missing_columns(root: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = rows()
    table = pa.table(
        {
            "id": [r["id"] for r in records],
            "video_path": [r["video_path"] for r in records],
            "question": [r["question"] for r in records],
        }
    )
    pq.write_table(table, root / "ovo_s_bench.parquet")
    return ["--data", str(root / "ovo_s_bench.parquet"), "--format", "ovos"]


def parquet_garbage(root: Path) -> list[str]:
    (root / "ovo_s_bench.parquet").write_bytes(b"PAR1 this is not a parquet file at all")
    return ["--data", str(root / "ovo_s_bench.parquet"), "--format", "ovos"]


def nan_time(records: list[dict]) -> None:
    records[1]["query_times"] = [math.nan]


def json_nan_text(root: Path) -> list[str]:
    records = rows()
    text = "".join(json.dumps(r) + "\n" for r in records).replace(
        '"query_times": [4.35]', '"query_times": [NaN]'
    )
    (root / DATA).write_text(text)
    return []


def answers_empty(records: list[dict]) -> None:
    # A shorter list is padded with its last answer, as OVO-S-Bench's loader does; none at all
    # leaves the query points without a truth.
    records[2]["answers"] = []


def dup_id(records: list[dict]) -> None:
    records[5]["id"] = records[4]["id"]


def options_beyond_g(records: list[dict]) -> None:
    records[3]["options"] = {letter: f"option {letter}" for letter in "ABCDEFGH"}


def options_gap(records: list[dict]) -> None:
    records[3]["options"] = {"A": "x", "B": "y", "D": "z"}


def evidence_reversed(records: list[dict]) -> None:
    records[0]["evidence_times"] = [[1.5, 0.5]]


CASES = [
    # --- benchmark files: encoding and framing
    Case("jsonl-bom", raw_data(b"\xef\xbb\xbf" + good_lines()), ("byte-order mark",)),
    Case("blank-line", raw_data(good_lines().replace(b"\n", b"\n\n", 1)), ("blank line",)),
    Case("garbage-line", raw_data(good_lines() + b"this is not json\n"), (":10: not valid JSON",)),
    Case(
        "non-utf8", raw_data(good_lines().replace(b"Question 3", b"Question \xff\xfe3")), ("UTF-8",)
    ),
    Case("zero-length-data", raw_data(b""), ("empty",)),
    Case("truncated-last-line", raw_data(good_lines()[:-40]), (":9: not valid JSON",)),
    Case("json-array-of-numbers", raw_data(b"[1, 2, 3]\n"), ("",)),
    Case("binary-data", raw_data(os.urandom(64).replace(b"\n", b"x")), ("",)),
    Case("nested-json-line", raw_data(nested_line()), (":1: not valid JSON", "nested too deeply")),
    Case("utf16-data", raw_data(good_lines().decode().encode("utf-16")), ("UTF-16", "UTF-8")),
    Case(
        "utf16-data-no-bom",
        raw_data(good_lines().decode().encode("utf-16-le")),
        ("UTF-16", "UTF-8"),
    ),
    Case("data-symlink-loop", data_as(DATA, symlink_loop(DATA)), ("symbolic link loop",)),
    Case(
        "data-under-proc",
        data_as("/proc/self/status", lambda root: write_rows(root, rows())),
        ("could not tell the benchmark format",),
        file="/proc/self/status",
        validate=False,
    ),
    # --- benchmark files: fields
    Case("duplicate-id", mutate(dup_id), ("item 4", "id")),
    Case("nan-time", json_nan_text, ("item 1", "query_times")),
    Case("negative-time", mutate(setitem(1, "query_times", [-2.0])), ("item 1", "query_times")),
    Case("string-time", mutate(setitem(1, "query_times", ["soon"])), ("item 1", "query_times")),
    Case(
        "time-past-video",
        mutate(setitem(1, "query_times", [999.0])),
        ("item 1", "query_time", "within the video"),
        validate=False,  # needs the videos: checked by run (and validate --videos below)
    ),
    Case("answer-outside-options", mutate(setitem(0, "answers", ["E"])), ("item 0", "answer")),
    Case("options-beyond-g", mutate(options_beyond_g), ("item 3", "options")),
    Case("options-gap", mutate(options_gap), ("item 3", "options")),
    Case("options-not-a-mapping", mutate(setitem(3, "options", "A or B")), ("item 3", "options")),
    Case("answers-empty", mutate(answers_empty), ("item 2", "answers")),
    Case("missing-question", mutate(drop(4, "question")), ("item 4", "question")),
    Case("missing-video-path", mutate(drop(4, "video_path")), ("item 4",)),
    Case("evidence-reversed", mutate(evidence_reversed), ("item 0", "evidence")),
    Case("parquet-missing-columns", parquet_missing_columns, ("",), file="ovo_s_bench.parquet"),
    Case("parquet-garbage", parquet_garbage, ("parquet",), file="ovo_s_bench.parquet"),
    # --- videos and frame folders
    Case(
        "zero-length-video",
        broken_video(lambda p: p.write_bytes(b"")),
        ("item 0", "video", "empty"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "truncated-video",
        broken_video(truncate),
        ("item 0", "video"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "audio-only",
        broken_video(audio_only),
        ("item 0", "video", "no video stream"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "text-as-video",
        broken_video(lambda p: p.write_text("not a video\n" * 50)),
        ("item 0", "video", "not a readable video"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "missing-video",
        broken_video(lambda p: None),
        ("item 0", "video"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "frame-folder-gap",
        broken_video(frame_folder(gap=True)),
        ("item 0", "video", "gap in frame numbering"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "empty-frame-folder",
        broken_video(frame_folder(gap=False)),
        ("item 0", "video", "no frame images"),
        file="videos/src/a.mp4",
        validate=False,
    ),
    Case(
        "truncated-indexed-video",
        broken_video(truncate_faststart),
        ("video stream ends at", "truncated file"),
        file="videos/src/a.mp4",
        validate=False,
        mid_run=True,
    ),
    # --- run folders
    Case(
        "out-parent-is-a-file",
        out_at("afile/run", lambda root: (root / "afile").write_text("x")),
        ("cannot use as a run folder", "Not a directory"),
        file="afile/run",
        validate=False,
    ),
    Case(
        "out-under-proc",
        out_at("/proc/streamspatial-run"),
        ("cannot use as a run folder",),
        file="/proc/streamspatial-run",
        validate=False,
    ),
    Case(
        "out-symlink-loop",
        out_at("loop/run", symlink_loop("loop")),
        ("cannot use as a run folder", "symbolic links"),
        file="loop/run",
        validate=False,
    ),
    # --- YAML configs
    Case(
        "yaml-alias-bomb",
        yaml_config("extra_body:\n" + BOMB),
        ("extra_body", "aliases"),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-alias-loop",
        yaml_config("extra_body: &x {a: *x}\n"),
        ("extra_body", "aliases"),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-not-utf8",
        yaml_bytes("variant: caf\xe9\n".encode("latin-1")),
        ("UTF-8", "0xe9"),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-unknown-key",
        yaml_config("polcy: uniform-8\n"),
        ("polcy", "unknown option"),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-wrong-type",
        yaml_config("concurrency: lots\n"),
        ("concurrency", "integer"),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-out-of-range",
        yaml_config("frame_size: 2\n"),
        ("frame_size",),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-bad-executor",
        yaml_config("executor: spark\n"),
        ("executor",),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-syntax",
        yaml_raw("data: [unclosed\nmodel: random\n"),
        ("YAML",),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-not-mapping",
        yaml_raw("- data\n- model\n"),
        ("mapping",),
        file="run.yaml",
        validate=False,
    ),
    Case(
        "yaml-missing-data-file",
        yaml_config("data: nowhere.jsonl\n"),
        ("file not found",),
        file="nowhere.jsonl",
        validate=False,
    ),
    Case(
        "yaml-extra-body-list",
        yaml_config("extra_body: [1, 2]\n"),
        ("extra_body",),
        file="run.yaml",
        validate=False,
    ),
]


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.fixture
def invoke(capsys):
    from streamspatial.cli import main

    def call(*args: object) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        captured = capsys.readouterr()
        return rc, captured.out, captured.err

    return call


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_broken_input_is_one_clear_line(case: Case, base: Path, tmp_path: Path, invoke) -> None:
    root = tmp_path / case.name
    shutil.copytree(base, root)
    extra = case.make(root)
    out = root / "out"
    if "--config" in extra:
        args: list[object] = ["run", *extra]
    else:
        args = ["run", "--data", root / DATA, "--videos", root / "videos", "--model", "random"]
        args += ["--out", out, *extra]
    rc, stdout, stderr = invoke(*args)
    assert rc == 2, (case.name, rc, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, (case.name, stderr)
    line = lines[0]
    assert "Traceback" not in stderr + stdout
    assert str(root / case.file) in line or case.file in line, (case.name, line)
    for part in case.expect:
        assert part in line, (case.name, part, line)
    if case.mid_run:  # nothing was lost, and the run says how it ended
        meta = json.loads((out / "run.json").read_text())
        assert meta["status"] == "failed" and case.expect[-1] in meta["reason"], meta
    else:
        assert not out.exists(), (case.name, sorted(p.name for p in out.rglob("*")))

    if case.validate:
        data = next((a for a in extra if a.endswith(".parquet")), str(root / DATA))
        fmt = ["--format", "ovos"] if data.endswith(".parquet") else []
        rc, stdout, stderr = invoke("validate", data, *fmt)
        assert rc == 2, (case.name, stdout, stderr)
        assert "Traceback" not in stdout + stderr
        problems = stdout.strip().splitlines()
        assert problems and all(case.file in p for p in problems), (case.name, stdout)


def test_validate_with_videos_reports_a_time_past_the_video(base: Path, tmp_path: Path, invoke):
    root = tmp_path / "late"
    shutil.copytree(base, root)
    records = rows()
    records[1]["query_times"] = [999.0]
    write_rows(root, records)
    rc, stdout, _ = invoke("validate", root / DATA, "--videos", root / "videos")
    assert rc == 2 and "item 1" in stdout and "within the video" in stdout, stdout


def test_a_first_record_longer_than_64_kb_is_still_recognised(base, tmp_path, invoke) -> None:
    """Records may carry inline images (OVO-S 4.3 maps): format detection reads whole lines."""
    root = tmp_path / "long"
    shutil.copytree(base, root)
    records = rows()
    records[0]["question"] = "where is it? " + "x" * 70_000
    write_rows(root, records)
    rc, _, stderr = invoke(
        "run", "--data", root / DATA, "--videos", root / "videos", "--model", "random",
        "--out", root / "out", "--no-progress",
    )  # fmt: skip
    assert rc == 0, stderr
    rc, stdout, _ = invoke("validate", root / DATA)
    assert rc == 0, stdout
