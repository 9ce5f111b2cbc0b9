"""Which VCBench items count occurrences that accumulate over time: the items the count
overlay (VCBench §4.3.1, :mod:`streamspatial.analysis.overlay`) draws a running count on.
Only VCBench annotates occurrences, so the choice lives with its reader."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.core.errors import InputError, Problem

from .reader import VCBenchAdapter

# VCBench subcategories whose occurrences are events accumulating over time; O1-Snap's
# "occurrences" are the query moments and O1-Delta / O2-Gain are net changes.
EVENT_SUBCATEGORIES = ("O2-Unique", "E1-Action", "E1-Transit", "E2-Episode", "E2-Periodic")


def overlay_items(items: Iterable[Any]) -> tuple[list[Any], list[str]]:
    """The items the overlay applies to, and one line per item left out and why."""
    kept, skipped = [], []
    for item in items:
        sub = item.task.subcategory
        if item.benchmark != VCBenchAdapter.name:  # occurrence annotations are VCBench's
            raise InputError(
                Problem(file="", field="benchmark", item_id=item.id,
                        expected=f"expected a {VCBenchAdapter.title} item, got {item.benchmark}")
            )  # fmt: skip
        if sub not in EVENT_SUBCATEGORIES:
            skipped.append(f"{item.id}: {sub} has no accumulating occurrences")
            continue
        kept.append(item)
    return kept, skipped


__all__ = ["EVENT_SUBCATEGORIES", "overlay_items"]
