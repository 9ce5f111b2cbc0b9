"""VCBench: streaming counting questions asked at several query points.

Two released layouts read into the same Items:

* ``vcbench_eval.jsonl`` — one line per query point (``q_id, query_index, id, …,
  query_time, count``); lines sharing ``id`` form one question, in file order.
* ``vcbench_data.jsonl`` — one line per question with ``query_points: {time: [...], count:
  [...]}`` and ``occurrence_times``: a list of event times, or interval bounds for E2 /
  O1-Delta / O2-Gain (``{"start": [...], "end": [...]}`` as released, or a list of
  ``{"start", "end"}`` objects).

Evidence for a query point is every occurrence that ended strictly before it (none for
O1-Snap, whose "occurrences" are the query moments themselves); the raw occurrence times stay
in ``item.meta["occurrence_times"]``.  Videos live at ``<videos>/<source_dataset>/<video_path>``.
Released query times are not always ascending; that is kept as is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from .. import prompts
from .._files import read_jsonl
from .._items import IdRegistry, build_item, interval
from .._rows import Row, check_number, check_time
from ..base import (
    TRAJECTORIES,
    BenchmarkAdapter,
    GenerationSettings,
    LoadResult,
    PromptOptions,
    ScoringSpec,
)

SUBCATEGORIES = {
    "O1": ("O1-Snap", "O1-Delta"),
    "O2": ("O2-Unique", "O2-Gain"),
    "E1": ("E1-Action", "E1-Transit"),
    "E2": ("E2-Periodic", "E2-Episode"),
}
ALL_SUBCATEGORIES = tuple(s for subs in SUBCATEGORIES.values() for s in subs)
# Subcategories that set a single query point at the window end (VCBench §3, App. A).
SINGLE_POINT = ("O1-Delta", "O2-Gain")

EVAL_FIELDS = ("q_id", "query_index", "id", "query_time", "count")
DATA_FIELDS = ("id", "query_points", "occurrence_times")


class VCBenchAdapter(BenchmarkAdapter):
    title = "VCBench"
    short_title = "VCBench"
    headline_metric = "GPA"
    figures = (TRAJECTORIES,)
    scoring = ScoringSpec(
        invalid="exclude",
        number_metric="gpa",
        official="buaa-colalab/VCBench eval/unify_results.py + eval/compute_metrics.py",
    )
    generation = GenerationSettings(
        temperature=0.0,
        max_tokens=128,
        source="buaa-colalab/VCBench eval/demo_gemini.py: temperature 0, max_output_tokens 128",
    )

    keys_all = frozenset({"counting_subtype"})

    def sniff(self, path: Path) -> bool:
        # Its loader reads JSON Lines only, so a parquet file is never taken for VCBench.
        return path.suffix != ".parquet" and super().sniff(path)

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        records = list(read_jsonl(path, result.problems))
        first = next((rec for _, rec in records), {})
        if "query_points" in first or ("occurrence_times" in first and "q_id" not in first):
            _load_data(path, records, result)
        else:
            _load_eval(path, records, result)
        return result

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        return prompts.vcbench_prompt(
            item.question, text_only=options.text_only, official=options.official
        )


def _common(row: Row) -> dict[str, Any] | None:
    """Fields every line of either layout carries."""
    source = row.str("source_dataset")
    video = row.str("video_path")
    question = row.str("question")
    ctype = row.str("counting_type")
    sub = row.str("counting_subtype")
    if ctype is not None and ctype not in SUBCATEGORIES:
        row.problem("counting_type", f"expected one of {', '.join(SUBCATEGORIES)}, got {ctype}")
    elif ctype is not None and sub is not None and sub not in SUBCATEGORIES[ctype]:
        row.problem(
            "counting_subtype",
            f"expected one of {', '.join(SUBCATEGORIES[ctype])} for {ctype}, got {sub}",
        )
    if not row.ok:
        return None
    return {"source": source, "video": video, "question": question, "type": ctype, "sub": sub}


def _count(row: Row, field: str, raw: Any) -> float | None:
    v = check_number(row, field, raw, what="a count (a whole number ≥ 0)")
    if v is None:
        return None
    if not v.is_integer() or (v < 0 and "Delta" not in str(row.data.get("counting_subtype"))):
        row.problem(field, f"expected a count (a whole number ≥ 0), got {raw!r}")
        return None
    return v


def _load_eval(path: Path, records: list[tuple[str, dict[str, Any]]], result: LoadResult) -> None:
    groups: dict[str, list[tuple[Row, dict[str, Any], int, float, float]]] = {}
    q_ids = IdRegistry()
    for loc, rec in records:
        row = Row(rec, str(path), loc, result.problems)
        item_id = row.ident("id")
        row.item_id = item_id
        q_id = row.ident("q_id")
        if q_id is not None:
            q_ids.check(row, "q_id", q_id)
        index = row.int("query_index", minimum=0)
        t = row.time("query_time")
        count = _count(row, "count", rec["count"]) if row.has("count") else None
        if not row.has("count"):
            row.problem("count", "missing; expected a count")
        common = _common(row)
        if item_id is None:
            continue
        group = groups.setdefault(item_id, [])
        if row.ok and common is not None:
            group.append((row, common, index, t, count))  # type: ignore[arg-type]
        else:
            group.append((row, {}, -1, 0.0, 0.0))
    for item_id, lines in groups.items():
        first_row = lines[0][0]
        if any(not r.ok for r, *_ in lines):
            continue
        common = lines[0][1]
        for r, c, *_ in lines[1:]:
            for key in ("video", "question", "sub", "source"):
                if c[key] != common[key]:
                    name = {
                        "video": "video_path",
                        "sub": "counting_subtype",
                        "source": "source_dataset",
                    }.get(key, key)
                    r.problem(
                        name,
                        f"expected the same {name} as the question's first line "
                        f"({first_row.location}): {common[key]!r}",
                    )
        indexes = sorted(i for _, _, i, _, _ in lines)
        if indexes != list(range(len(lines))):
            lines[-1][0].problem(
                "query_index",
                f"expected query indexes 0…{len(lines) - 1} for question {item_id}, got {indexes}",
            )
        if any(not r.ok for r, *_ in lines):
            continue
        ordered = sorted(lines, key=lambda e: e[2])
        queries = tuple(QueryPoint(index=i, time=t, answer=count) for _, _, i, t, count in ordered)
        result.add(_make(first_row, item_id, common, queries, occurrences=None), first_row.location)


def _load_data(path: Path, records: list[tuple[str, dict[str, Any]]], result: LoadResult) -> None:
    ids = IdRegistry()
    for loc, rec in records:
        row = Row(rec, str(path), loc, result.problems)
        item_id = ids.item_id(row)
        common = _common(row)
        points = row.dict("query_points")
        times = counts = None
        if points is not None:
            times = points.get("time")
            counts = points.get("count")
            if not isinstance(times, list):
                row.problem("query_points.time", "expected a list of query times")
            if not isinstance(counts, list):
                row.problem("query_points.count", "expected a list of counts")
            if isinstance(times, list) and isinstance(counts, list):
                if len(times) != len(counts):
                    row.problem(
                        "query_points",
                        f"expected as many counts as times, got "
                        f"{len(counts)} counts for {len(times)} times",
                    )
                if not times:
                    row.problem("query_points.time", "expected at least one query time")
        occurrences = _occurrences(row) if row.has("occurrence_times") else []
        if not row.has("occurrence_times"):
            row.problem(
                "occurrence_times", "missing; expected a list of times or {start, end} intervals"
            )
        if not row.ok or common is None or item_id is None:
            continue
        assert isinstance(times, list) and isinstance(counts, list)
        queries = []
        for i, (raw_t, raw_c) in enumerate(zip(times, counts, strict=True)):
            t = check_time(row, f"query_points.time[{i}]", raw_t)
            c = _count(row, f"query_points.count[{i}]", raw_c)
            if t is None or c is None or occurrences is None:
                continue
            evidence = (
                () if common["sub"] == "O1-Snap" else tuple(s for s in occurrences if s[1] < t)
            )
            queries.append(QueryPoint(index=i, time=t, answer=c, evidence=evidence))
        intent = row.dict("intent", required=False)  # generated benchmarks only
        if row.ok:
            item = _make(
                row,
                item_id,
                common,
                tuple(queries),
                occurrences=rec.get("occurrence_times"),
                intent=intent,
            )
            result.add(item, loc)


def _occurrences(row: Row) -> list[tuple[float, float]] | None:
    raw = row.data["occurrence_times"]
    field = "occurrence_times"
    if isinstance(raw, dict):
        starts, ends = raw.get("start"), raw.get("end")
        if not isinstance(starts, list) or not isinstance(ends, list):
            row.problem(field, "expected {start: [...], end: [...]} lists")
            return None
        if len(starts) != len(ends):
            row.problem(
                field,
                f"expected as many ends as starts, got {len(ends)} ends for {len(starts)} starts",
            )
            return None
        raw = [[s, e] for s, e in zip(starts, ends, strict=True)]
    if not isinstance(raw, list):
        row.problem(field, "expected a list of times or {start, end} intervals")
        return None
    out: list[tuple[float, float]] = []
    for i, e in enumerate(raw):
        if isinstance(e, dict | list):
            span = interval(row, f"{field}[{i}]", e)
        else:
            t = check_time(row, f"{field}[{i}]", e)
            span = None if t is None else (t, t)
        if span is None:
            return None
        out.append(span)
    return out


def _make(
    row: Row,
    item_id: str,
    common: dict[str, Any],
    queries: tuple[QueryPoint, ...],
    occurrences: Any,
    intent: dict[str, Any] | None = None,
) -> Item | None:
    meta: dict[str, Any] = {"video_path": common["video"]}
    if occurrences is not None:
        meta["occurrence_times"] = occurrences
    if common["sub"] in SINGLE_POINT and len(queries) != 1:
        row.problem(
            "query_points", f"expected a single query point for {common['sub']}, got {len(queries)}"
        )
    return build_item(
        row,
        benchmark="vcbench",
        id=item_id,
        video=f"{common['source']}/{common['video']}",
        question=common["question"],
        answer_type=AnswerType.NUMBER,
        queries=queries,
        task=TaskLabels(category=common["type"], subcategory=common["sub"], task=common["sub"]),
        source=common["source"],
        intent=intent,
        meta=meta,
    )


__all__ = ["ALL_SUBCATEGORIES", "SUBCATEGORIES", "VCBenchAdapter"]
