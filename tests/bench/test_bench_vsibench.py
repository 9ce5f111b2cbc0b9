"""VSI-Bench parquet: items asked at the end of the video, resolved from its duration."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from streamspatial.bench.base import QUERY_AT_END
from streamspatial.bench.registry import load_benchmark
from streamspatial.bench.vsibench.reader import VSIBenchAdapter
from streamspatial.core.schema import AnswerType, Option, QueryPoint, TaskLabels
from streamspatial.video.synthetic import write_timestamp_video

ADAPTER = VSIBenchAdapter()

ROWS = {
    "id": [1, 2, 3],
    "dataset": ["arkitscenes", "scannet", "scannet"],
    "scene_name": ["41069025", "scene0011_00", "scene0011_00"],
    "question_type": ["object_counting", "object_rel_direction_easy", "room_size_estimation"],
    "question": [
        "How many chair(s) are in this room?",
        "If I am standing by the sofa and facing the tv, is the lamp to my left or right?",
        "What is the size of this room (in square meters)?",
    ],
    "options": [None, ["A. left", "B. right"], None],
    "ground_truth": ["4", "B", "21.5"],
}


def _write(path: Path, rows: dict) -> Path:
    pq.write_table(pa.table(rows), path)
    return path


def test_items_exact_with_query_time_pending(tmp_path):
    result = ADAPTER.load(_write(tmp_path / "test.parquet", ROWS))
    assert result.problems == []
    count, direction, room = result.items
    assert count.answer_type is AnswerType.NUMBER
    assert count.queries == (QueryPoint(index=0, time=0.0, answer=4.0),)
    assert count.meta == {QUERY_AT_END: True, "scene_name": "41069025"}
    assert count.video == "arkitscenes/41069025.mp4"
    assert direction.options == (Option(letter="A", text="left"), Option(letter="B", text="right"))
    assert direction.queries[0].answer == "B"
    assert direction.task == TaskLabels(
        category="multiple-choice", task="object_rel_direction_easy"
    )
    assert room.queries[0].answer == 21.5
    assert ADAPTER.scoring.number_metric == "mra"


def test_load_with_videos_sets_query_time_to_video_end(tmp_path):
    path = _write(tmp_path / "test.parquet", ROWS)
    (tmp_path / "videos" / "arkitscenes").mkdir(parents=True)
    (tmp_path / "videos" / "scannet").mkdir()
    write_timestamp_video(
        tmp_path / "videos/arkitscenes/41069025.mp4", seconds=4, fps=5, size=(64, 48)
    )
    write_timestamp_video(
        tmp_path / "videos/scannet/scene0011_00.mp4", seconds=6, fps=5, size=(64, 48)
    )
    adapter, items = load_benchmark(path, videos=tmp_path / "videos")
    assert adapter.name == "vsibench"
    assert [i.queries[0].time for i in items] == [4.0, 6.0, 6.0]
    assert all(i.meta[QUERY_AT_END] is False for i in items)


def test_bad_rows_and_missing_columns(tmp_path):
    rows = dict(ROWS)
    rows["ground_truth"] = ["four", "C", "21.5"]
    path = _write(tmp_path / "bad.parquet", rows)
    assert [str(p).removeprefix(f"{path}:") for p in ADAPTER.load(path).problems] == [
        "1: item 1: field 'ground_truth': expected a number for object_counting, got 'four'",
        "2: item 2: field 'ground_truth': expected a letter among the options AB, got 'C'",
    ]
    path = _write(tmp_path / "cols.parquet", {k: v for k, v in ROWS.items() if k != "options"})
    assert [str(p) for p in ADAPTER.load(path).problems] == [
        f"{path}: field 'options': missing column"
    ]


def test_prompts(tmp_path):
    count, direction, _ = ADAPTER.load(_write(tmp_path / "t.parquet", ROWS)).items
    assert ADAPTER.prompt(count, count.queries[0]) == (
        "These are frames of a video.\nHow many chair(s) are in this room?\n"
        "Please answer the question using a single word or phrase."
    )
    assert ADAPTER.prompt(direction, direction.queries[0], text_only=True) == (
        "If I am standing by the sofa and facing the tv, is the lamp to my left or right?\n"
        "Options:\nA. left\nB. right\n"
        "Answer with the option's letter from the given choices directly."
    )


def test_debiased_parquet_validates_as_vsibench(tmp_path, capsys):
    """VSI-Bench-Debiased (config ``debiased`` of ``nyu-visionx/VSI-Bench``): the dataset's
    ``create_pq.py`` writes ``test_debiased.parquet`` from ``test.jsonl``'s rows with a boolean
    ``pruned`` column added, keeping the rows Iterative Bias Pruning kept; an export without
    ``index=False`` carries ``__index_level_0__`` too.  Both are VSI-Bench files as they are."""
    from streamspatial.bench.registry import detect_format
    from streamspatial.cli import main

    kept = {k: v[:2] for k, v in ROWS.items()}
    videos = tmp_path / "videos"
    for dataset, scene in (("arkitscenes", "41069025"), ("scannet", "scene0011_00")):
        (videos / dataset).mkdir(parents=True, exist_ok=True)
        write_timestamp_video(videos / dataset / f"{scene}.mp4", seconds=3, fps=5, size=(64, 48))
    for extra in ({}, {"__index_level_0__": [0, 1]}):
        path = _write(
            tmp_path / "test_debiased.parquet", {**kept, "pruned": [False, False], **extra}
        )
        assert detect_format(path) == "vsibench"
        _, items = load_benchmark(path, videos=videos)
        assert [it.id for it in items] == ["1", "2"]
        assert all(it.queries[0].time == 3.0 for it in items)
        capsys.readouterr()
        try:
            main(["validate", str(path), "--videos", str(videos)])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        assert rc == 0, capsys.readouterr()
