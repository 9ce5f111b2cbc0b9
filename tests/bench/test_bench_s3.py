"""S3-Bench: our JSONL format, its 16 tasks, multi-turn chains and the writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamspatial.bench import prompts
from streamspatial.bench.s3 import CHAINS, S3Adapter, write_s3_jsonl
from streamspatial.bench.tasks import S3_TASKS as TASKS
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
ADAPTER = S3Adapter()


def test_table_1_has_16_tasks_with_formats():
    assert len(TASKS) == 16
    assert sum(1 for _, f in TASKS.values() if f == "num") == 9
    assert set(CHAINS) == {t for t in TASKS if t.startswith("tem_")}


def test_good_file_exact_items():
    result = ADAPTER.load(FIXTURES / "s3_good.jsonl")
    assert result.problems == []
    count, seq, direction, dist = result.items
    assert count == Item(
        benchmark="s3",
        id="h1-001",
        video="house1/traj0.mp4",
        question="How many chairs are visible so far?",
        answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=5.0, answer=3.0, evidence=((0.5, 1.0), (2.0, 4.0))),),
        task=TaskLabels(category="Spatial Relation", subcategory="Num", task="count"),
        intent={
            "task": "count",
            "instances": ["chair_1", "chair_2", "chair_3"],
            "params": {"category": "chair"},
        },
    )
    assert seq.letters == "ABCD" and seq.queries[0].answer == "B"
    assert direction.depends_on == "h1-002"
    assert direction.explorable is True
    assert direction.task == TaskLabels(
        category="Temporal Dependency", subcategory="MC", task="tem_horizontal_direction"
    )
    assert dist.queries[0].answer == 2.75


def test_chain_prompt_uses_the_models_earlier_answer_never_the_truth():
    items = ADAPTER.load(FIXTURES / "s3_good.jsonl").items
    second = items[2]
    text = ADAPTER.prompt(second, second.queries[0], prior_answers={"h1-002": "sofa"})
    assert "Question: Is the sofa located to the Front-Left" in text
    assert "lamp" not in text  # the true first-turn answer (B = lamp) does not leak
    assert "{prev_answer}" not in text
    with pytest.raises(StreamspatialError, match="needs the model's answer to item h1-002"):
        ADAPTER.prompt(second, second.queries[0])


def test_prompt_text_and_system_prompt():
    items = ADAPTER.load(FIXTURES / "s3_good.jsonl").items
    assert ADAPTER.system_prompt(items[0]) == (
        "You are a spatial understanding agent; based on the observed spatial information, "
        "answer the corresponding questions."
    )
    assert ADAPTER.prompt(items[0], items[0].queries[0]) == (
        "The question is asked at 5 s into the video stream.\n"
        "Question: How many chairs are visible so far?\n" + prompts.S3_FORMAT_NUM
    )
    assert ADAPTER.prompt(items[1], items[1].queries[0], text_only=True) == (
        "Question: Which of the following objects appeared first?\n"
        "Options:\nA. sofa\nB. lamp\nC. bed\nD. table\n" + prompts.S3_FORMAT_MC
    )


def test_broken_file_every_problem():
    path = FIXTURES / "s3_broken.jsonl"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "1: item b-001: field 'format': expected 'num' for task count (S3-Bench, Table 1), "
        "got 'mc'",
        "1: item b-001: field 'options': expected 2–7 options for a multiple-choice task, got 0",
        "2: item b-002: field 'task': expected one of the 16 S3-Bench tasks, got 'teleport'",
        "3: item b-003: field 'answer': expected a letter among the options AB, got 'C'",
        "3: item b-003: field 'evidence': expected evidence starting no later than the query "
        "time 5 s, got [6, 7]",
        "4: item b-004: field 'depends_on': expected the id of an earlier line, got 'b-999'",
        "5: item b-005: field 'query_time': missing; expected a time in seconds",
        "5: item b-005: field 'colour': unknown field",
    ]


def _line(**kw) -> str:
    base = {
        "id": "x",
        "video": "v.mp4",
        "task": "count",
        "format": "num",
        "question": "q?",
        "query_time": 5.0,
        "answer": 1,
    }
    base.update(kw)
    return json.dumps(base)


def test_chain_rules(tmp_path):
    path = tmp_path / "s3.jsonl"
    path.write_text(
        "\n".join(
            [
                _line(id="a", task="count", query_time=9.0),
                _line(
                    id="b",
                    task="tem_cam_obj_distance_ref",
                    question="How far is it?",
                    query_time=8.0,
                    depends_on="a",
                ),
                _line(id="c", task="tem_spatial_distance_ref", question="From {prev_answer}?"),
                _line(id="d", question="Count {prev_answer}?"),
                _line(
                    id="e",
                    video="w.mp4",
                    task="tem_cam_obj_distance_ref",
                    question="From {prev_answer}?",
                    query_time=10.0,
                    depends_on="a",
                ),
            ]
        )
        + "\n"
    )
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "2: item b: field 'question': expected the placeholder {prev_answer} where the earlier "
        "turn's answer goes",
        "2: item b: field 'depends_on': expected the earlier turn to be asked no later than 8 s, "
        "got 9 s",
        "2: item b: field 'depends_on': expected a camera_motion_target turn before "
        "tem_cam_obj_distance_ref, got count",
        "3: item c: field 'depends_on': expected the id of the earlier identification_closest "
        "turn this tem_spatial_distance_ref question refers to",
        "3: item c: field 'question': {prev_answer} is only allowed with depends_on",
        "4: item d: field 'question': {prev_answer} is only allowed with depends_on",
        "5: item e: field 'depends_on': expected a turn on the same video 'w.mp4', got one on "
        "'v.mp4'",
        "5: item e: field 'depends_on': expected a camera_motion_target turn before "
        "tem_cam_obj_distance_ref, got count",
    ]


def test_writer_round_trips(tmp_path):
    items = ADAPTER.load(FIXTURES / "s3_good.jsonl").items
    out = tmp_path / "gen.jsonl"
    write_s3_jsonl(items, out)
    again = ADAPTER.load(out)
    assert again.problems == []
    assert again.items == items
