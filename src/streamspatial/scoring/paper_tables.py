"""The papers' results tables: OVO-S-Bench and S3-Bench.

* OVO-S-Bench Table 2: accuracy per main category (1.1 … 4.3); a level's Avg. is the *unweighted*
  mean of its categories; Overall is the unweighted mean of the level averages.
* S3-Bench Tables 2–3: accuracy (or MRA) pooled over query points in every cell, category and
  overall rows included.

A benchmark in its own folder keeps its tables there (``bench/<name>/score.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.bench.s3 import S3Adapter
from streamspatial.grading.aggregate import (
    InvalidPolicy,
    Scorable,
    Table,
    _cell,
    _group,
    _natural,
    _records,
    answer_format,
    per_task,
)
from streamspatial.grading.metrics import mean


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
    for level, in_level in sorted(
        _group(recs, lambda r: r.level).items(), key=lambda kv: _natural(kv[0])
    ):
        cat_scores = []
        for cat, in_cat in sorted(
            _group(in_level, lambda r: getattr(r, by) or r.task).items(),
            key=lambda kv: _natural(kv[0]),
        ):
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
    return Table(
        name=OvosAdapter.title,
        columns=("level", "group", "n", "invalid", "accuracy"),
        rows=tuple(rows),
        notes=(
            f"accuracy per {by} over query points; level Avg. = unweighted mean of its "
            f"{by} rows; Overall = unweighted mean of level averages; invalid answers "
            f"counted {'wrong' if invalid == 'wrong' else 'out'}",
        ),
    )


# --------------------------------------------------------------------------------------------
# S3-Bench


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
