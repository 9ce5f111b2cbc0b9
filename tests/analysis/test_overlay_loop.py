"""Count overlay and loop concatenation: the videos are read back frame by frame."""

from __future__ import annotations

import json
from pathlib import Path

import av
import numpy as np
import pytest

from report_fixtures import write_vcbench
from runner_fixtures import FPS, make_videos
from streamspatial.analysis.overlay import count_at, draw_count, layout, read_count
from streamspatial.bench.registry import load_benchmark
from streamspatial.cli import main
from streamspatial.video.synthetic import draw_frame, read_frame_index


def cli(args: list, capsys) -> tuple[int, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def frames(path: Path) -> list[tuple[float, np.ndarray]]:
    with av.open(str(path)) as c:
        return [(float(f.time), f.to_ndarray(format="rgb24")) for f in c.decode(video=0)]


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ov")
    videos = make_videos(root, ["a.mp4", "b.mp4", "c.mp4"])
    data = write_vcbench(root)
    snap = {"id": "s1", "source_dataset": "src", "video_path": "a.mp4",
            "question": "How many chairs are visible?", "counting_type": "O1",
            "counting_subtype": "O1-Snap", "occurrence_times": [2.0],
            "query_points": {"time": [2.0], "count": [3]}}  # fmt: skip
    with data.open("a") as fh:
        fh.write(json.dumps(snap) + "\n")
    return data, videos


def test_overlay_draws_the_running_count_on_every_frame(bench, tmp_path, capsys) -> None:
    data, videos = bench
    out = tmp_path / "ov"
    code, err = cli(["overlay", "--data", data, "--videos", videos, "--out", out,
                     "--no-progress"], capsys)  # fmt: skip
    assert code == 0, err
    assert "left out: s1: O1-Snap" in err
    new = out / "vcbench_data_count_overlay.jsonl"
    _, items = load_benchmark(new, videos=out / "videos")  # validates, videos included
    _, originals = load_benchmark(data, videos=None)
    by_id = {it.id: it for it in originals}
    assert sorted(it.id for it in items) == ["q1", "q2", "q3"]
    for item in items:
        orig = by_id[item.id]
        assert item.queries == orig.queries  # questions and answers unchanged
        ends = sorted(float(t) for t in orig.meta["occurrence_times"])
        src = frames(videos / orig.video)
        got = frames(out / "videos" / item.video)
        assert [t for t, _ in got] == pytest.approx([t for t, _ in src], abs=1e-6)
        counts = [read_count(img) for _, img in got]
        assert counts == [count_at(ends, t) for t, _ in got]
        assert counts[-1] == len(ends) and counts[0] == 0
        # The visible text is the one drawn for that count: where drawings of n and n ± 1
        # differ (the digits), the frame matches the drawing of n.
        k = len(got) // 2
        right = count_at(ends, got[k][0])
        for other in (right - 1, right + 1):
            near, far = text_distances(got[k][1], src[k][1], right, other)
            assert near < 25 and far > 3 * near, (right, other, near, far)


def text_distances(frame: np.ndarray, source: np.ndarray, n: int, other: int) -> tuple:
    """Mean |frame − drawing| of n and of ``other``, over the pixels where the two differ."""
    a = draw_count(source, n).astype(int)
    b = draw_count(source, other).astype(int)
    _, _, _, y = layout(frame.shape[1], frame.shape[0])
    mask = (np.abs(a - b).sum(axis=2) > 100)[:y]
    f = frame.astype(int)[:y][mask]
    return float(np.abs(f - a[:y][mask]).mean()), float(np.abs(f - b[:y][mask]).mean())


def test_count_code_round_trips_and_rejects_noise() -> None:
    for n in (0, 1, 7, 42, 4095):
        assert read_count(draw_count(draw_frame(3, (320, 240)), n)) == n
    assert read_count(np.full((240, 320, 3), 255, np.uint8)) is None
    with pytest.raises(ValueError):
        draw_count(draw_frame(0, (320, 240)), 5000)


def test_loop_video_has_exact_cycle_times(bench, tmp_path, capsys) -> None:
    _, videos = bench
    src = videos / "src" / "a.mp4"
    out = tmp_path / "loop"
    code, err = cli(["loop", src, "--start", "1.0", "--end", "2.3", "--split", "1.5",
                     "--cycles", "7", "--queries", "3", "--out", out, "--id", "L1"],
                    capsys)  # fmt: skip
    assert code == 0, err
    timing = json.loads((out / "L1.loop.json").read_text())
    assert (timing["start_frame"], timing["end_frame"], timing["frames_per_cycle"]) == (10, 23, 13)
    got = frames(out / "videos" / "loops" / "L1.mp4")
    assert len(got) == 7 * 13 == timing["frames"]
    # Every output frame shows the expected source frame, at the expected time.
    indices = [read_frame_index(img) for _, img in got]
    assert indices == [10 + i % 13 for i in range(len(got))]
    assert [t for t, _ in got] == pytest.approx([i / FPS for i in range(len(got))], abs=1e-6)
    # Cycle starts read back from the pixels (the source's start frame reappearing).
    starts = [t for (t, _), idx in zip(got, indices, strict=True) if idx == 10]
    assert starts == pytest.approx(timing["cycle_starts_s"], abs=1e-9)
    assert timing["cycle_starts_s"] == pytest.approx([k * 1.3 for k in range(7)], abs=1e-12)
    # Split at 1.5 s: sub-action ends at 0.5 s into each cycle and at the cycle's end.
    ends = timing["occurrence_ends_s"]
    assert ends == pytest.approx(sorted([k * 1.3 + 0.5 for k in range(7)] +
                                        [(k + 1) * 1.3 for k in range(7)]), abs=1e-12)  # fmt: skip
    _, items = load_benchmark(out / "L1.jsonl", videos=out / "videos")
    (item,) = items
    assert item.task.subcategory == "E2-Periodic"
    for q in item.queries:
        assert q.answer == sum(1 for e in ends if e <= q.time)
        first_of_cycle = max(s for s in starts if s <= q.time)
        assert 0 < q.time - first_of_cycle < 1.3  # mid-cycle, never on a boundary
    assert [q.answer for q in item.queries] == [3.0, 9.0, 13.0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--start", "5.0", "--end", "9.0", "--cycles", "2"], "expected 0 ≤ start < end"),
        (["--start", "1.0", "--end", "2.0", "--split", "3.0", "--cycles", "2"], "split"),
    ],
)
def test_loop_mistakes_are_one_line(bench, tmp_path, capsys, args, message) -> None:
    _, videos = bench
    code, err = cli(["loop", videos / "src" / "a.mp4", *args, "--out", tmp_path / "x"], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_overlay_refuses_other_benchmarks(tmp_path, capsys) -> None:
    from runner_fixtures import write_ovos

    data, videos = write_ovos(tmp_path)
    code, err = cli(["overlay", "--data", data, "--videos", videos, "--out", tmp_path / "o"],
                    capsys)  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1
