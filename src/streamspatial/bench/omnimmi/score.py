"""OmniMMI's scoring under both scorers (``evaluations/evaluate.py`` of OmniMMI/OmniMMI): the
rules, then the results table.

* AP, SI, MD, SG: a language model judge (``run --judge``) is asked ``openai_eval``'s
  messages (:meth:`~streamspatial.bench.omnimmi.reader.OmniMMIAdapter.judge_prompt`); its reply is
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

The results table, named as ``evaluations/evaluate.py`` prints each task:

* AP, SI: "accuracy" (verdicts with yes over the items judged) and beside it the "judge
  score" (the judge's mean 0–5 score, "Average score").
* MD, SG, per dialogue: "accuracy" (dialogues whose every turn is right) with its "judge
  score" (the mean over dialogues of their turns' mean score), "step k" (turn k right) and
  "accumulated step k" (turns 0…k all right).  Officially a turn whose verdict did not parse
  is dropped from its dialogue, so the later turns move up one step (``multi_evaluate``'s
  ``score_set``).
* PA: "accuracy", "precision", "IoU" over every item (an item without alerts scores 0).
* PT: "accuracy".
* "avg. w/o P": the leaderboard's mean of SG, AP, MD and SI accuracies.

A judged task of a run without a judge is *not scored*: its rows say so and hold no number,
and "avg. w/o P" is None; the notes name the tasks.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _records
from streamspatial.grading.metrics import mean
from streamspatial.grading.verdict import Scored

from .reader import AP, JUDGED, KIND, MD, PA, PT, SG, SI, WINDOW, OmniMMIAdapter

OFFICIAL, PAPER = "omnimmi-evaluate", "paper"
NOT_JUDGED = "omnimmi-not-judged"  # a judged task in a run without a judge: not scored
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


# --- the table ----------------------------------------------------------------------------

ORDER = (SG, AP, MD, SI, PA, PT)
AVERAGE = "avg. w/o P"
COLUMNS = ("task", "metric", "n", "invalid", "accuracy", "judge score")


def _row(
    task: str, metric: str, n: int, invalid: int, value: float | None, judge: float | None = None
) -> dict[str, Any]:
    """One row: ``value`` a fraction (accuracy, precision, IoU), ``judge`` the judge's mean
    0–5 score (``evaluate.py``'s "Average score") on a judged task's accuracy row."""
    return {"task": task, "metric": metric, "n": n, "invalid": invalid, "accuracy": value,
            "judge score": judge}  # fmt: skip


def _single(task: str, recs: list[ScoredQuery], official: bool) -> list[dict[str, Any]]:
    counted = [r for r in recs if r.score is not None]
    invalid = sum(1 for r in recs if not r.valid)
    scores = [float(int(r.prediction)) if official else float(r.prediction)  # type: ignore[arg-type]
              for r in counted if isinstance(r.prediction, int | float)]  # fmt: skip
    accuracy = mean(float(r.score) for r in counted)  # type: ignore[arg-type]
    judged = mean(scores) if scores else None
    return [_row(task, "accuracy", len(counted), invalid, accuracy, judged)]


def _turn(r: ScoredQuery) -> tuple[str, int]:
    dialogue, _, k = r.item_id.rpartition("-")
    return dialogue, int(k)


def _dialogues(task: str, recs: list[ScoredQuery], official: bool) -> list[dict[str, Any]]:
    by_dialogue: dict[str, list[ScoredQuery]] = defaultdict(list)
    for r in sorted(recs, key=_turn):
        by_dialogue[_turn(r)[0]].append(r)
    right, scores = [], []
    step: dict[int, list[float]] = defaultdict(list)
    accumulated: dict[int, list[float]] = defaultdict(list)
    for turns in by_dialogue.values():
        kept = [t for t in turns if t.score is not None]  # officially: dropped, later ones move up
        if not kept:  # the official item_score_sum / item_count divides by zero
            continue
        ok = True
        for k, t in enumerate(kept):
            yes = float(t.score) == 1.0  # type: ignore[arg-type]
            ok = ok and yes
            step[k].append(float(yes))
            accumulated[k].append(float(ok))
        right.append(float(ok))
        marks = [t.prediction for t in kept if isinstance(t.prediction, int | float)]
        marks_f = [float(int(m)) if official else float(m) for m in marks]  # type: ignore[arg-type]
        if marks_f:
            scores.append(sum(marks_f) / len(marks_f))
    invalid = sum(1 for r in recs if not r.valid)
    rows = [
        _row(
            task,
            "accuracy",
            len(right),
            invalid,
            mean(right) if right else None,
            mean(scores) if scores else None,
        ),
    ]
    rows += [_row(task, f"step {k}", len(v), 0, mean(v)) for k, v in sorted(step.items())]
    rows += [
        _row(task, f"accumulated step {k}", len(v), 0, mean(v))
        for k, v in sorted(accumulated.items())
    ]
    return rows


def _alerting_rows(recs: list[ScoredQuery], official: bool) -> tuple[list[dict[str, Any]], bool]:
    sums = [0.0, 0.0, 0.0]
    crashed = False
    for r in recs:
        alerts = r.prediction if isinstance(r.prediction, list) else []
        window = json.loads(str(r.answer)) if r.answer else [0.0, 0.0]
        metrics = pa_metrics([float(t) for t in alerts], (window[0], window[1]), official)
        if metrics is None or (official and r.score is None):
            crashed = True
            continue
        sums = [a + b for a, b in zip(sums, metrics, strict=True)]
    n = len(recs)
    invalid = sum(1 for r in recs if not r.valid)
    values = [None if crashed or not n else s / n for s in sums]
    names = ("accuracy", "precision", "IoU")
    return [_row(PA, m, n, invalid, v) for m, v in zip(names, values, strict=True)], crashed


def omnimmi_table(records: Iterable[Scorable]) -> Table:
    recs = _records(records)
    rules = {r.rule for r in recs} - {NOT_JUDGED}
    official = bool(rules - {None, PAPER})
    reading = ("official " if official else "paper ") if rules else ""  # none: nothing scored
    by_task: dict[str, list[ScoredQuery]] = defaultdict(list)
    for r in recs:
        by_task[r.task].append(r)
    rows: list[dict[str, Any]] = []
    notes = [
        f"{reading + 'reading of ' if reading else ''}OmniMMI/OmniMMI evaluations/evaluate.py"
        "; AP and PT have no time in the release: asked at the video's end",
    ]
    not_scored = []
    accuracy: dict[str, float | None] = {}
    for task in ORDER:
        group = by_task.get(task)
        if not group:
            continue
        if task in JUDGED and all(r.rule == NOT_JUDGED for r in group):
            not_scored.append(task)
            rows.append(_row(task, "not scored (no judge)", len(group), 0, None))
            accuracy[task] = None
            continue
        if task in (AP, SI):
            task_rows = _single(task, group, official)
        elif task in (MD, SG):
            task_rows = _dialogues(task, group, official)
        elif task == PA:
            task_rows, crashed = _alerting_rows(group, official)
            if crashed:
                notes.append("PA: the official code fails on this run (an alert on a "
                             "one-instant window divides by zero; the offline pipeline raises "
                             "TypeError): no PA numbers")  # fmt: skip
        else:
            counted = [r for r in group if r.score is not None]
            value = mean(float(r.score) for r in counted) if counted else None  # type: ignore[arg-type]
            task_rows = [_row(PT, "accuracy", len(counted), len(group) - len(counted), value)]
        accuracy[task] = task_rows[0]["accuracy"]
        rows += task_rows
    parts = [accuracy.get(t) for t in (SG, AP, MD, SI)]
    average = None if any(p is None for p in parts) else sum(parts) / 4  # type: ignore[misc]
    rows.append(_row(AVERAGE, "accuracy", len(recs), sum(1 for r in recs if not r.valid), average))
    if not_scored:
        notes.append(
            f"not scored: {', '.join(not_scored)} (judged by a language model, and this run "
            "had none: run --judge MODEL); avg. w/o P needs SG, AP, MD and SI"
        )
    return Table(OmniMMIAdapter.title, COLUMNS, tuple(rows), tuple(notes))


def omnimmi_headline(table: Table) -> dict[str, float | None]:
    """Each task's first number (its accuracy) and "avg. w/o P", as the leaderboard shows."""
    out: dict[str, float | None] = {}
    for r in table.rows:
        if r["task"] not in out:
            out[str(r["task"])] = r["accuracy"]
    return out


__all__ = [
    "AVERAGE",
    "NOT_JUDGED",
    "alert_times",
    "official_verdict",
    "omnimmi_headline",
    "omnimmi_official",
    "omnimmi_paper",
    "omnimmi_table",
    "pa_metrics",
    "paper_verdict",
]
