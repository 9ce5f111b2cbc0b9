"""Results tables of VSI-SUPER, under both scorers.

Every aggregate is named as the benchmark's official code prints it, and the per-query
verdicts (:mod:`.stream_rules`) decide what enters it:

* VSI-SUPER: one "Overall" per task, i.e. per duration (Recall) or split (Count).
"""

from __future__ import annotations

from collections.abc import Iterable

from streamspatial.bench.vsisuper import VSISuperAdapter
from streamspatial.grading.aggregate import (
    Scorable,
    Table,
    _group,
    _records,
    reading_of,
)
from streamspatial.grading.metrics import mean

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


def vsisuper_headline(table: Table) -> dict[str, float | None]:
    return {str(r["split"]): r["score"] for r in table.rows}


__all__ = [
    "vsisuper_headline",
    "vsisuper_table",
]
