"""StreamingBench under both scorers, and its tables.

Official: the counter's reading (:mod:`.official`); an SQA reply that is empty is left out,
as ``count.py`` leaves it.  Paper: the reply's leading letter; a proactive question is right
when the model answered within 2 s of the ground truth and its last words hold the expected
output.  Tables (``count.py``, run on each file): accuracy per ``task_type`` and, for the
real-time and omni files, "total" over every counted question of the file; the proactive
file's ``time_accuracy`` and ``answer_accuracy``.  The paper's table adds each category's
"All" and "Overall".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import (
    Scorable,
    ScoredQuery,
    Table,
    _group,
    _records,
    scored_cell,
)
from streamspatial.grading.extract import leading_letter
from streamspatial.grading.metrics import mean
from streamspatial.grading.verdict import Scored, letter_verdict

from . import official
from .reader import PROACTIVE, SQA, StreamingBenchAdapter


def streamingbench_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    if item.task.level == PROACTIVE:
        last = official.streamingbench_poll(text or "")
        if last is None:  # count.py raises on a dialogue without a poll
            return Scored(None, 0.0, False, "streamingbench-proactive")
        _, answer_ok = official.streamingbench_proactive(
            last, float(query.answer), str(item.meta["output"])
        )
        return Scored(last[0], float(answer_ok), True, "streamingbench-proactive")
    first = official.streamingbench_first_char(text)
    if first is None:  # SQA leaves an empty reply out; real/omni's counter would raise on it
        score = None if item.task.level == SQA else 0.0
        return Scored(None, score, False, "streamingbench-count")
    return Scored(first, 1.0 if first == query.answer else 0.0, True, "streamingbench-count")


def streamingbench_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    if item.task.level == PROACTIVE:
        record = _poll_record(text)
        answered = record.get("answered") if record else None
        if not record or answered in (None, False):
            return Scored(None, 0.0, record is not None, "paper")
        last = str(record["dialog_history"][-1]["content"])
        time_ok = abs(float(answered) - float(query.answer)) <= 2
        ok = time_ok and str(item.meta["output"]).lower() in last.lower()
        return Scored(float(answered), float(ok), True, "paper")
    return letter_verdict(leading_letter(text, item.letters), query.answer, "paper")


def _poll_record(text: str | None) -> dict[str, Any] | None:
    try:
        record = json.loads(text or "")
    except ValueError:
        return None
    return record if isinstance(record, dict) and record.get("dialog_history") else None


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


__all__ = [
    "streamingbench_headline",
    "streamingbench_official",
    "streamingbench_official_table",
    "streamingbench_paper",
    "streamingbench_table",
]
