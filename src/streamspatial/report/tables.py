"""Markdown rendering of the per-paper tables, and the headline numbers of a table.

The numbers come from :mod:`streamspatial.eval.aggregate` unchanged (DESIGN: ``report`` must not
recompute metrics differently from ``eval``); this module only lays them out: fractions print as
percentages with two decimals, as the papers print them, and a missing cell is "–".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from streamspatial.eval.aggregate import Table

# Columns holding fractions in [0, 1] that the papers print as percentages.
# VCBench's three metrics as its paper prints them (VCBench, §3.3).
VCBENCH_METRICS = {"gpa": "GPA", "moc": "MoC", "uda": "UDA"}
PERCENT_COLUMNS = frozenset(
    {"accuracy", "score", "gpa", "moc", "uda", "invalid_rate", "cr", "er"}
    | {"blind", "chance", "vision_gap"}  # the vision–blind gap (report.blind)
)


def fmt_cell(column: str, value: Any) -> str:
    if value is None:
        return "–"
    if column in PERCENT_COLUMNS and isinstance(value, (int, float)):
        return f"{100 * value:.2f}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def markdown(
    columns: Sequence[str], rows: Sequence[dict[str, Any]], align_right: Collection[str] = ()
) -> str:
    """A GitHub-flavoured markdown table; numbers right-aligned."""
    # Right-align numbers, and score columns even when every cell is "–" or pre-formatted.
    numeric = [
        c in PERCENT_COLUMNS
        or c in align_right
        or any(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool) for r in rows)
        for c in columns
    ]
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    body = ["| " + " | ".join(fmt_cell(c, r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def table_markdown(table: Table) -> str:
    out = [f"### {table.name}", "", markdown(table.columns, table.rows)]
    if table.notes:
        out += ["", *[f"*{n}*" for n in table.notes]]
    return "\n".join(out)


def headline(table: Table) -> dict[str, float | None]:
    """The few numbers a leaderboard shows for a table, in the paper's order.

    OVO-S: each level's Avg. and Overall; VCBench: Overall GPA / MoC / UDA; UCS-Bench: each
    category's Overall and the grand Overall; S3-Bench: Num, MC, Overall; VSI-Bench and others:
    Overall of the table's score column.
    """
    rows = table.rows
    name = table.name
    out: dict[str, float | None] = {}
    if name == "OVO-S-Bench":
        for r in rows:
            if r.get("group") in ("Avg.", "All"):  # the paper's level mean, official's pool
                out[str(r["level"])] = r["accuracy"]
            elif r.get("level") == "Overall":
                out["Overall"] = r["accuracy"]
        return out
    if name == "VCBench":
        overall = next((r for r in rows if r.get("subcategory") == "Overall"), {})
        return {name: overall.get(m) for m, name in VCBENCH_METRICS.items()}
    if name == "UCS-Bench":
        for r in rows:
            if r.get("subcategory") == "Overall" or r.get("category") == "Overall":
                out[str(r["category"])] = r["accuracy"]
        return out
    if name == "S3-Bench":
        for r in rows:
            if r.get("task") in ("Num", "MC", "Overall"):
                out[str(r["task"])] = r["score"]
        return out
    key_col = table.columns[0]
    metric = next((c for c in ("score", "accuracy", "gpa") if c in table.columns), None)
    for r in rows:
        if r.get(key_col) == "Overall" and metric is not None:
            out["Overall"] = r.get(metric)
    return out
