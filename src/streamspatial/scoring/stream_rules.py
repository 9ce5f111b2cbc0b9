"""Both scorers' rules for VSI-SUPER.

``official`` applies each benchmark's scoring code (:mod:`.stream_official`); ``paper`` is the
corrected reading the issue of every quirk calls for: the answer's *leading* letter (case and
brackets aside, else the G.7 cascade), a yes/no as the reply's first word, counts as the first
number, MRA with ``<=`` and a tolerance for float error, and an empty or failed reply counted
wrong, never dropped.  Rules take the reply's text, or None for a call that failed (some
official code reads that as the string "None").
"""

from __future__ import annotations

from streamspatial.bench.vsisuper import RECALL, STREAMING
from streamspatial.core.schema import AnswerType, Item, QueryPoint
from streamspatial.grading.extract import leading_letter
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.verdict import Rule, Scored, letter_verdict, number_verdict
from streamspatial.scoring import official, stream_official

# --- paper readings ------------------------------------------------------------------------


# --- VSI-SUPER -----------------------------------------------------------------------------


def vsisuper_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    rule = "vsisuper-utils"
    reply = text or ""
    if item.task.category == RECALL:
        token = official.vsi_first_token(reply)
        score = official.vsi_exact_match(token, str(query.answer))
        return Scored(token or None, score, token.upper() in item.letters, rule)
    if item.task.task.endswith(STREAMING):
        value = stream_official.vsisuper_stream_value(reply)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        score = stream_official.vsisuper_stream(value, float(query.answer))
        return Scored(float(value) if number else None, score, number, rule)
    score = stream_official.vsisuper_count(reply, float(query.answer))
    if score is None:  # the task's float() or its division by a zero truth raises
        return Scored(None, 0.0, False, rule)
    return Scored(float(reply), score, True, rule)


def vsisuper_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    if item.answer_type is AnswerType.CHOICE:
        return letter_verdict(leading_letter(text, item.letters), query.answer, "paper")
    value = extract_number(text or "", item.question)
    return number_verdict(value, float(query.answer), "paper", "mra")


OFFICIAL_RULES: dict[str, Rule] = {
    "vsisuper": vsisuper_official,
}
PAPER_RULES: dict[str, Rule] = {
    "vsisuper": vsisuper_paper,
}

__all__ = [
    "OFFICIAL_RULES",
    "PAPER_RULES",
    "leading_letter",
]
