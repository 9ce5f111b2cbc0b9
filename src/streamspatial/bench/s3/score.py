"""S3-Bench's table and headline.  It publishes no scoring code, so both scorers score it by
the paper's rules (:func:`streamspatial.scoring.scorers.paper_rule`: MRA for numeric tasks,
§3.4, the letter for multiple choice) and its official table is the paper's.
"""

from __future__ import annotations

from collections.abc import Iterable

from streamspatial.grading.aggregate import (
    InvalidPolicy,
    Scorable,
    Table,
    _cell,
    _records,
    answer_format,
    per_task,
)

from ..home import Headline
from .reader import S3Adapter


def s3_table(records: Iterable[Scorable], *, invalid: InvalidPolicy = "wrong") -> Table:
    """S3-Bench Tables 2–4: per task, then Num (mean MRA), MC (accuracy) and Overall.

    Records carry MRA as ``score`` for numeric tasks and 1/0 for multiple choice (§3.4).
    Overall pools every query point: Table 2's Overall is not the mean of its 16 task columns
    (GPT-5.2: task mean 44.7 vs. 44.9 reported), consistent with pooling.
    """
    recs = _records(records)
    rows = []
    for task, in_task, cell in per_task(recs, invalid):
        first = in_task[0]
        rows.append(
            {
                "task": task,
                "dimension": first.category or "",
                "format": answer_format(first),
                **cell,
            }
        )
    for label, subset in (
        ("Num", [r for r in recs if answer_format(r) == "Num"]),
        ("MC", [r for r in recs if answer_format(r) == "MC"]),
        ("Overall", recs),
    ):
        shown = "" if label == "Overall" else label
        rows.append({"task": label, "dimension": "", "format": shown, **_cell(subset, invalid)})
    return Table(
        name=S3Adapter.title,
        columns=("task", "dimension", "format", "n", "invalid", "score"),
        rows=tuple(rows),
        notes=(
            "score = MRA for Num tasks, accuracy for MC; Num, MC and Overall pool "
            "their query points",
        ),
    )


def s3_headline(table: Table) -> Headline:
    """Num (mean MRA), MC (accuracy) and Overall."""
    rows = table.rows
    return {str(r["task"]): r["score"] for r in rows if r.get("task") in ("Num", "MC", "Overall")}


__all__ = ["s3_headline", "s3_table"]
