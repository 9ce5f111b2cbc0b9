"""UCS-Bench under both scorers, its table and headline.

Official: the reader of the script that reads the item's released shape (:mod:`.official`):
``eval_ucsbench.py`` for the JSON-array files, ``evaluate_ucsbench_vlm.py`` for JSONL.  Paper:
the generic rule (:func:`streamspatial.scoring.scorers.paper_rule`).  Open-ended direction
answers are scored by both by the set of direction classes named (its official code has no
rule for them; see ``docs/reproducing.md``).  Table: the paper's main table, accuracy pooled
over query points in every cell; the JSONL script leaves unreadable answers out of its
overall accuracy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import (
    InvalidPolicy,
    Scorable,
    Table,
    _cell,
    _group,
    _records,
    natural_groups,
    pooled_row,
)
from streamspatial.grading.verdict import Scored, letter_verdict

from . import official
from .reader import SHAPE, SHAPE_JSONL, UCSAdapter


def ucs_official(item: Item, query: QueryPoint, text: str) -> Scored:
    """eval_ucsbench.py for the JSON-array files, evaluate_ucsbench_vlm.py for JSONL; a reply
    neither reads ("" or None) is wrong."""
    if item.meta.get(SHAPE) == SHAPE_JSONL:
        return letter_verdict(official.ucs_jsonl_letter(text) or None, query.answer, "ucs-jsonl")
    return letter_verdict(official.ucs_array_letter(text) or None, query.answer, "ucs-array")


# Both tables' layout (the paper's and the official code's), filled by each.
UCS_TABLE = Table(
    name=UCSAdapter.title, columns=("category", "subcategory", "n", "invalid", "accuracy"), rows=()
)


def ucs_table(records: Iterable[Scorable], *, invalid: InvalidPolicy = "wrong") -> Table:
    """UCS-Bench main table: accuracy per category and subcategory, pooled over query points.

    Category ``Overall`` rows and the grand Overall pool all their query points (the paper's
    category Overall lies between its subcategories but is not their mean, e.g. DirectMe
    Traj. & Movement 54.1 from 53.0 / 57.2; the grand Overall is not the mean of categories).
    """
    recs = _records(records)
    rows = []
    for cat, in_cat in natural_groups(recs, lambda r: r.category or r.task):
        rows.append(
            {"category": cat, "subcategory": "Overall", **_cell(in_cat, invalid, "accuracy")}
        )
        for sub, in_sub in natural_groups(in_cat, lambda r: r.subcategory or r.task):
            rows.append({"category": cat, "subcategory": sub, **_cell(in_sub, invalid, "accuracy")})
    rows.append({"category": "Overall", "subcategory": "", **_cell(recs, invalid, "accuracy")})
    return UCS_TABLE.filled(rows, "accuracy pooled over query points in every row")


def ucs_official_table(records: Iterable[Scorable]) -> Table:
    """``eval_ucsbench.py`` (JSON-array files): the paper table.  ``evaluate_ucsbench_vlm.py``
    (JSONL): per dimension, unreadable answers wrong; Overall over the answers read."""
    recs = _records(records)
    if not any(r.rule == "ucs-jsonl" for r in recs):
        return replace(
            ucs_table(recs),
            notes=(
                "official scorer (cocowy1/UCS-Bench directme/eval/eval_ucsbench.py): accuracy "
                "pooled over query points per category, subcategory and overall; unreadable "
                "answers count as wrong; open-ended items scored by direction classes",
            ),
        )
    rows = []
    for dim, group in sorted(_group(recs, lambda r: r.category or "unknown").items()):
        rows.append(pooled_row(group, category=dim, subcategory="Overall"))
    judged = [r for r in recs if r.valid]
    overall = pooled_row(judged, category="Overall", subcategory="")
    rows.append(overall | {"invalid": len(recs) - len(judged)})
    return UCS_TABLE.filled(
        rows,
        "official scorer (cocowy1/UCS-Bench examples/evaluate_ucsbench_vlm.py): per "
        "dimension, unreadable answers count as wrong; Overall leaves them out (n = "
        "answers read)",
    )


def ucs_headline(table: Table) -> dict[str, float | None]:
    """Each category's Overall and the grand Overall."""
    out: dict[str, float | None] = {}
    for r in table.rows:
        if r.get("subcategory") == "Overall" or r.get("category") == "Overall":
            out[str(r["category"])] = r["accuracy"]
    return out


__all__ = ["ucs_headline", "ucs_official", "ucs_official_table", "ucs_table"]
