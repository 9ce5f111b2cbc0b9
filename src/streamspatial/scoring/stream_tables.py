"""Results tables of OVO-Bench, StreamingBench and VSI-SUPER, under both scorers.

Every aggregate is named as the benchmark's official code prints it, and the per-query
verdicts (:mod:`.stream_rules`) decide what enters it:

* OVO-Bench (``OVOBenchScore.py``): a task's accuracy over its probes; "Backward Avg.",
  "Realtime Avg.", "Forward Avg." the mean of their tasks; "Total Avg." the mean of the three.
* StreamingBench (``count.py``, run on each file): accuracy per ``task_type`` and, for the
  real-time and omni files, "total" over every counted question of the file (an SQA reply
  that is empty is left out); the proactive file's ``time_accuracy`` and
  ``answer_accuracy``.  The paper's table adds each category's "All" and "Overall".
* VSI-SUPER: one "Overall" per task, i.e. per duration (Recall) or split (Count).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.bench.ovobench import MODES, OVOBenchAdapter
from streamspatial.bench.streamingbench import PROACTIVE, StreamingBenchAdapter
from streamspatial.bench.vsisuper import VSISuperAdapter
from streamspatial.grading.aggregate import (
    Scorable,
    ScoredQuery,
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


# --- StreamingBench ------------------------------------------------------------------------


def _on_time(r: ScoredQuery) -> bool:
    """count.py's ``-2 <= last_time - ground_truth_time <= 2`` (the record's reading of the
    last poll's time is its prediction; its answer the ground-truth time)."""
    if not isinstance(r.prediction, int | float) or not isinstance(r.answer, int | float):
        return False
    return -2 <= float(r.prediction) - float(r.answer) <= 2


def _proactive_row(kind: str, task: str, recs: list[ScoredQuery]) -> dict[str, Any]:
    timed = sum(1 for r in recs if _on_time(r))
    return {
        "file": kind,
        "task_type": task,
        "total": len(recs),
        "invalid": sum(1 for r in recs if not r.valid),
        "accuracy": mean(float(r.score or 0.0) for r in recs),
        "time_accuracy": timed / len(recs) if recs else None,
    }


def _mc_row(kind: str, task: str, recs: list[ScoredQuery]) -> dict[str, Any]:
    cell = scored_cell(recs)
    return {
        "file": kind,
        "task_type": task,
        "total": cell["n"],
        "invalid": cell["invalid"],
        "accuracy": cell["score"],
        "time_accuracy": None,
    }


def streamingbench_official_table(records: Iterable[Scorable]) -> Table:
    """``count.py`` run on each file: per task_type, plus real/omni's "total"."""
    recs = _records(records)
    rows = []
    for kind, in_kind in _group(recs, lambda r: r.level or "real").items():
        for task, in_task in _group(in_kind, lambda r: r.task).items():
            row = _proactive_row if kind == PROACTIVE else _mc_row
            rows.append(row(kind, task, in_task))
        if kind not in ("sqa", PROACTIVE):
            rows.append(_mc_row(kind, "total", in_kind))
    return Table(
        StreamingBenchAdapter.title,
        ("file", "task_type", "total", "invalid", "accuracy", "time_accuracy"),
        tuple(rows),
        (
            "official reading (THUNLP-MT/StreamingBench src/data/count.py): first character of "
            "the reply; total = counted questions; an empty SQA reply is left out; proactive "
            "accuracy = answer_accuracy (on time and the expected output in the reply)",
        ),
    )


def streamingbench_table(records: Iterable[Scorable]) -> Table:
    """StreamingBench's results table: each task, each category's All, and Overall, pooled."""
    recs = _records(records)
    rows = []
    for category, in_cat in _group(recs, lambda r: r.category or "").items():
        for task, in_task in _group(in_cat, lambda r: r.task).items():
            cell = scored_cell(in_task)
            rows.append(
                {
                    "category": category,
                    "task_type": task,
                    "total": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
        cell = scored_cell(in_cat)
        rows.append(
            {
                "category": category,
                "task_type": "All",
                "total": cell["n"],
                "invalid": cell["invalid"],
                "accuracy": cell["score"],
            }
        )
    cell = scored_cell(recs)
    rows.append(
        {
            "category": "Overall",
            "task_type": "",
            "total": cell["n"],
            "invalid": cell["invalid"],
            "accuracy": cell["score"],
        }
    )
    return Table(
        StreamingBenchAdapter.title,
        ("category", "task_type", "total", "invalid", "accuracy"),
        tuple(rows),
        ("accuracy pooled over questions in every row; empty replies count wrong",),
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


def streamingbench_headline(table: Table) -> dict[str, float | None]:
    """The official counter's names, one file's ``total`` as ``"<file> total"`` (``real
    total``, ``omni total``) and a task that two files share prefixed with its file, so no
    key stands for two numbers; the paper table's categories and Overall."""
    out: dict[str, float | None] = {}
    files_of: dict[str, set[str]] = {}
    for r in table.rows:
        if "file" in r:
            files_of.setdefault(str(r["task_type"]), set()).add(str(r["file"]))
    for r in table.rows:
        if "file" in r:
            task = str(r["task_type"])
            if task == "total":
                key = f"{r['file']} total"
            else:
                key = task if len(files_of[task]) == 1 else f"{r['file']}: {task}"
            out[key] = r["accuracy"]
            if r.get("time_accuracy") is not None:
                out[f"{key} time_accuracy"] = r["time_accuracy"]
        elif r["task_type"] in ("All", ""):
            out[str(r["category"]) if r["task_type"] == "All" else "Overall"] = r["accuracy"]
    return out


def vsisuper_headline(table: Table) -> dict[str, float | None]:
    return {str(r["split"]): r["score"] for r in table.rows}


__all__ = [
    "ovobench_headline",
    "ovobench_table",
    "streamingbench_headline",
    "streamingbench_official_table",
    "streamingbench_table",
    "vsisuper_headline",
    "vsisuper_table",
]
