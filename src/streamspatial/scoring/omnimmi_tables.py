"""OmniMMI's results table, named as ``evaluations/evaluate.py`` prints each task.

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

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from streamspatial.bench.omnimmi import AP, JUDGED, MD, PA, PT, SG, SI, OmniMMIAdapter
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _records
from streamspatial.grading.metrics import mean
from streamspatial.scoring.omnimmi_rules import NOT_JUDGED, PAPER, pa_metrics

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


def _alerting(recs: list[ScoredQuery], official: bool) -> tuple[list[dict[str, Any]], bool]:
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
            task_rows, crashed = _alerting(group, official)
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


__all__ = ["AVERAGE", "omnimmi_headline", "omnimmi_table"]
