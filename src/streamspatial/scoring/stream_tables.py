"""Results tables of OVO-Bench and VSI-SUPER, under both scorers.

Every aggregate is named as the benchmark's official code prints it, and the per-query
verdicts (:mod:`.stream_rules`) decide what enters it:

* OVO-Bench (``OVOBenchScore.py``): a task's accuracy over its probes; "Backward Avg.",
  "Realtime Avg.", "Forward Avg." the mean of their tasks; "Total Avg." the mean of the three.
* VSI-SUPER: one "Overall" per task, i.e. per duration (Recall) or split (Count).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.bench.ovobench import MODES, OVOBenchAdapter
from streamspatial.bench.vsisuper import VSISuperAdapter
from streamspatial.grading.aggregate import (
    Scorable,
    Table,
    _group,
    _records,
    reading_of,
    scored_cell,
)
from streamspatial.grading.metrics import mean

# --- OVO-Bench -----------------------------------------------------------------------------


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


# --- VSI-SUPER -----------------------------------------------------------------------------


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


# --- headlines -----------------------------------------------------------------------------


def ovobench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["task"]): r["accuracy"] for r in table.rows}


def vsisuper_headline(table: Table) -> dict[str, float | None]:
    return {str(r["split"]): r["score"] for r in table.rows}


__all__ = [
    "ovobench_headline",
    "ovobench_table",
    "vsisuper_headline",
    "vsisuper_table",
]
