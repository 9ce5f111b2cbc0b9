"""OVO-S-Bench: the JSONL of seed 000 App. E.6 and the parquet release (``ovo_s_bench.parquet``).

One record is one item.  ``query_times``, ``evidence_times`` and ``answers`` are aligned lists:
most items ask once; Revisit Counting (2.1.2) asks the same question several times with an
answer that grows, and has up to seven options (A–G — the official scorer wrongly stops at E).
Task 4.3 (Path-to-Map Matching) options are ``data:image/png;base64,...`` maps.  The parquet
release stores options either as a map or as a list of ``[label, content]`` pairs, and may
store nested fields as JSON text; both read into the same Items.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from . import prompts
from ._items import (
    IdRegistry,
    build_item,
    evidence_before,
    interval,
    options_from_list,
    options_from_map,
)
from ._rows import Row, check_time, first_keys, read_jsonl, read_parquet
from .base import LoadResult, ScoringSpec

COLUMNS = (
    "id",
    "category_index",
    "source_dataset",
    "video_id",
    "video_path",
    "level",
    "task_main_category",
    "task_subcategory",
    "task_type_name",
    "question",
    "options",
    "query_times",
    "evidence_times",
    "answers",
)


class OvosAdapter:
    name = "ovos"
    scoring = ScoringSpec(invalid="wrong", number_metric="exact", table="ovos")

    def sniff(self, path: Path) -> bool:
        keys = first_keys(path)
        return {"query_times", "task_subcategory", "answers"} <= keys

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        if path.suffix == ".parquet":
            records = read_parquet(path, result.problems, COLUMNS)
        else:
            records = read_jsonl(path, result.problems)
        ids = IdRegistry()
        for loc, rec in records:
            row = Row(rec, str(path), loc, result.problems)
            result.add(_item(row, ids), loc)
        return result

    def video_path(self, item: Item, videos: Path) -> Path:
        return videos / item.video

    def prompt(
        self,
        item: Item,
        query: QueryPoint,
        *,
        variant: Literal["default", "cot"] = "default",
        text_only: bool = False,
        prior_answers: Mapping[str, str] | None = None,
    ) -> str:
        return prompts.ovos_prompt(
            item.question, item.options, cot=variant == "cot", text_only=text_only
        )

    def system_prompt(self, item: Item) -> str | None:
        return None


def _item(row: Row, ids: IdRegistry) -> Item | None:
    item_id = row.ident("id")
    row.item_id = item_id
    if item_id is not None:
        ids.check(row, "id", item_id)
    level = row.int("level", minimum=1)
    if level is not None and level > 4:
        row.problem("level", f"expected a level 1–4, got {level}")
    main = row.str("task_main_category")
    sub = row.str("task_subcategory")
    task_name = row.str("task_type_name")
    question = row.str("question")
    video_path = row.str("video_path")
    source = row.str("source_dataset")
    video_id = row.ident("video_id")
    category_index = row.str("category_index", required=False)
    if main and sub and not sub.startswith(main + "."):
        row.problem("task_subcategory", f"expected a subcategory of {main} ({main}.N), got {sub}")

    options = None
    if row.has("options"):
        raw = row.data["options"]
        if isinstance(raw, str):
            raw = _json_or(raw)
        if isinstance(raw, dict):
            options = options_from_map(row, "options", raw)
        elif isinstance(raw, list):
            options = options_from_list(row, "options", raw)
        else:
            row.problem("options", "expected options keyed by letter or [label, content] pairs")
    else:
        row.problem("options", "missing; expected options keyed by letter A–G")

    times = row.list("query_times")
    evidence = row.list("evidence_times")
    answers = row.list("answers")
    queries: list[QueryPoint] = []
    if times is not None and answers is not None and evidence is not None:
        if not times:
            row.problem("query_times", "expected at least one query time")
        if len(answers) != len(times):
            row.problem(
                "answers", f"expected one answer per query time ({len(times)}), got {len(answers)}"
            )
        if len(evidence) != len(times):
            row.problem(
                "evidence_times",
                f"expected one evidence entry per query time ({len(times)}), got {len(evidence)}",
            )
        letters = "".join(o.letter for o in options) if options else None
        for i, raw_t in enumerate(times):
            t = check_time(row, f"query_times[{i}]", raw_t)
            spans = (
                _evidence_entry(row, f"evidence_times[{i}]", evidence[i])
                if i < len(evidence)
                else []
            )
            answer = answers[i] if i < len(answers) else None
            if i < len(answers):
                if not isinstance(answer, str) or len(answer.strip()) != 1:
                    row.problem(f"answers[{i}]", f"expected an option letter, got {answer!r}")
                    answer = None
                else:
                    answer = answer.strip().upper()
                    if letters is not None and answer not in letters:
                        row.problem(
                            f"answers[{i}]",
                            f"expected a letter among the options {letters}, got {answer}",
                        )
            if t is not None and spans is not None:
                evidence_before(row, f"evidence_times[{i}]", spans, t)
            if row.ok and t is not None and spans is not None and answer is not None:
                queries.append(QueryPoint(index=i, time=t, answer=answer, evidence=tuple(spans)))

    intent = row.dict("intent", required=False)  # generated benchmarks only (not released)
    meta: dict[str, Any] = {"video_id": video_id}
    if category_index is not None:
        meta["category_index"] = category_index
    return build_item(
        row,
        benchmark="ovos",
        id=item_id,
        video=video_path,
        question=question,
        answer_type=AnswerType.CHOICE,
        options=options or (),
        queries=tuple(queries),
        task=TaskLabels(level=f"L{level}", category=main, subcategory=sub, task=task_name or ""),
        source=source,
        intent=intent,
        meta=meta,
    )


def _evidence_entry(row: Row, field: str, raw: Any) -> list[tuple[float, float]] | None:
    """One query's evidence: ``[start, end]``, a list of such intervals, or empty."""
    if raw is None:
        return []
    if isinstance(raw, list | tuple) and raw and all(isinstance(e, list | tuple) for e in raw):
        spans = [interval(row, f"{field}[{j}]", e) for j, e in enumerate(raw)]
        return None if any(s is None for s in spans) else spans  # type: ignore[misc]
    if isinstance(raw, list | tuple) and not raw:
        return []
    span = interval(row, field, raw)
    return None if span is None else [span]


def _json_or(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def write_ovos_jsonl(items: Iterable[Item], path: Path) -> None:
    """Write items in the E.6 JSONL layout, so generated benchmarks load through this reader."""
    with Path(path).open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(to_ovos_record(item), ensure_ascii=False) + "\n")


def to_ovos_record(item: Item) -> dict[str, Any]:
    if item.answer_type is not AnswerType.CHOICE:
        raise ValueError(f"item {item.id}: OVO-S-Bench items are multiple choice")
    level = item.task.level or "L1"
    record: dict[str, Any] = {
        "id": int(item.id) if item.id.isdigit() else item.id,
        "category_index": item.meta.get("category_index", f"{item.task.subcategory}_{item.id}"),
        "source_dataset": item.source or "",
        "video_id": str(item.meta.get("video_id", Path(item.video).stem)),
        "video_path": item.video,
        "level": int(level.removeprefix("L")),
        "task_main_category": item.task.category,
        "task_subcategory": item.task.subcategory,
        "task_type_name": item.task.task,
        "question": item.question,
        "options": {o.letter: o.text if o.text is not None else o.image for o in item.options},
        "query_times": [q.time for q in item.queries],
        "evidence_times": [_evidence_out(q.evidence) for q in item.queries],
        "answers": [q.answer for q in item.queries],
    }
    if item.intent is not None:
        record["intent"] = item.intent
    return record


def _evidence_out(spans: tuple[tuple[float, float], ...]) -> list[Any]:
    if len(spans) == 1:
        return list(spans[0])
    return [list(s) for s in spans]


__all__ = ["COLUMNS", "OvosAdapter", "to_ovos_record", "write_ovos_jsonl"]
