"""VCBench under both scorers, its tables (VCBench, Tables 2–3) and headline.

Official: ``unify_results.py``'s ``int()`` (:mod:`.official`); an answer it cannot read is
invalid and left out of GPA/MoC/UDA. Paper: the generic rule (numbers in words, the GPA of one
point; :func:`streamspatial.scoring.scorers.paper_rule`). Table: a VCBench question is asked at
several query points; its predictions over them form a trajectory, scored per question (GPA,
MoC, UDA) and averaged over the questions of a subcategory; Overall averages over *all
questions* that have the metric (question-weighted).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import Scorable, Table, _group, _natural, _records
from streamspatial.grading.metrics import (
    gaussian_precision_accuracy,
    mean,
    monotonicity_consistency,
    score_prediction,
    update_direction_accuracy,
)
from streamspatial.grading.verdict import Scored

from . import official
from .reader import VCBenchAdapter

# VCBench's three metrics as its paper prints them (VCBench, §3.3).
METRIC_NAMES = {"gpa": "GPA", "moc": "MoC", "uda": "UDA"}


def vcbench_official(item: Item, query: QueryPoint, text: str) -> Scored:
    """unify_results.py ``int(prediction)``; an answer it cannot read is invalid and left out
    of GPA/MoC/UDA (compute_metrics.py would crash on it)."""
    value = official.vcbench_int(text)
    if value is None:
        return Scored(None, None, False, "vcbench-int")
    return Scored(float(value), score_prediction(float(value), query.answer, number_metric="gpa"),
                  True, "vcbench-int")  # fmt: skip


VCBENCH_SUBCATEGORIES: tuple[str, ...] = (
    "O1-Snap", "O1-Delta", "O2-Unique", "O2-Gain",
    "E1-Action", "E1-Transit", "E2-Episode", "E2-Periodic",
)  # fmt: skip
# Which metrics Tables 2–3 report per subcategory: single-query-point subcategories (O1-Delta,
# O2-Gain) have GPA only; O1-Snap may go up and down, so it has no MoC.
VCBENCH_METRICS: dict[str, tuple[str, ...]] = {
    "O1-Snap": ("gpa", "uda"),
    "O1-Delta": ("gpa",),
    "O2-Unique": ("gpa", "moc", "uda"),
    "O2-Gain": ("gpa",),
    "E1-Action": ("gpa", "moc", "uda"),
    "E1-Transit": ("gpa", "moc", "uda"),
    "E2-Episode": ("gpa", "moc", "uda"),
    "E2-Periodic": ("gpa", "moc", "uda"),
}


def vcbench_subcategory(name: str | None) -> str | None:
    """Map spellings like ``o1_snap``, ``O1-Snap`` or ``Snap`` to the paper's name."""
    key = re.sub(r"[^a-z0-9]", "", (name or "").lower())
    for canonical in VCBENCH_SUBCATEGORIES:
        short = canonical.split("-")[1].lower()
        if key in (re.sub(r"[^a-z0-9]", "", canonical.lower()), short):
            return canonical
    return None


@dataclass(frozen=True)
class Trajectory:
    """One VCBench question: its predictions and answers over its query points, in order."""

    item_id: str
    subcategory: str
    preds: tuple[float | None, ...]
    gts: tuple[float, ...]

    def metric(self, name: str) -> float | None:
        if name == "gpa":
            return gaussian_precision_accuracy(self.preds, self.gts)
        if name == "moc":
            return monotonicity_consistency(self.preds)
        if name == "uda":
            return update_direction_accuracy(self.preds, self.gts)
        raise ValueError(f"unknown VCBench metric {name!r}")


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def vcbench_trajectories(records: Iterable[Scorable]) -> list[Trajectory]:
    """Group records into per-question trajectories ordered by query index.

    The subcategory is read from ``subcategory``, then ``category``, then ``task``.  An
    invalid record (or a non-numeric prediction) is a None point.  A record without a numeric
    answer is an input error: GPA cannot be computed without the truth.
    """
    out = []
    for item_id, group in _group(_records(records), lambda r: r.item_id).items():
        group.sort(key=lambda r: r.query_index)
        first = group[0]
        sub = next(
            (
                vcbench_subcategory(x)
                for x in (first.subcategory, first.category, first.task)
                if vcbench_subcategory(x)
            ),
            None,
        )
        gts = []
        for r in group:
            gt = _number(r.answer)
            if gt is None:
                raise InputError(
                    Problem(
                        file="",
                        field="answer",
                        item_id=item_id,
                        location=f"query {r.query_index}",
                        expected=f"expected a numeric answer, got {r.answer!r}",
                    )
                )
            gts.append(gt)
        preds = tuple(_number(r.prediction) if r.valid else None for r in group)
        out.append(Trajectory(item_id, sub or (first.subcategory or first.task), preds, tuple(gts)))
    return out


def vcbench_table(records: Iterable[Scorable]) -> Table:
    """VCBench Tables 2–3: GPA / MoC / UDA per subcategory, Overall, and the invalid rate.

    Each metric is computed per question (eq. 1–3) and averaged over the subcategory's
    questions; Overall averages over every question that has the metric, which reproduces the
    published Overall GPA and MoC from the subcategory rows weighted by Table 1's question
    counts.  Invalid answers are left out of the metrics (see metrics.py) and counted in
    ``invalid_rate`` = invalid query points / query points.  A metric the paper does not
    report for a subcategory is None; unknown subcategories get GPA only.
    """
    trajectories = vcbench_trajectories(records)
    by_sub = _group(trajectories, lambda t: t.subcategory)  # type: ignore[arg-type]
    order = [s for s in VCBENCH_SUBCATEGORIES if s in by_sub]
    order += sorted((s for s in by_sub if s not in VCBENCH_SUBCATEGORIES), key=_natural)
    rows = []
    pooled: dict[str, list[float]] = {"gpa": [], "moc": [], "uda": []}
    total_points = total_invalid = 0
    for sub in order:
        trajs = by_sub[sub]
        metrics = VCBENCH_METRICS.get(sub, ("gpa",))
        points = sum(len(t.preds) for t in trajs)
        invalid = sum(1 for t in trajs for p in t.preds if p is None)
        total_points += points
        total_invalid += invalid
        row: dict[str, Any] = {
            "subcategory": sub,
            "questions": len(trajs),
            "query_points": points,
            "invalid_rate": invalid / points if points else None,
        }
        for name in ("gpa", "moc", "uda"):
            if name not in metrics:
                row[name] = None
                continue
            values = [v for v in (t.metric(name) for t in trajs) if v is not None]
            pooled[name].extend(values)
            row[name] = mean(values)
        rows.append(row)
    overall = {
        "subcategory": "Overall",
        "questions": len(trajectories),
        "query_points": total_points,
        "invalid_rate": total_invalid / total_points if total_points else None,
    }
    overall.update({name: mean(values) for name, values in pooled.items()})
    return Table(
        name=VCBenchAdapter.title,
        columns=("subcategory", "questions", "query_points", "invalid_rate", "gpa", "moc", "uda"),
        rows=(overall, *rows),
        notes=(
            "metrics per question (eq. 1–3), averaged over questions; Overall over all "
            "questions having the metric; invalid answers excluded, see invalid_rate",
        ),
    )


def vcbench_official_table(records: Iterable[Scorable]) -> Table:
    """``compute_metrics.py``: the paper's table; only the answer reader differs, and answers
    it cannot read are left out, with the invalid rate reported."""
    return replace(
        vcbench_table(records),
        notes=(
            "official scorer (buaa-colalab/VCBench compute_metrics.py): GPA/MoC/UDA per "
            "question, averaged per subtype; Overall over all questions having the metric; "
            "answers read with int(); those it cannot read are left out (the script would "
            "crash), see invalid_rate",
        ),
    )


def vcbench_headline(table: Table) -> dict[str, float | None]:
    """Overall GPA / MoC / UDA, named as VCBench prints them."""
    overall = next((r for r in table.rows if r.get("subcategory") == "Overall"), {})
    return {name: overall.get(m) for m, name in METRIC_NAMES.items()}


__all__ = [
    "METRIC_NAMES",
    "VCBENCH_METRICS",
    "VCBENCH_SUBCATEGORIES",
    "Trajectory",
    "vcbench_headline",
    "vcbench_official",
    "vcbench_official_table",
    "vcbench_subcategory",
    "vcbench_table",
    "vcbench_trajectories",
]
