"""UCS-Bench: the JSON-array and JSONL layouts, evidence, videos or 1 fps frame folders."""

from __future__ import annotations

from pathlib import Path

from streamspatial.bench.ucs.reader import UCSAdapter, strip_mcq
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
ADAPTER = UCSAdapter()


def test_json_array_layout_exact():
    result = ADAPTER.load(FIXTURES / "ucs_questions.json")
    assert result.problems == []
    assert result.items[0] == Item(
        benchmark="ucs",
        id="P01_kitchen_q1",
        video="P01_kitchen",
        question="Where is the fridge relative to you now?",
        answer_type=AnswerType.CHOICE,
        options=tuple(
            Option(letter=letter, text=t)
            for letter, t in zip(
                "ABCDE",
                ["On your left", "On your right", "Behind you", "In front of you", "Above you"],
                strict=True,
            )
        ),
        queries=(QueryPoint(index=0, time=8.0, answer="C", evidence=((1.0, 3.0), (4.0, 5.0))),),
        task=TaskLabels(
            category="Position & Orientation", subcategory="Egocentric Direction", task="direction"
        ),
        meta={"video_uid": "P01_kitchen-mcq", "ucs_shape": "array"},
    )
    second = result.items[1]
    assert second.video == "P01_kitchen"  # "__mcq" stripped too
    assert second.queries[0].time == 62.0
    assert second.queries[0].evidence == ((50.0, 60.0),)
    assert result.locations == {"P01_kitchen_q1": "line 2", "P01_kitchen_q2": "line 14"}


def test_jsonl_layout_exact():
    result = ADAPTER.load(FIXTURES / "ucs_questions.jsonl")
    assert result.problems == []
    first, second = result.items
    assert first == Item(
        benchmark="ucs",
        id="P02_office#1",
        video="P02_office",
        question="How many chairs have you passed so far?",
        answer_type=AnswerType.CHOICE,
        options=tuple(
            Option(letter=letter, text=t)
            for letter, t in zip("ABCD", ["One", "Two", "Three", "Four"], strict=True)
        ),
        queries=(QueryPoint(index=0, time=6.0, answer="C"),),
        task=TaskLabels(category="category_quantity", task="category_quantity"),
        meta={"video_uid": "P02_office", "ucs_shape": "jsonl"},
    )
    assert second.id == "q-17"
    assert second.queries == (QueryPoint(index=0, time=9.5, answer="A", evidence=((2.0, 4.0),)),)


def test_strip_mcq_suffixes():
    assert strip_mcq("abc-mcq") == "abc"
    assert strip_mcq("abc__mcq") == "abc"
    assert strip_mcq("abc-mcq-2") == "abc-mcq-2"


def test_broken_array_every_problem_with_line():
    path = FIXTURES / "ucs_broken.json"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "2: item q1: field 'question_timestamps': expected a time as \"HH:MM:SS\" or seconds ≥ 0, "
        "got '8 seconds'",
        "2: item q1: field 'answer_label': expected a letter among the options AB, got F",
        "12: item q1: field 'qid': duplicate id; first used at line 2",
        "12: item q1: field 'evidence': expected evidence starting no later than the query time "
        "8 s, got [9, 10]",
        "22: item q3: field 'video_uid': missing; expected a string",
        "22: item q3: field 'options': expected option letters A, B, C without gaps, got A, B, D",
    ]


def test_broken_jsonl_every_problem():
    path = FIXTURES / "ucs_broken.jsonl"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "1: item P02_office#1: field 'query_timestamp': expected a time as \"HH:MM:SS\" or "
        "seconds ≥ 0, got 'six'",
        "1: item P02_office#1: field 'answer_idx': expected a 0-based index below 2 (the number "
        "of options), got 2",
        "2: item P02_office#2: field 'options[0]': expected \"A. text\", got 'One'",
    ]


def test_truncated_array_reports_where_it_broke(tmp_path):
    path = tmp_path / "q.json"
    path.write_text('[\n  {"qid": "a"},\n  {"qid": ')
    result = ADAPTER.load(path)
    assert [str(p) for p in result.problems][-1] == f"{path}:3: not valid JSON (Expecting value)"


def test_video_is_a_file_or_a_frame_folder(tmp_path):
    item = ADAPTER.load(FIXTURES / "ucs_questions.json").items[0]
    assert ADAPTER.video_path(item, tmp_path) == tmp_path / "P01_kitchen.mp4"
    (tmp_path / "P01_kitchen").mkdir()
    assert ADAPTER.video_path(item, tmp_path) == tmp_path / "P01_kitchen"
    (tmp_path / "P01_kitchen.mkv").write_bytes(b"")
    assert ADAPTER.video_path(item, tmp_path) == tmp_path / "P01_kitchen.mkv"


def test_prompt_states_query_time_and_options():
    item = ADAPTER.load(FIXTURES / "ucs_questions.json").items[1]
    text = ADAPTER.prompt(item, item.queries[0])
    assert "The question is asked at 62 s into the video.\n" in text
    assert "Question: Can you reach the kettle without walking?\nOptions:\nA. Yes\nB. No\n" in text
    assert text.endswith("Your answer:")
    assert "frame" not in ADAPTER.prompt(item, item.queries[0], text_only=True).lower()
