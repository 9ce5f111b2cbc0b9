"""OVO-Bench under both scorers, and its table.

Official: ``OVOBenchScore.py``'s reading (:mod:`.official`): the right letter anywhere in the
reply, REC's digits joined, SSR/CRR's yes or no.  Paper: the leading letter, the first
number (exact) for REC, the reply's first word for SSR/CRR.  Table: a task's accuracy over
its probes; "Backward Avg.", "Realtime Avg.", "Forward Avg." the mean of their tasks;
"Total Avg." the mean of the three.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import (
    Scorable,
    Table,
    _group,
    _records,
    reading_of,
    scored_cell,
)
from streamspatial.grading.extract import leading_letter, yes_no
from streamspatial.grading.metrics import mean
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.verdict import Scored, letter_verdict, number_verdict

from . import official
from .reader import MODES, OVOBenchAdapter


def ovobench_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    task, rule = item.task.task, "ovobench-score"
    if task == "REC":
        ok = official.ovobench_rec(text, int(float(query.answer)))
        digits = "".join(re.findall(r"\d+", text or ""))
        return Scored(digits or None, float(ok), bool(digits), rule)
    if task in ("SSR", "CRR"):
        ok = official.ovobench_yes_no(text, query.answer == "A")
    else:
        ok = official.ovobench_choice(text, str(query.answer))
    # The official code finds no answer: it asks whether the right one appears.
    return Scored(str(query.answer) if ok else None, float(ok), bool(text), rule)


def ovobench_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    task = item.task.task
    if task == "REC":
        value = extract_number(text or "")
        return number_verdict(value, float(query.answer), "paper", "exact")
    if task in ("SSR", "CRR"):
        return letter_verdict(yes_no(text), query.answer, "paper")
    return letter_verdict(leading_letter(text, item.letters), query.answer, "paper")


def ovobench_table(records: Iterable[Scorable]) -> Table:
    recs = _records(records)
    by_task = _group(recs, lambda r: r.task)
    rows: list[dict[str, Any]] = []
    averages: list[float] = []
    missing = []
    for mode, tasks in MODES.items():
        scores = []
        for task in tasks:
            if task not in by_task:
                continue
            cell = scored_cell(by_task[task])
            scores.append(cell["score"])
            rows.append(
                {
                    "mode": mode,
                    "task": task,
                    "n": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
        avg = mean(scores)
        if avg is None:
            missing.append(mode)
        else:
            averages.append(avg)
        in_mode = [r for t in tasks for r in by_task.get(t, [])]
        rows.append(
            {
                "mode": mode,
                "task": f"{mode} Avg.",
                "n": len(in_mode),
                "invalid": sum(1 for r in in_mode if not r.valid),
                "accuracy": avg,
            }
        )
    rows.append(
        {
            "mode": "",
            "task": "Total Avg.",
            "n": len(recs),
            "invalid": sum(1 for r in recs if not r.valid),
            "accuracy": mean(averages),
        }
    )
    notes = [
        f"{reading_of(recs)} reading; task = accuracy over its probes; each Avg. = mean of its "
        "tasks; Total Avg. = mean of the three Avg.",
    ]
    if missing:
        notes.append(
            f"no {', '.join(missing)} tasks in this run: Total Avg. over the others "
            "(the official score() would raise)"
        )
    return Table(
        OVOBenchAdapter.title,
        ("mode", "task", "n", "invalid", "accuracy"),
        tuple(rows),
        tuple(notes),
    )


def ovobench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["task"]): r["accuracy"] for r in table.rows}


__all__ = ["ovobench_headline", "ovobench_official", "ovobench_paper", "ovobench_table"]
