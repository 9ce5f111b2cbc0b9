"""VCBench: both released layouts, grouping, evidence from occurrences, broken files."""

from __future__ import annotations

from pathlib import Path

from streamspatial.bench.vcbench.export import write_vcbench_jsonl
from streamspatial.bench.vcbench.reader import VCBenchAdapter
from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
ADAPTER = VCBenchAdapter()


def test_eval_layout_groups_lines_by_id_in_file_order():
    result = ADAPTER.load(FIXTURES / "vcbench_eval.jsonl")
    assert result.problems == []
    assert [i.id for i in result.items] == ["0000", "0546"]
    first = result.items[0]
    assert first == Item(
        benchmark="vcbench",
        id="0000",
        video="RoomTour3D/tour.mp4",
        question="How many pillows are visible at this moment?",
        answer_type=AnswerType.NUMBER,
        queries=(
            QueryPoint(index=0, time=3.0, answer=2.0),
            QueryPoint(index=1, time=2.5, answer=4.0),
            QueryPoint(index=2, time=8.0, answer=0.0),
        ),
        task=TaskLabels(category="O1", subcategory="O1-Snap", task="O1-Snap"),
        source="RoomTour3D",
        meta={"video_path": "tour.mp4"},
    )
    assert [q.time for q in result.items[1].queries] == [4.5, 9.0]
    assert result.locations == {"0000": "line 1", "0546": "line 3"}


def test_data_layout_evidence_is_occurrences_ended_before_each_query():
    items = {i.id: i for i in ADAPTER.load(FIXTURES / "vcbench_data.jsonl").items}
    snap = items["0001"]
    assert [q.evidence for q in snap.queries] == [(), ()]  # O1-Snap occurrences = query times
    action = items["0546"]
    assert [q.evidence for q in action.queries] == [
        ((1.5, 1.5), (3.0, 3.0)),
        ((1.5, 1.5), (3.0, 3.0), (6.0, 6.0)),
    ]
    assert [q.answer for q in action.queries] == [2.0, 3.0]
    episode = items["0823"]  # {start: [...], end: [...]} as released for E2
    assert [q.evidence for q in episode.queries] == [
        ((1.0, 2.0),),
        ((1.0, 2.0), (4.0, 5.0)),
        ((1.0, 2.0), (4.0, 5.0), (7.0, 8.0)),
    ]
    assert episode.meta["occurrence_times"] == {"start": [1.0, 4.0, 7.0], "end": [2.0, 5.0, 8.0]}
    delta = items["0100"]  # list of {start, end} objects; a negative count is a net change
    assert delta.queries == (QueryPoint(index=0, time=6.0, answer=-2.0, evidence=()),)
    assert delta.video == "scannetpp/09c1414f1b.mp4"


def test_broken_eval_layout_every_problem():
    path = FIXTURES / "vcbench_broken_eval.jsonl"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "1: item 0000: field 'count': expected a count (a whole number ≥ 0), got string \"two\"",
        "2: item 0000: field 'q_id': duplicate id; first used at line 1",
        "3: item 0007: field 'count': expected a count (a whole number ≥ 0), got 1.5",
        "3: item 0007: field 'counting_subtype': expected one of E1-Action, E1-Transit for E1, "
        "got E3-Other",
        "5: item 0008: field 'query_index': expected query indexes 0…1 for question 0008, got "
        "[0, 2]",
    ]
    assert result.items == []


def test_broken_data_layout_every_problem():
    path = FIXTURES / "vcbench_broken_data.jsonl"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "1: item 0546: field 'query_points': expected as many counts as times, got 2 counts "
        "for 3 times",
        "2: item 0823: field 'occurrence_times': expected as many ends as starts, got 1 ends "
        "for 2 starts",
        "3: item 0824: field 'query_points': expected a single query point for O2-Gain, got 2",
    ]


def test_prompt_is_the_section_4_1_query_format():
    item = ADAPTER.load(FIXTURES / "vcbench_eval.jsonl").items[0]
    assert ADAPTER.prompt(item, item.queries[0]) == (
        "Based on the video content up to this moment, How many pillows are visible at this "
        "moment? Please answer with a single number."
    )
    assert ADAPTER.prompt(item, item.queries[0], text_only=True) == (
        "How many pillows are visible at this moment? Please answer with a single number."
    )


def test_video_path_is_source_dataset_then_file(tmp_path):
    item = ADAPTER.load(FIXTURES / "vcbench_eval.jsonl").items[0]
    assert ADAPTER.video_path(item, tmp_path) == tmp_path / "RoomTour3D" / "tour.mp4"


def test_writer_round_trips_data_layout(tmp_path):
    items = ADAPTER.load(FIXTURES / "vcbench_data.jsonl").items
    out = tmp_path / "gen.jsonl"
    write_vcbench_jsonl(items, out)
    again = ADAPTER.load(out)
    assert again.problems == []
    assert again.items == items


def test_writer_round_trips_items_read_from_eval_layout(tmp_path):
    items = ADAPTER.load(FIXTURES / "vcbench_eval.jsonl").items
    out = tmp_path / "gen.jsonl"
    write_vcbench_jsonl(items, out)
    again = ADAPTER.load(out).items
    assert [(i.id, i.queries, i.video, i.task) for i in again] == [
        (i.id, i.queries, i.video, i.task) for i in items
    ]
