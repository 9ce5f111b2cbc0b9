"""Results tables as the official scoring scripts average, for ``--scorer official``.

The per-query verdicts come from :mod:`streamspatial.scoring.scorers`; these functions only
average them the way each script does, which is not always the papers' way:

* OVO-S-Bench ``score.py`` ``calculate_scores``: records with an error (and no response) are
  skipped; every other query point counts, an unreadable answer as wrong.  Accuracy per
  ``task_subcategory``, per *level* (its "main category" is the subcategory's first digit:
  ``"1.1.1".split(".")[0]``), and Overall, all micro-averaged over query points — where the
  paper's Table 2 takes unweighted means of categories and of levels.
* VCBench ``compute_metrics.py``: the paper's table (GPA/MoC/UDA per question, averaged over
  the questions of a subtype; Overall over every question having the metric); only the answer
  reader differs, and answers it cannot read are left out, with the invalid rate reported.
* UCS-Bench: ``eval_ucsbench.py`` (JSON-array files) pools every query point, an unreadable
  answer wrong, per category, subcategory and overall — the paper table; for JSONL files
  ``evaluate_ucsbench_vlm.py`` counts unreadable answers wrong per dimension but leaves them
  out of its overall accuracy.
* S3-Bench publishes no scoring code: its official table is the paper's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.bench.ucs import UCSAdapter
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _group, _natural, _records
from streamspatial.scoring.paper_tables import ucs_table
from streamspatial.scoring.vcbench_tables import vcbench_table


def _accuracy(records: list[ScoredQuery]) -> float | None:
    if not records:
        return None
    return sum(1 for r in records if r.valid and r.score) / len(records)


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
            rows.append(_row(subs[sub], level=name, group=sub))
        rows.append(_row(in_level, level=name, group="All"))
    rows.append(_row(kept, level="Overall", group=""))
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


def _row(records: list[ScoredQuery], **labels: str) -> dict[str, Any]:
    """A row of the official scripts' accuracy tables: its ``labels`` (the first columns),
    then the query points, the unreadable answers among them and the accuracy."""
    return {
        **labels,
        "n": len(records),
        "invalid": sum(1 for r in records if not r.valid),
        "accuracy": _accuracy(records),
    }


def vcbench_official_table(records: Iterable[Scorable]) -> Table:
    return replace(
        vcbench_table(records),
        notes=(
            "official scorer (buaa-colalab/VCBench compute_metrics.py): GPA/MoC/UDA per "
            "question, averaged per subtype; Overall over all questions having the metric; "
            "answers read with int(); those it cannot read are left out (the script would "
            "crash), see invalid_rate",
        ),
    )


def ucs_official_table(records: Iterable[Scorable]) -> Table:
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
        rows.append(_row(group, category=dim, subcategory="Overall"))
    judged = [r for r in recs if r.valid]
    overall = _row(judged, category="Overall", subcategory="")
    rows.append(overall | {"invalid": len(recs) - len(judged)})
    return Table(
        name=UCSAdapter.title,
        columns=("category", "subcategory", "n", "invalid", "accuracy"),
        rows=tuple(rows),
        notes=(
            "official scorer (cocowy1/UCS-Bench examples/evaluate_ucsbench_vlm.py): per "
            "dimension, unreadable answers count as wrong; Overall leaves them out (n = "
            "answers read)",
        ),
    )


OFFICIAL_TABLES: dict[str, Callable[..., Table]] = {
    "ovos": ovos_official_table,
    "vcbench": vcbench_official_table,
    "ucs": ucs_official_table,
}


__all__ = [
    "OFFICIAL_TABLES",
    "ovos_official_table",
    "ucs_official_table",
    "vcbench_official_table",
]
