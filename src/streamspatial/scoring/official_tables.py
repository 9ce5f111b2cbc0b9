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
* VSI-Bench ``vsibench_aggregate_results``: mean per question type; the three
  relative-direction difficulties merged as their *sum divided by 3* (a missing difficulty
  counts 0, and the merged row exists even when all three are missing); Overall the mean over
  every row that remains.
* S3-Bench publishes no scoring code: its official table is the paper's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.bench.ucs import UCSAdapter
from streamspatial.bench.vsibench import VSIBenchAdapter
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _group, _natural, _records
from streamspatial.grading.metrics import mean
from streamspatial.scoring.paper_tables import _format, ucs_table, vsibench_merged_row, vsibench_row
from streamspatial.scoring.vcbench_tables import vcbench_table

VSI_DIRECTION_PARTS = (
    "object_rel_direction_easy",
    "object_rel_direction_medium",
    "object_rel_direction_hard",
)


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


def vsibench_official_table(records: Iterable[Scorable]) -> Table:
    """``vsibench_aggregate_results``: per-type means, direction merged as sum/3, Overall the
    mean over the rows left."""
    recs = _records(records)
    rows = []
    output: dict[str, float] = {}
    for qtype, group in sorted(_group(recs, lambda r: r.task).items(), key=lambda kv: kv[0]):
        score = mean(float(r.score or 0.0) for r in group)
        invalid = sum(1 for r in group if not r.valid)
        rows.append(vsibench_row(qtype, _format(group[0]), len(group), invalid, score))
        output[qtype] = score or 0.0
    merged = sum(output.pop(part, 0.0) for part in VSI_DIRECTION_PARTS) / 3.0
    output["object_rel_direction"] = merged
    parts = [r for r in rows if r["question_type"] in VSI_DIRECTION_PARTS]
    rows.append(vsibench_merged_row("object_rel_direction", "MC", parts, merged))
    invalid = sum(1 for r in recs if not r.valid)
    rows.append(vsibench_row("Overall", "", len(recs), invalid, sum(output.values()) / len(output)))
    return Table(
        name=VSIBenchAdapter.title,
        columns=("question_type", "format", "n", "invalid", "score"),
        rows=tuple(rows),
        notes=(
            "official scorer (vision-x-nyu/thinking-in-space vsibench utils.py): first token "
            "of the response; mean per question type; relative direction = (easy + medium + "
            "hard) / 3 with a missing difficulty as 0; Overall = mean over the remaining rows",
        ),
    )


OFFICIAL_TABLES: dict[str, Callable[..., Table]] = {
    "ovos": ovos_official_table,
    "vcbench": vcbench_official_table,
    "ucs": ucs_official_table,
    "vsibench": vsibench_official_table,
}


__all__ = [
    "OFFICIAL_TABLES",
    "ovos_official_table",
    "ucs_official_table",
    "vcbench_official_table",
    "vsibench_official_table",
]
