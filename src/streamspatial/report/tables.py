"""Markdown rendering of the per-paper tables.

The numbers come from :mod:`streamspatial.scoring` unchanged (``report`` never recomputes a
metric its own way: ``docs/architecture.md``), the headline numbers included
(:func:`streamspatial.scoring.tables.headline`); this module only lays them out: fractions
print as percentages with two decimals, as the papers print them, and a missing cell is "–".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from streamspatial.bench.vcbench.score import METRIC_NAMES as VCBENCH_METRICS
from streamspatial.grading.aggregate import Table
from streamspatial.scoring.tables import headline

# Columns holding fractions in [0, 1] that the papers print as percentages.
PERCENT_COLUMNS = frozenset(
    {"accuracy", "score", "gpa", "moc", "uda", "invalid_rate", "cr", "er", "time_accuracy"}
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


__all__ = ["VCBENCH_METRICS", "fmt_cell", "headline", "markdown", "table_markdown"]
