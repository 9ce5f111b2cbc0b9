"""Published releases read as released: OVO-S-Bench parquet/JSON, UCS-Bench's three shapes,
VSI-Bench parquet/JSONL — auto-detected, no conversion step (fixtures: release_fixtures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from release_fixtures import (
    ovos_release_rows,
    ucs_demo_rows,
    ucs_jsonl_rows,
    ucs_mc_array_rows,
    vsibench_rows,
    write_json,
    write_jsonl,
    write_ovos_json,
    write_ovos_parquet,
    write_ovos_videos,
    write_ucs_videos,
    write_vsibench_parquet,
)
from streamspatial.bench.registry import check_benchmark, detect_format, load_benchmark
from streamspatial.core.schema import AnswerType, Option, QueryPoint, TaskLabels


@pytest.fixture(scope="module")
def ovos_parquet(tmp_path_factory) -> Path:
    return write_ovos_parquet(
        tmp_path_factory.mktemp("ovos") / "ovo_s_bench.parquet", ovos_release_rows()
    )


def _by_id(items):
    return {it.id: it for it in items}


@pytest.mark.parametrize("options", ["pairs", "map", "records", "json"])
def test_ovos_parquet_in_every_option_encoding_reads_the_same(tmp_path, options):
    path = write_ovos_parquet(tmp_path / "ovo_s_bench.parquet", ovos_release_rows(), options)
    assert detect_format(path) == "ovos"
    _, result = check_benchmark(path)
    assert result.problems == []
    items = _by_id(result.items)
    assert set(items) == {"1.1.1_0", "2.1.2_0", "4.1_000", "4.3_000", "3.1.1_4"}
    assert items["1.1.1_0"].options[1] == Option(letter="B", text="About 2 m")
    assert [o.is_image for o in items["4.3_000"].options] == [True, True, True]


@pytest.mark.parametrize("wrapped", [False, True])
def test_ovos_json_array_and_annotations_object_read_like_the_parquet(
    tmp_path, ovos_parquet, wrapped
):
    path = write_ovos_json(tmp_path / "ovo_s_bench.json", ovos_release_rows(), wrapped=wrapped)
    assert detect_format(path) == "ovos"
    _, from_json = load_benchmark(path)
    _, from_parquet = load_benchmark(ovos_parquet)
    assert _by_id(from_json) == _by_id(from_parquet)


def test_ovos_release_fields_as_the_official_loader_reads_them(ovos_parquet):
    items = _by_id(load_benchmark(ovos_parquet)[1])
    first = items["1.1.1_0"]
    assert first.meta == {"video_id": "a"}  # no category_index in the release
    # Evidence ending exactly at the query time is allowed: frames, not annotations, are cut.
    assert first.queries == (QueryPoint(index=0, time=3.0, answer="B", evidence=((1.0, 3.0),)),)
    # answers shorter than query_times are padded with the last answer (inference.py).
    revisit = items["2.1.2_0"]
    assert [q.answer for q in revisit.queries] == ["A", "B", "B"]
    assert [q.time for q in revisit.queries] == [2.0, 5.0, 7.5]
    assert revisit.letters == "ABCDEFG"
    # L4 subcategories equal their main category.
    assert items["4.1_000"].task == TaskLabels(
        level="L4", category="4.1", subcategory="4.1", task="Trajectory Sketch Matching"
    )
    # re_constructed overrides question, options and answers.
    rebuilt = items["3.1.1_4"]
    assert rebuilt.question == "Which way leads back to the door?"
    assert rebuilt.letters == "ABC"
    assert rebuilt.queries[0].answer == "C"


def test_ovos_evidence_list_not_aligned_with_query_times_is_the_items_evidence(tmp_path):
    rows = ovos_release_rows()[1:2]
    rows[0]["evidence_times"] = [[0.5, 2.0], [3.0, 5.0]]  # two intervals, three query times
    path = write_ovos_json(tmp_path / "x.json", rows)
    (item,) = load_benchmark(path)[1]
    assert [q.evidence for q in item.queries] == [
        ((0.5, 2.0),),
        ((0.5, 2.0), (3.0, 5.0)),
        ((0.5, 2.0), (3.0, 5.0)),
    ]


def test_ovos_release_problems_are_still_reported(tmp_path):
    rows = ovos_release_rows()
    rows[0]["answers"] = []
    rows[1]["task_subcategory"] = "3.1.1"
    rows[3]["options"] = [["A", "data:image/png;base64,@@not base64@@"], ["B", "b"]]
    path = write_ovos_json(tmp_path / "bad.json", rows)
    _, result = check_benchmark(path)
    assert [(p.item_id, p.field) for p in result.problems] == [
        ("1.1.1_0", "answers"),
        ("2.1.2_0", "task_subcategory"),
        ("4.3_000", "options.A"),
    ]


def test_validate_exits_0_on_the_release_parquet_and_json(tmp_path, ovos_parquet):
    videos = write_ovos_videos(tmp_path)
    json_path = write_ovos_json(tmp_path / "ovo_s_bench.json", ovos_release_rows())
    for path in (ovos_parquet, json_path):
        res = subprocess.run(
            [sys.executable, "-m", "streamspatial", "validate", str(path), "--videos", str(videos)],
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0, res.stdout + res.stderr
        assert f"{path}: ovos, 5 items, 7 query points; videos checked" in res.stdout
        assert "default --scorer for this file: official" in res.stdout


# --- UCS-Bench ------------------------------------------------------------------------------


def test_ucs_demo_shape_reads_as_direction_items(tmp_path):
    path = write_json(tmp_path / "sample_qa.json", ucs_demo_rows())
    assert detect_format(path) == "ucs"
    _, items = load_benchmark(path, videos=write_ucs_videos(tmp_path))
    second = items[1]
    assert second.answer_type is AnswerType.DIRECTION
    assert second.options == ()
    assert second.queries == (
        QueryPoint(index=0, time=5.0, answer="It is to your front-left and rear-left."),
    )
    assert second.task == TaskLabels(category="unknown", task="unknown")  # no category given
    assert second.video == "demo_walk"


def test_ucs_demo_answer_without_a_direction_is_reported(tmp_path):
    rows = ucs_demo_rows()
    rows[0]["answer"] = "Near the window."
    _, result = check_benchmark(write_json(tmp_path / "q.json", rows))
    assert [(p.item_id, p.field) for p in result.problems] == [("demo_01", "answer")]
    assert "naming a direction" in result.problems[0].expected


def test_ucs_mc_array_and_jsonl_shapes(tmp_path):
    _, array_items = load_benchmark(write_json(tmp_path / "mc.json", ucs_mc_array_rows()))
    assert [it.video for it in array_items] == ["demo_walk", "demo_walk"]
    assert array_items[1].task.category == "unknown"
    assert array_items[1].queries[0].time == 6.0  # "00:06" is MM:SS
    assert array_items[0].meta["ucs_shape"] == "array"
    _, jsonl_items = load_benchmark(write_jsonl(tmp_path / "q.jsonl", ucs_jsonl_rows()))
    assert [q.answer for it in jsonl_items for q in it.queries] == ["C", "A"]
    assert jsonl_items[1].queries[0].time == 6.0  # float("6"), as the official script reads
    assert jsonl_items[1].task.category == "unknown"  # no dimension: "unknown" (official)
    assert jsonl_items[0].meta["ucs_shape"] == "jsonl"


# --- VSI-Bench ------------------------------------------------------------------------------


def test_vsibench_parquet_and_jsonl_as_the_dataset_card_publishes(tmp_path):
    parquet = write_vsibench_parquet(tmp_path / "test-00000-of-00001.parquet", vsibench_rows())
    jsonl = write_jsonl(tmp_path / "test.jsonl", vsibench_rows())
    assert detect_format(parquet) == detect_format(jsonl) == "vsibench"
    from_parquet = load_benchmark(parquet)[1]
    assert from_parquet == load_benchmark(jsonl)[1]
    count, direction = from_parquet
    assert count.answer_type is AnswerType.NUMBER and count.queries[0].answer == 4.0
    assert direction.options == (
        Option(letter="A", text="left"),
        Option(letter="B", text="right"),
    )
