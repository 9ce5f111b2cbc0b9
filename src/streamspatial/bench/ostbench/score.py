"""OST-Bench under both scorers, and its table.

Official: the evaluator's reading of each turn (:mod:`.official`); a turn the evaluator skips
(``meta["scored"]`` False) is left out under both scorers.  Paper: the ``answer`` of the
reply's JSON object, an option by its exact text before the evaluator's closest match, the
first number (MRA for estimates, exact for counts).

Table (``OST_evaluator.py`` ``collect_results``): the mean per question type, the multi-part
types merged (three Judgements, two Temporal-locs), eight composites (``A_state(Judge)`` …
``AO(Temp)``), four format means and "Overall", the mean of the eight.  A composite whose
inputs the run lacks is None (the evaluator would raise); the table's notes say which.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import (
    Scorable,
    Table,
    _group,
    _records,
    reading_of,
    scored_cell,
)
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.thinking import strip_thinking
from streamspatial.grading.verdict import Scored, letter_verdict, number_verdict

from . import official
from .reader import SCORED, OSTBenchAdapter

UNSCORED = "ost-unscored"


def ostbench_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    rule = "ost-evaluator"
    if not item.meta.get(SCORED, True):
        return Scored(None, None, True, UNSCORED)
    response = "None" if text is None else text  # str(None): a failed request
    if not response:  # no pred: the evaluator leaves the turn out
        return Scored(None, None, False, rule)
    pred = official.ost_process_answer(response)
    fmt = item.task.subcategory
    if fmt == "Judgement":
        texts = [o.text or "" for o in item.options]
        chosen = item.options[official.ost_judgement(pred, texts)]
        return Scored(chosen.letter, float(chosen.letter == query.answer), True, rule)
    if fmt == "Estimation":
        score = official.ost_estimation(pred, float(query.answer))
        return Scored(pred, score if score is not None else 0.0, score is not None, rule)
    return Scored(pred, official.ost_enumeration(pred, float(query.answer)), True, rule)


def ost_answer_field(text: str) -> str:
    """The ``answer`` of the reply's JSON object, else the evaluator's reading of the text."""
    for m in re.finditer(r"\{.*?\}", strip_thinking(text)[0], re.DOTALL):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict) and "answer" in obj:
            return str(obj["answer"])
    return official.ost_process_answer(strip_thinking(text)[0])


def ostbench_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    if not item.meta.get(SCORED, True):
        return Scored(None, None, True, UNSCORED)
    if not text:
        return Scored(None, 0.0, False, "paper")
    pred = ost_answer_field(text).strip()
    fmt = item.task.subcategory
    if fmt == "Judgement":
        texts = [o.text or "" for o in item.options]
        exact = [k for k, o in enumerate(texts) if o.strip().lower() == pred.lower()]
        k = exact[0] if exact else official.ost_judgement(pred, texts)
        return letter_verdict(item.options[k].letter, query.answer, "paper")
    value = extract_number(pred)
    metric = "mra" if fmt == "Estimation" else "exact"
    return number_verdict(value, float(query.answer), "paper", metric)


_MERGED = {
    "Agent_object_spatial-direction(Judgement)": [
        f"Agent_object_spatial-direction(Judgement{i})" for i in (1, 2, 3)
    ],
    "Agent_object_spatial-distance(Judgement)": [
        f"Agent_object_spatial-distance(Judgement{i})" for i in (1, 2, 3)
    ],
    "Agent_visible_info-existence(Temporal-loc)": [
        f"Agent_visible_info-existence(Temporal-loc{i})" for i in (1, 2)
    ],
}


_COMPOSITES: dict[str, list[str]] = {
    "A_state(Judge)": ["Agent_state-orientation(Judgement)", "Agent_state-position(Judgement)"],
    "A_state(Esti)": ["Agent_state-orientation(Estimation)", "Agent_state-position(Estimation)"],
    "A_info(Judge)": [
        "Agent_visible_info-existence(Judgement)",
        "Agent_visible_info-order(Judgement)",
        "Agent_visible_info-diversity(Judgement)",
    ],
    "A_info(Temp)": ["Agent_visible_info-existence(Temporal-loc)"],
    "A_info(Count)": ["Agent_visible_info-quantity(Counting)"],
    "AO(Judge)": [
        "Agent_object_spatial-direction(Judgement)",
        "Agent_object_spatial-distance(Judgement)",
    ],
    "AO(Esti)": [
        "Agent_object_spatial-direction(Estimation)",
        "Agent_object_spatial-distance(Estimation)",
    ],
    "AO(Temp)": [
        "Agent_object_spatial-direction(Temporal-loc)",
        "Agent_object_spatial-distance(Temporal-loc)",
    ],
}


_FORMATS: dict[str, list[str]] = {
    "Judgement": [
        *_COMPOSITES["AO(Judge)"],
        *_COMPOSITES["A_info(Judge)"],
        *_COMPOSITES["A_state(Judge)"],
    ],
    "Estimation": [*_COMPOSITES["AO(Esti)"], *_COMPOSITES["A_state(Esti)"]],
    "Temporal-loc": ["Agent_visible_info-existence(Temporal-loc)", *_COMPOSITES["AO(Temp)"]],
    "Counting": ["Agent_visible_info-quantity(Counting)"],
}


OST_HEADLINE = ("Overall", "Judgement", "Estimation", "Temporal-loc", "Counting", *_COMPOSITES)


def _strict_mean(values: list[float | None]) -> float | None:
    """The mean, or None when any input is missing (where the evaluator raises)."""
    return None if not values or any(v is None for v in values) else sum(values) / len(values)  # type: ignore[arg-type]


def ostbench_table(records: Iterable[Scorable]) -> Table:
    """``collect_results`` over the per-type means (the paper's layout too)."""
    recs = [r for r in _records(records) if r.rule != UNSCORED]
    per_type = {t: scored_cell(g) for t, g in sorted(_group(recs, lambda r: r.task).items())}
    static = {t: c["score"] for t, c in per_type.items() if c["score"] is not None}
    full: dict[str, float | None] = {
        k: _strict_mean([static.get(p) for p in parts]) for k, parts in _MERGED.items()
    }
    merged_parts = {p for parts in _MERGED.values() for p in parts}
    full.update({t: v for t, v in static.items() if t not in merged_parts})
    rows = [
        {"group": "type", "name": t, "n": c["n"], "invalid": c["invalid"], "score": c["score"]}
        for t, c in per_type.items()
    ]
    rows += [
        {"group": "type", "name": k, "n": None, "invalid": None, "score": full[k]} for k in _MERGED
    ]
    overall = {k: _strict_mean([full.get(p) for p in parts]) for k, parts in _COMPOSITES.items()}
    overall.update({k: _strict_mean([full.get(p) for p in parts]) for k, parts in _FORMATS.items()})
    overall["Overall"] = _strict_mean([overall[k] for k in _COMPOSITES])
    n_all = len(recs)
    rows += [
        {
            "group": "overall",
            "name": k,
            "n": n_all if k == "Overall" else None,
            "invalid": sum(1 for r in recs if not r.valid) if k == "Overall" else None,
            "score": overall[k],
        }
        for k in OST_HEADLINE
    ]
    notes = [
        f"{reading_of(recs)} reading; per-type mean over the turns scored "
        "(an empty reply is left out officially, wrong in the paper reading); "
        "Overall = mean of the eight composites"
    ]
    absent = sorted(
        {p for parts in _COMPOSITES.values() for p in parts} - set(full)
        | {k for k, v in full.items() if v is None}
    )
    if absent:
        notes.append(
            "missing question types (the official evaluator would raise): " + ", ".join(absent)
        )
    return Table(
        OSTBenchAdapter.title, ("group", "name", "n", "invalid", "score"), tuple(rows), tuple(notes)
    )


def ostbench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["name"]): r["score"] for r in table.rows if r["group"] == "overall"}


__all__ = [
    "OST_HEADLINE",
    "UNSCORED",
    "ost_answer_field",
    "ostbench_headline",
    "ostbench_official",
    "ostbench_paper",
    "ostbench_table",
]
