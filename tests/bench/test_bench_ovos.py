"""OVO-S-Bench: the E.6 JSONL and the parquet release read into exact Items."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from streamspatial.bench.ovos import COLUMNS, OvosAdapter, write_ovos_jsonl
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
ADAPTER = OvosAdapter()


def _records() -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "ovos_good.jsonl").read_text().splitlines()]


def test_jsonl_first_item_exact():
    result = ADAPTER.load(FIXTURES / "ovos_good.jsonl")
    assert result.problems == []
    assert result.items[0] == Item(
        benchmark="ovos",
        id="0",
        video="CODa_full/10.mp4",
        question="How far is the yellow wet-floor caution sign from the camera?",
        answer_type=AnswerType.CHOICE,
        options=(
            Option(letter="A", text="About 0.5 m"),
            Option(letter="B", text="About 6 m"),
            Option(letter="C", text="About 3 m"),
            Option(letter="D", text="About 1.5 m"),
        ),
        queries=(QueryPoint(index=0, time=22.8, answer="D", evidence=((21.8, 22.6),)),),
        task=TaskLabels(
            level="L1",
            category="1.1",
            subcategory="1.1.1",
            task="Object-to-Object Absolute Distance",
        ),
        source="CODa_full",
        meta={"video_id": "10", "category_index": "1.1.1_0"},
    )
    assert result.locations == {"0": "line 1", "1": "line 2", "2": "line 3"}


def test_revisit_counting_has_aligned_query_points_and_seven_options():
    item = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items[1]
    assert item.letters == "ABCDEFG"
    assert item.queries == (
        QueryPoint(index=0, time=4.0, answer="B", evidence=((1.0, 2.0),)),
        QueryPoint(index=1, time=6.5, answer="C", evidence=((1.0, 2.0), (5.0, 6.0))),
        QueryPoint(index=2, time=9.0, answer="G", evidence=()),
    )


def test_map_options_are_images():
    item = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items[2]
    assert [o.is_image for o in item.options] == [True, True, True]
    assert item.options[2].image == "data:image/png;base64,iVBORw0KGgq="
    assert "C. [map image C]" in ADAPTER.prompt(item, item.queries[0])


def _write_parquet(path: Path, records: list[dict], options: str) -> None:
    cols = {c: [r[c] for r in records] for c in (*COLUMNS, "category_index") if c != "options"}
    cols["evidence_times"] = [json.dumps(r["evidence_times"]) for r in records]
    if options == "map":
        opts = pa.array(
            [list(r["options"].items()) for r in records], type=pa.map_(pa.string(), pa.string())
        )
    elif options == "pairs":
        opts = pa.array([[[k, v] for k, v in r["options"].items()] for r in records])
    else:
        opts = pa.array([json.dumps(r["options"]) for r in records])
    table = pa.table({**cols, "options": opts})
    pq.write_table(table, path)


@pytest.mark.parametrize("options", ["map", "pairs", "json"])
def test_parquet_reads_same_items_as_jsonl(tmp_path, options):
    path = tmp_path / "ovo_s_bench.parquet"
    _write_parquet(path, _records(), options)
    from_parquet = ADAPTER.load(path)
    assert from_parquet.problems == []
    assert from_parquet.items == ADAPTER.load(FIXTURES / "ovos_good.jsonl").items
    assert from_parquet.locations["1"] == "row 2"


def test_parquet_missing_columns_each_reported(tmp_path):
    path = tmp_path / "ovo_s_bench.parquet"
    recs = _records()
    pq.write_table(
        pa.table({"id": [r["id"] for r in recs], "question": [r["question"] for r in recs]}), path
    )
    result = ADAPTER.load(path)
    assert result.items == []
    missing = [c for c in COLUMNS if c not in ("id", "question")]
    assert [str(p) for p in result.problems] == [
        f"{path}: field '{c}': missing column" for c in missing
    ]


def test_broken_file_reports_every_problem_on_its_line():
    path = FIXTURES / "ovos_broken.jsonl"
    result = ADAPTER.load(path)
    assert [str(p).removeprefix(f"{path}:") for p in result.problems] == [
        "1: unexpected UTF-8 byte-order mark; save as UTF-8 without BOM",
        "1: item 0: field 'evidence_times[0]': expected evidence starting no later than the "
        "query time 5 s, got [6, 7]",
        "2: blank line; expected one JSON object per line",
        "3: not valid JSON (Expecting value)",
        "4: item 0: field 'id': duplicate id; first used at line 1",
        "4: item 0: field 'answers[0]': expected a letter among the options AB, got C",
        "5: item 4: field 'level': expected an integer, got string \"two\"",
        "5: item 4: field 'options': expected option letters A–G, got H",
        "5: item 4: field 'query_times[0]': expected a time in seconds, got nan",
        "5: item 4: field 'query_times[1]': expected a time ≥ 0 seconds, got -1.0",
        "6: item 5: field 'task_type_name': missing; expected a string",
        "6: item 5: field 'query_times[0]': expected a time ≥ 0 seconds, got -1.0",
        "7: bytes that are not UTF-8 at column 27",
    ]
    assert result.items == []


def test_default_prompt_is_the_g5_template_verbatim():
    item = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items[0]
    assert ADAPTER.prompt(item, item.queries[0]) == (
        "You are evaluating a video understanding task. Based on the video frames provided, "
        "answer the following multiple choice question.\n"
        "Question: How far is the yellow wet-floor caution sign from the camera?\n"
        "Options:\n"
        "A. About 0.5 m\nB. About 6 m\nC. About 3 m\nD. About 1.5 m\n"
        "Instructions:\n"
        '- Respond with ONLY the letter of your answer (e.g., "A" or "B").\n'
        "- Do not include any explanation or additional text.\n"
        "Your answer:"
    )


def test_cot_prompt_replaces_only_the_instructions_block():
    item = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items[0]
    cot = ADAPTER.prompt(item, item.queries[0], variant="cot")
    default = ADAPTER.prompt(item, item.queries[0])
    head = default.split("Instructions:")[0]
    assert cot == head + (
        "Instructions:\n"
        "- Think step by step about the spatial relationships and scene content shown in the "
        "frames.\n"
        "- After your reasoning, output your final answer on a new line in the format: Answer: X"
    )


def test_text_only_prompts_never_mention_frames():
    item = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items[0]
    for variant in ("default", "cot"):
        text = ADAPTER.prompt(item, item.queries[0], variant=variant, text_only=True)
        assert "frame" not in text.lower()
        assert "Question: How far is the yellow" in text


def test_writer_round_trips_through_reader(tmp_path):
    items = ADAPTER.load(FIXTURES / "ovos_good.jsonl").items
    out = tmp_path / "gen.jsonl"
    write_ovos_jsonl(items, out)
    again = ADAPTER.load(out)
    assert again.problems == []
    assert again.items == items
