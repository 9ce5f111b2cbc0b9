"""OVO-S-Bench under both scorers, its tables and headline.

Official: ``score.py``'s ``check_answer``, the letter :mod:`.official` reads (A–E) against the
answer, "" wrong; its averaging micro-averages per subcategory, per level digit and overall,
skipping failed calls.  Paper: the generic rule
(:func:`streamspatial.scoring.scorers.paper_rule`, letters up to G) and Table 2, whose level
Avg. and Overall are unweighted means of categories and of levels.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import (
    InvalidPolicy,
    Scorable,
    ScoredQuery,
    Table,
    _cell,
    _records,
    natural_groups,
    pooled_row,
)
from streamspatial.grading.metrics import mean
from streamspatial.grading.verdict import Scored, letter_verdict

from ..home import Headline
from . import official
from .reader import OvosAdapter


def ovos_official(item: Item, query: QueryPoint, text: str) -> Scored:
    """score.py: ``check_answer`` — the extracted letter (A–E) equals the answer; "" is wrong."""
    return letter_verdict(official.ovos_letter(text) or None, query.answer, "ovos-score.py")


# Both tables' layout (the paper's and the official code's), filled by each.
OVOS_TABLE = Table(
    name=OvosAdapter.title, columns=("level", "group", "n", "invalid", "accuracy"), rows=()
)


def ovos_table(
    records: Iterable[Scorable], *, by: str = "category", invalid: InvalidPolicy = "wrong"
) -> Table:
    """OVO-S-Bench Table 2 for one run.

    Rows: one per main category (``by="category"``, the 1.1 … 4.3 columns of Table 2; pass
    ``"subcategory"`` for 1.1.1-level detail), then the level's ``Avg.`` — the unweighted mean
    of its categories, as Table 2's Avg. columns are — and finally ``Overall``, the unweighted
    mean of the four level averages (Random: (29.81 + 35.10 + 33.33 + 27.08) / 4 = 31.33).
    Unparseable answers count as wrong and stay in every denominator (G.7).
    """
    recs = _records(records)
    rows: list[dict[str, Any]] = []
    level_means: list[float] = []
    for level, in_level in natural_groups(recs, lambda r: r.level):
        cat_scores = []
        for cat, in_cat in natural_groups(in_level, lambda r: getattr(r, by) or r.task):
            cell = _cell(in_cat, invalid, "accuracy")
            cat_scores.append(cell["accuracy"])
            rows.append({"level": level, "group": cat, **cell})
        level_mean = mean(cat_scores)
        if level_mean is not None:
            level_means.append(level_mean)
        rows.append(
            {
                "level": level,
                "group": "Avg.",
                "n": len(in_level),
                "invalid": sum(r["invalid"] for r in rows if r["level"] == level),
                "accuracy": level_mean,
            }
        )
    rows.append(
        {
            "level": "Overall",
            "group": "",
            "n": len(recs),
            "invalid": sum(1 for r in recs if not r.valid or r.score is None),
            "accuracy": mean(level_means),
        }
    )
    return OVOS_TABLE.filled(
        rows,
        f"accuracy per {by} over query points; level Avg. = unweighted mean of its "
        f"{by} rows; Overall = unweighted mean of level averages; invalid answers "
        f"counted {'wrong' if invalid == 'wrong' else 'out'}",
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
    for level, in_level in natural_groups(kept, _main_category):
        name = f"L{level}" if level != "unknown" else level
        for sub, in_sub in natural_groups(in_level, lambda r: r.subcategory or "unknown"):
            rows.append(pooled_row(in_sub, level=name, group=sub))
        rows.append(pooled_row(in_level, level=name, group="All"))
    rows.append(pooled_row(kept, level="Overall", group=""))
    return OVOS_TABLE.filled(
        rows,
        "official scorer (InternLM/OVO-S-Bench score.py): accuracy per task subcategory, "
        "per level (All) and Overall, each micro-averaged over query points; letters A–E "
        "only; unreadable answers count as wrong" + (skip_note if skipped else ""),
    )


def ovos_headline(table: Table) -> Headline:
    """Each level's Avg. (the paper's level mean; the official scorer's pooled All), Overall."""
    out: Headline = {}
    for r in table.rows:
        if r.get("group") in ("Avg.", "All"):
            out[str(r["level"])] = r["accuracy"]
        elif r.get("level") == "Overall":
            out["Overall"] = r["accuracy"]
    return out


__all__ = ["ovos_headline", "ovos_official", "ovos_official_table", "ovos_table"]
