"""OmniMMI's scoring rules under both scorers (``evaluations/evaluate.py`` of OmniMMI/OmniMMI).

* AP, SI, MD, SG: a language model judge (``run --judge``) is asked ``openai_eval``'s
  messages (:meth:`~streamspatial.bench.omnimmi.OmniMMIAdapter.judge_prompt`); its reply is
  stored with the record (``extra["judge"]``) and read here.  Official: ``ast.literal_eval``
  of the whole reply, right when ``"yes" in pred.lower()`` (so "eyes" is right too), and
  ``int(score)``; a reply that does not parse is invalid (the official loop retries such an AP
  or SI file forever and drops such an MD or SG turn).  Paper: the reply's first ``{…}`` read
  as a Python or JSON object, right when ``pred`` is the word yes; an unreadable verdict is
  wrong.  Without a judge these tasks are *not scored* (score None, rule
  :data:`NOT_JUDGED`), never counted wrong or right.
* PA: the alert times are the polls answered "yes"; official (the list branch): accuracy =
  the first alert inside ``[s, e]``, precision = the alerts inside over all, IoU of ``[first,
  last]`` with ``[s, e]``, an item without alerts scores 0 in all three, and an IoU whose
  union is empty raises ``ZeroDivisionError`` (invalid).  Paper: the same, an alert read as
  the reply's first word, and a point on a point an IoU of 1.
* PT: right when the reply is ``""`` or starts with ``"<2>"`` (official, as given; a failed
  call raises there: invalid), or once stripped (paper; a failed call is wrong).

The per-query score is the verdict (1 or 0); ``extracted`` holds what the tables need beyond
it: the judge's 0–5 score, the alert times.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from streamspatial.bench.omnimmi import JUDGED, KIND, PA, WINDOW
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.verdict import Scored

OFFICIAL, PAPER = "omnimmi-evaluate", "paper"
NOT_JUDGED = "omnimmi-not-judged"  # a judged task in a run without a judge: not scored
JUDGE_KEY = "judge"  # record.extra[JUDGE_KEY] = {"model", "reply", "error"}
_BRACES = re.compile(r"\{.*?\}", re.DOTALL)
_FIRST_WORD = re.compile(r"[A-Za-z]+")


# --- the judge's verdict -------------------------------------------------------------------


def official_verdict(reply: str) -> tuple[bool, int] | None:
    """``ast.literal_eval(reply)``, ``"yes" in pred.lower()`` and ``int(score)``; None where
    the official code raises."""
    try:
        verdict = ast.literal_eval(reply)
        return "yes" in verdict["pred"].lower(), int(verdict["score"])
    except (ValueError, TypeError, SyntaxError, KeyError, AttributeError, MemoryError,
            RecursionError, IndexError):  # fmt: skip
        return None


def paper_verdict(reply: str) -> tuple[bool, float] | None:
    """The first ``{…}`` of the reply as a Python or JSON object; right when ``pred`` is the
    word yes, whatever its case; None when no object with both keys is there."""
    for m in _BRACES.finditer(reply or ""):
        for parse in (ast.literal_eval, json.loads):
            try:
                verdict = parse(m.group(0))
                pred, score = str(verdict["pred"]).strip().lower(), float(verdict["score"])
            except (ValueError, TypeError, SyntaxError, KeyError, AttributeError, MemoryError,
                    RecursionError, IndexError):  # fmt: skip
                continue
            return pred == "yes", score
    return None


def _judged(judge: Mapping[str, Any] | None, text: str | None, official: bool) -> Scored:
    rule = OFFICIAL if official else PAPER
    if judge is None:
        return Scored(None, None, True, NOT_JUDGED)
    reply = judge.get("reply")
    if text is None or reply is None:  # the model's call or the judge's failed
        return Scored(None, None if official else 0.0, False, rule)
    verdict = official_verdict(reply) if official else paper_verdict(reply)
    if verdict is None:
        return Scored(None, None if official else 0.0, False, rule)
    right, score = verdict
    return Scored(float(score), 1.0 if right else 0.0, True, rule)


# --- proactive alerting --------------------------------------------------------------------


def alert_times(text: str | None, official: bool) -> list[float] | None:
    """The times of the polls answered yes, from the polling dialogue recorded as the reply
    (official: "yes" anywhere, as the poll loop reads it; paper: the first word); None when
    the reply is not a polling dialogue."""
    try:
        record = json.loads(text or "")
        history = record["dialog_history"]
        out = []
        for message in history:
            if message["role"] != "assistant":
                continue
            content = str(message["content"]).strip().lower()
            word = _FIRST_WORD.search(content)
            yes = "yes" in content if official else bool(word and word.group(0) == "yes")
            if yes:
                out.append(float(message["time"]))
        return out
    except (ValueError, TypeError, KeyError):
        return None


def pa_metrics(
    alerts: list[float], window: tuple[float, float], official: bool
) -> tuple[float, float, float] | None:
    """(accuracy, precision, IoU) of one item, as ``evaluate.py``'s list branch adds them up;
    None where it divides by zero (official: every alert and the window one instant)."""
    s, e = window
    if not alerts:
        return 0.0, 0.0, 0.0
    acc = 1.0 if s <= alerts[0] <= e else 0.0
    prec = sum(1 for t in alerts if s <= t <= e) / len(alerts)
    first, last = alerts[0], alerts[-1]
    union = max(last, e) - min(first, s)
    if union == 0:
        return None if official else (acc, prec, 1.0)
    return acc, prec, max(0.0, min(last, e) - max(first, s)) / union


def _alerting(item: Item, text: str | None, official: bool) -> Scored:
    rule = OFFICIAL if official else PAPER
    alerts = alert_times(text, official)
    if alerts is None:
        return Scored(None, None if official else 0.0, False, rule)
    s, e = item.meta[WINDOW]
    metrics = pa_metrics(alerts, (s, e), official)
    if metrics is None:  # ZeroDivisionError in the official script
        return Scored(alerts, None, False, rule)  # type: ignore[arg-type]
    return Scored(alerts, metrics[0], True, rule)  # type: ignore[arg-type]


# --- proactive turn-taking -----------------------------------------------------------------


def _turn_taking(text: str | None, official: bool) -> Scored:
    if text is None:  # the official script's None.startswith raises; the paper: wrong
        return Scored(None, None if official else 0.0, False, OFFICIAL if official else PAPER)
    reply = text if official else text.strip()
    silent = reply == "" or reply.startswith("<2>")
    return Scored("silent" if silent else "replied", 1.0 if silent else 0.0, True,
                  OFFICIAL if official else PAPER)  # fmt: skip


# --- the rules -----------------------------------------------------------------------------


def _rule(item: Item, text: str | None, judge: Mapping[str, Any] | None, official: bool) -> Scored:
    kind = item.meta[KIND]
    if kind in JUDGED:
        return _judged(judge, text, official)
    if kind == PA:
        return _alerting(item, text, official)
    return _turn_taking(text, official)


def omnimmi_official(
    item: Item, query: QueryPoint, text: str | None, judge: Mapping[str, Any] | None = None
) -> Scored:
    return _rule(item, text, judge, official=True)


def omnimmi_paper(
    item: Item, query: QueryPoint, text: str | None, judge: Mapping[str, Any] | None = None
) -> Scored:
    return _rule(item, text, judge, official=False)


__all__ = [
    "JUDGE_KEY",
    "NOT_JUDGED",
    "alert_times",
    "official_verdict",
    "omnimmi_official",
    "omnimmi_paper",
    "pa_metrics",
    "paper_verdict",
]
