"""The pieces every reader shares: a release read record by record (``load_items``), the
objects nested in a record (``Row.objects``), an item's id taken from its row (``build_item``),
an adapter named by its folder and a headline by its table's Overall row."""

from __future__ import annotations

import json
from pathlib import Path

from streamspatial.bench._items import build_item, load_items
from streamspatial.bench._rows import Row
from streamspatial.bench.base import BenchmarkAdapter, greedy, papers_protocol
from streamspatial.bench.home import overall_headline
from streamspatial.bench.registry import ADAPTERS
from streamspatial.core.schema import AnswerType, QueryPoint, TaskLabels
from streamspatial.grading.aggregate import Table


def _item(row: Row, **extra):
    return build_item(
        row,
        benchmark="test",
        video="v.mp4",
        question="How many?",
        answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=1.0, answer=2.0),),
        task=TaskLabels(task="count"),
        **extra,
    )


def test_an_item_takes_its_rows_id_unless_given_another() -> None:
    row = Row({}, "f.jsonl", "line 1", [], item_id="q-7")
    assert _item(row).id == "q-7"
    assert _item(row, id="q-7_0").id == "q-7_0"


def test_an_item_without_an_id_is_a_problem_not_an_item() -> None:
    problems: list = []
    row = Row({}, "f.jsonl", "line 1", problems)
    assert _item(row) is None
    assert [p.field for p in problems] == ["id"]


def test_objects_yields_each_object_with_its_place_and_reports_the_rest() -> None:
    problems: list = []
    row = Row({}, "f.json", "line 3", problems)
    found = list(row.objects("clips", [{"a": 1}, 5, {"b": 2}], "expected a clip"))
    assert found == [(0, "clips[0]", {"a": 1}), (2, "clips[2]", {"b": 2})]
    assert [(p.field, p.expected, p.location) for p in problems] == [
        ("clips[1]", "expected a clip", "line 3")
    ]
    assert not row.ok


def test_load_items_adds_one_several_or_no_items_per_record(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": i, "n": i}) + "\n" for i in range(3)))

    def made(row: Row):
        row.item_id = str(row.data["id"])
        n = row.data["n"]
        return (
            None if n == 0 else _item(row) if n == 1 else [_item(row, id=f"2_{k}") for k in (0, 1)]
        )

    result = load_items(path, made)
    assert [it.id for it in result.items] == ["1", "2_0", "2_1"]
    assert result.locations == {"1": "line 2", "2_0": "line 3", "2_1": "line 3"}


def test_load_items_reads_parquet_only_for_a_release_that_publishes_one(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"id": ["a"]}), path)
    as_parquet = load_items(path, lambda row: None, ("id",))
    assert as_parquet.problems == []
    as_json = load_items(path, lambda row: None)  # no parquet release: read as JSON, and fail
    assert as_json.problems


def test_a_benchmarks_adapter_is_named_by_its_folder() -> None:
    for name, adapter in ADAPTERS.items():
        assert type(adapter).__module__ == f"streamspatial.bench.{name}.reader"

    class Elsewhere(BenchmarkAdapter):  # outside bench/<name>/: names itself or has no name
        title = short_title = "X"

    assert "name" not in vars(Elsewhere)


def test_greedy_is_temperature_zero_with_a_cap() -> None:
    g = greedy(16, "its yaml")
    assert (g.temperature, g.max_tokens, g.top_p, g.source) == (0.0, 16, None, "its yaml")
    assert papers_protocol("none published").fields() == {
        "temperature": 0.0, "max_tokens": 1024, "top_p": None
    }  # fmt: skip


def test_the_default_headline_is_the_overall_row_of_the_score_column() -> None:
    rows = ({"task": "a", "n": 1, "score": 0.5}, {"task": "Overall", "n": 2, "score": 0.25})
    table = Table("T", ("task", "n", "score"), rows)
    assert overall_headline(table) == {"Overall": 0.25}
    assert overall_headline(Table("T", ("task", "n"), ({"task": "Overall", "n": 2},))) == {}
