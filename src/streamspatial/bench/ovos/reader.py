"""OVO-S-Bench: the release as published (``ovo_s_bench.parquet``, its JSON form) and E.6 JSONL.

One record is one item.  Everything the official loader (``annotation_utils.py`` and
``inference.py`` of the OVO-S-Bench repository) accepts reads here, without a conversion step:

* files: parquet, a JSON array, a JSON object ``{"annotations": [...]}``, or JSONL (the
  layout of the paper's App. E.6);
* ``id`` a string (``"1.1.1_0"``, ``"4.1_003"``) or an integer; ``category_index`` optional (the
  release has none);
* ``options`` as a map, a list of ``[label, content]`` pairs, a list of ``{key, value}``
  records, a dict, or any of those as JSON text; L4.3 contents are ``data:image/png;base64,…``
  maps, which reach the model as images labelled with their letter;
* ``re_constructed`` (an object) overrides ``question``, ``options`` and ``answers`` where it
  holds a non-empty value, as the official loader does;
* ``answers`` shorter than ``query_times`` are padded with the last answer (official
  ``expand_annotations_to_queries``); extra answers are ignored;
* L4 ``task_subcategory`` equals its main category (``"4.1"``, ``"4.3"``);
* ``evidence_times`` aligned with ``query_times`` (one entry per query: ``[start, end]``, a list
  of them, or empty), or, when the counts differ, one list of intervals for the whole item, each
  query getting those that start by its time.  Evidence may end at or after its query time.

Revisit Counting (2.1.2) asks the same question at several times, with up to seven options
(A–G; the official scorer reads A–E only, see ``--scorer``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels

from .. import prompts
from .._items import (
    IdRegistry,
    build_item,
    evidence_before,
    interval,
    load_items,
    options_from_list,
    options_from_map,
)
from .._rows import Row, check_time, decode_json_text
from ..base import BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, greedy

# The columns of the release's schema (data/README.md of the official repository).
COLUMNS = (
    "id",
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
OFFICIAL_SCORER = "InternLM/OVO-S-Bench score.py"


class OvosAdapter(BenchmarkAdapter):
    title = "OVO-S-Bench"
    short_title = "OVO-S"
    scoring = ScoringSpec(number_metric="exact", official=OFFICIAL_SCORER)
    generation = greedy(
        1024, "OVO-S-Bench App. G.2: greedy, 1,024-token cap (models without a thinking mode)"
    )

    keys_all = frozenset({"query_times", "task_subcategory", "answers"})

    def load(self, path: Path) -> LoadResult:
        ids = IdRegistry()
        return load_items(path, lambda row: _item(row, ids), COLUMNS)

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        if options.official:
            return prompts.ovos_official_prompt(item.question, item.options, cot=options.cot)
        return prompts.ovos_prompt(
            item.question, item.options, cot=options.cot, text_only=options.text_only
        )


def _reconstructed(row: Row) -> dict[str, Any]:
    """``re_constructed``: the official loader's overrides of question, options, answers."""
    raw = row.data.get("re_constructed")
    if raw is None:
        return {}
    raw = decode_json_text(raw, dict)
    if not isinstance(raw, dict):
        row.problem("re_constructed", "expected an object with question, options or answers")
        return {}
    return raw


def _field(row: Row, override: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """The override where it holds a value (official: ``re_constructed.get(x) or ann.get(x)``),
    with the field name to blame in problems."""
    if override.get(name):
        return f"re_constructed.{name}", override[name]
    return name, row.data.get(name)


def _level(row: Row) -> int | None:
    raw = row.data.get("level")
    if isinstance(raw, str) and raw.strip().isdigit():  # the official loader int()s it
        row.data["level"] = int(raw)
    level = row.int("level", minimum=1)
    if level is not None and level > 4:
        row.problem("level", f"expected a level 1–4, got {level}")
        return None
    return level


def _item(row: Row, ids: IdRegistry) -> Item | None:
    ids.item_id(row)  # the id the item takes (build_item), checked unique
    level = _level(row)
    main = row.str("task_main_category")
    sub = row.str("task_subcategory")
    task_name = row.str("task_type_name")
    video_path = row.str("video_path")
    source = row.str("source_dataset", allow_empty=True)
    video_id = row.ident("video_id")
    category_index = row.str("category_index", required=False)
    # L1–L3 subcategories are dotted below their main category; L4 uses the main category.
    if main and sub and sub != main and not sub.startswith(main + "."):
        row.problem(
            "task_subcategory", f"expected {main} or a subcategory of it ({main}.N), got {sub}"
        )
    override = _reconstructed(row)
    question = _question(row, override)
    options = _options(row, override)
    queries = _queries(row, override, options)
    intent = row.dict("intent", required=False)  # generated benchmarks only (not released)
    meta: dict[str, Any] = {"video_id": video_id}
    if category_index is not None:
        meta["category_index"] = category_index
    return build_item(
        row,
        benchmark="ovos",
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


def _question(row: Row, override: Mapping[str, Any]) -> str | None:
    field, raw = _field(row, override, "question")
    if raw is None:
        row.problem(field, "missing; expected a string")
        return None
    if not isinstance(raw, str) or not raw.strip():
        row.problem(field, f"expected a non-empty string, got {raw!r}")
        return None
    return raw


def _options(row: Row, override: Mapping[str, Any]) -> tuple[Option, ...] | None:
    field, raw = _field(row, override, "options")
    if raw is None:
        row.problem(field, "missing; expected options keyed by letter A–G")
        return None
    if isinstance(raw, str):
        raw = _json_or(raw)
    if isinstance(raw, dict):
        return options_from_map(row, field, raw)
    if isinstance(raw, list | tuple):
        return options_from_list(row, field, list(raw))
    row.problem(
        field, "expected options keyed by letter: a map, [label, content] pairs or {key, value}"
    )
    return None


def _queries(
    row: Row, override: Mapping[str, Any], options: tuple[Option, ...] | None
) -> list[QueryPoint]:
    times = row.list("query_times")
    evidence = row.list("evidence_times")
    answers_field, raw_answers = _field(row, override, "answers")
    answers = decode_json_text(raw_answers, list)
    if raw_answers is None:
        row.problem(answers_field, "missing; expected a list of option letters")
        return []
    if isinstance(answers, str):  # one answer given as a bare letter
        answers = [answers]
    if not isinstance(answers, list | tuple):
        row.problem(answers_field, f"expected a list of option letters, got {answers!r}")
        return []
    if times is None or evidence is None:
        return []
    if not times:
        row.problem("query_times", "expected at least one query time")
        return []
    if not answers:
        row.problem(answers_field, "expected at least one answer letter")
        return []
    letters = "".join(o.letter for o in options) if options else None
    given = [
        _answer(row, f"{answers_field}[{i}]", a, letters)
        for i, a in enumerate(answers[: len(times)])
    ]
    # Official inference.py: a shorter answers list is padded with its last answer.
    given += [given[-1]] * (len(times) - len(given))
    queries = []
    for i, raw_t in enumerate(times):
        t = check_time(row, f"query_times[{i}]", raw_t)
        answer = given[i]
        if t is None:
            continue
        spans = _evidence_for(row, evidence, len(times), i, t)
        if row.ok and spans is not None and answer is not None:
            queries.append(QueryPoint(index=i, time=t, answer=answer, evidence=tuple(spans)))
    return queries


def _answer(row: Row, field: str, raw: Any, letters: str | None) -> str | None:
    if not isinstance(raw, str) or len(raw.strip()) != 1:
        row.problem(field, f"expected an option letter, got {raw!r}")
        return None
    answer = raw.strip().upper()  # score.py compares str(gt).strip().upper()
    if letters is not None and answer not in letters:
        row.problem(field, f"expected a letter among the options {letters}, got {answer}")
        return None
    return answer


def _evidence_for(
    row: Row, evidence: list[Any], n_times: int, i: int, t: float
) -> list[tuple[float, float]] | None:
    """Query ``i``'s evidence: its aligned entry, or the item's intervals that start by ``t``."""
    if len(evidence) == n_times:
        spans = _evidence_entry(row, f"evidence_times[{i}]", evidence[i])
        if spans is not None and not evidence_before(row, f"evidence_times[{i}]", spans, t):
            return None
        return spans
    spans = []
    for j, raw in enumerate(evidence):
        span = interval(row, f"evidence_times[{j}]", raw)
        if span is None:
            return None
        if span[0] <= t:
            spans.append(span)
    return spans


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


__all__ = ["COLUMNS", "OFFICIAL_SCORER", "OvosAdapter"]
