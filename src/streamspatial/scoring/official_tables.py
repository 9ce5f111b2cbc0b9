"""Results tables as the official scoring scripts average, for ``--scorer official``.

The per-query verdicts come from :mod:`streamspatial.scoring.scorers`; these functions only
average them the way each script does, which is not always the papers' way:

* OVO-S-Bench ``score.py`` ``calculate_scores``: records with an error (and no response) are
  skipped; every other query point counts, an unreadable answer as wrong.  Accuracy per
  ``task_subcategory``, per *level* (its "main category" is the subcategory's first digit:
  ``"1.1.1".split(".")[0]``), and Overall, all micro-averaged over query points — where the
  paper's Table 2 takes unweighted means of categories and of levels.
* S3-Bench publishes no scoring code: its official table is the paper's.

A benchmark in its own folder brings its official table with it (``bench/<name>/score.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.grading.aggregate import (
    Scorable,
    ScoredQuery,
    Table,
    _group,
    _natural,
    _records,
    pooled_row,
)


def _main_category(r: ScoredQuery) -> str:
    """score.py: ``task_sub.split(".")[0] if "." in task_sub else "unknown"``."""
    sub = r.subcategory or ""
    return sub.split(".")[0] if "." in sub else "unknown"


def ovos_official_table(records: Iterable[Scorable]) -> Table:
    """``score.py``: accuracy per subcategory, per level digit and overall, micro-averaged."""
    recs = _records(records)
    kept = [r for r in recs if r.error is None]
    skipped = len(recs) - len(kept)
    skip_note = f"; {skipped} query point(s) whose model call failed are skipped"
    rows: list[dict[str, Any]] = []
    levels = _group(kept, _main_category)
    for level in sorted(levels, key=_natural):
        in_level = levels[level]
        name = f"L{level}" if level != "unknown" else level
        subs = _group(in_level, lambda r: r.subcategory or "unknown")
        for sub in sorted(subs, key=_natural):
            rows.append(pooled_row(subs[sub], level=name, group=sub))
        rows.append(pooled_row(in_level, level=name, group="All"))
    rows.append(pooled_row(kept, level="Overall", group=""))
    return Table(
        name=OvosAdapter.title,
        columns=("level", "group", "n", "invalid", "accuracy"),
        rows=tuple(rows),
        notes=(
            "official scorer (InternLM/OVO-S-Bench score.py): accuracy per task subcategory, "
            "per level (All) and Overall, each micro-averaged over query points; letters A–E "
            "only; unreadable answers count as wrong" + (skip_note if skipped else ""),
        ),
    )


OFFICIAL_TABLES: dict[str, Callable[..., Table]] = {
    "ovos": ovos_official_table,
}


__all__ = [
    "OFFICIAL_TABLES",
    "ovos_official_table",
]
