"""VSI-SUPER's scoring: both scorers' rules, its table and headline.

``official`` applies the benchmark's scoring code (:mod:`.official`; the recall task reads
answers with VSI-Bench's reader, :mod:`streamspatial.bench.vsibench.official`); ``paper`` is the
corrected reading the issue of every quirk calls for: the answer's *leading* letter (case and
brackets aside, else the G.7 cascade), a yes/no as the reply's first word, counts as the first
number, MRA with ``<=`` and a tolerance for float error, and an empty or failed reply counted
wrong, never dropped.  Rules take the reply's text, or None for a call that failed (some
official code reads that as the string "None").
"""

from __future__ import annotations

from collections.abc import Iterable

from streamspatial.bench.vsibench.official import vsi_exact_match, vsi_first_token
from streamspatial.core.schema import AnswerType, Item, QueryPoint
from streamspatial.grading.aggregate import Scorable, Table, _group, _records, reading_of
from streamspatial.grading.extract import leading_letter
from streamspatial.grading.metrics import mean
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.verdict import Scored, letter_verdict, number_verdict

from . import official
from .reader import RECALL, STREAMING, VSISuperAdapter

# --- the rules -------------------------------------------------------------------------------


def vsisuper_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    rule = "vsisuper-utils"
    reply = text or ""
    if item.task.category == RECALL:
        token = vsi_first_token(reply)
        score = vsi_exact_match(token, str(query.answer))
        return Scored(token or None, score, token.upper() in item.letters, rule)
    if item.task.task.endswith(STREAMING):
        value = official.vsisuper_stream_value(reply)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        score = official.vsisuper_stream(value, float(query.answer))
        return Scored(float(value) if number else None, score, number, rule)
    score = official.vsisuper_count(reply, float(query.answer))
    if score is None:  # the task's float() or its division by a zero truth raises
        return Scored(None, 0.0, False, rule)
    return Scored(float(reply), score, True, rule)


def vsisuper_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    if item.answer_type is AnswerType.CHOICE:
        return letter_verdict(leading_letter(text, item.letters), query.answer, "paper")
    value = extract_number(text or "", item.question)
    return number_verdict(value, float(query.answer), "paper", "mra")


# --- table and headline -------------------------------------------------------------------


def vsisuper_table(records: Iterable[Scorable]) -> Table:
    """One Overall per duration / split: mean accuracy (Recall) or MRA (Count) over its
    query points, every one counted (an unreadable answer scores 0)."""
    recs = _records(records)
    rows = []
    for (bench, split), group in sorted(_group(recs, lambda r: (r.category, r.task)).items()):
        rows.append(
            {
                "benchmark": bench,
                "split": split,
                "n": len(group),
                "invalid": sum(1 for r in group if not r.valid),
                "score": mean(float(r.score or 0.0) for r in group),
            }
        )
    return Table(
        VSISuperAdapter.title,
        ("benchmark", "split", "n", "invalid", "score"),
        tuple(rows),
        (f"{reading_of(recs)} reading; Overall of each task",),
    )


def vsisuper_headline(table: Table) -> dict[str, float | None]:
    return {str(r["split"]): r["score"] for r in table.rows}


__all__ = ["vsisuper_headline", "vsisuper_official", "vsisuper_paper", "vsisuper_table"]
