"""VSI-Bench's scoring: the official rule (``utils.py`` ``vsibench_process_results``), the
paper's table and the official script's (``vsibench_aggregate_results``).

* paper: per question type, the three relative-direction difficulties merged by their mean,
  Overall the unweighted mean over types (its rule is the generic paper rule).
* official: mean per question type; the three relative-direction difficulties merged as their
  *sum divided by 3* (a missing difficulty counts 0, and the merged row exists even when all
  three are missing); Overall the mean over every row that remains.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint
from streamspatial.grading.aggregate import (
    InvalidPolicy,
    Scorable,
    Table,
    _group,
    _records,
    answer_format,
    per_task,
)
from streamspatial.grading.metrics import mean
from streamspatial.grading.verdict import Scored

from .official import vsi_exact_match, vsi_first_token, vsi_mra, vsi_to_float
from .reader import VSIBenchAdapter

VSI_DIRECTION_PARTS = (
    "object_rel_direction_easy",
    "object_rel_direction_medium",
    "object_rel_direction_hard",
)

# --- the rule ------------------------------------------------------------------------------


def vsibench_official(item: Item, query: QueryPoint, text: str) -> Scored:
    """utils.py ``vsibench_process_results``: the first space-separated token, then
    ``exact_match`` (choice) or MRA of ``float(token)`` with 0 as the worst case (numbers)."""
    token = vsi_first_token(text)
    if item.answer_type is AnswerType.CHOICE:
        valid = token.upper() in item.letters if token else False
        return Scored(token or None, vsi_exact_match(token, str(query.answer)), valid,
                      "vsi-utils.py")  # fmt: skip
    value = vsi_to_float(token)
    score = vsi_mra(value, float(query.answer))
    return Scored(value, score, value is not None, "vsi-utils.py")


# --- the paper's table ---------------------------------------------------------------------


VSI_MERGED = {
    "object_rel_direction_easy": "object_rel_direction",
    "object_rel_direction_medium": "object_rel_direction",
    "object_rel_direction_hard": "object_rel_direction",
}


def vsibench_row(
    question_type: str, answer_format: str, n: int, invalid: int, score: float | None
) -> dict[str, Any]:
    """A row of a VSI-Bench table (the paper's and the official script's)."""
    return {
        "question_type": question_type,
        "format": answer_format,
        "n": n,
        "invalid": invalid,
        "score": score,
    }


def vsibench_merged_row(
    question_type: str, answer_format: str, parts: list[dict[str, Any]], score: float | None
) -> dict[str, Any]:
    """The row of a type merged from the rows ``parts`` (relative direction from its three
    difficulties): their query points and invalid answers summed, the merged ``score``."""
    n = sum(r["n"] for r in parts)
    return vsibench_row(question_type, answer_format, n, sum(r["invalid"] for r in parts), score)


# Both tables' layout (the paper's and the official code's), filled by each.
VSIBENCH_TABLE = Table(
    name=VSIBenchAdapter.title,
    columns=("question_type", "format", "n", "invalid", "score"),
    rows=(),
)


def vsibench_table(
    records: Iterable[Scorable],
    *,
    merge: Mapping[str, str] = VSI_MERGED,
    invalid: InvalidPolicy = "wrong",
) -> Table:
    """VSI-Bench: MRA (numeric types) or accuracy (MC types) per question type.

    As in VSI-Bench's own aggregation, the three relative-direction difficulties are scored
    separately and merged into one type by the unweighted mean of their scores; Overall is the
    unweighted mean over the (merged) types.
    """
    recs = _records(records)
    scores: dict[str, float | None] = {}
    rows = []
    for task, in_task, cell in per_task(recs, invalid):
        rows.append({"question_type": task, "format": answer_format(in_task[0]), **cell})
        scores[task] = cell["score"]
    merged: dict[str, list[float | None]] = defaultdict(list)
    for task, score in scores.items():
        merged[merge.get(task, task)].append(score)
    type_scores = {name: mean(values) for name, values in merged.items()}
    for name in sorted(set(merge.values()) & set(merged)):
        parts = [r for r in rows if merge.get(r["question_type"]) == name]
        rows.append(vsibench_merged_row(name, parts[0]["format"], parts, type_scores[name]))
    invalid_answers = sum(r["invalid"] for r in rows[: len(scores)])
    rows.append(vsibench_row("Overall", "", len(recs), invalid_answers, mean(type_scores.values())))
    return VSIBENCH_TABLE.filled(
        rows,
        "Overall = unweighted mean over question types, relative-direction "
        "difficulties merged by their mean",
    )


# --- the official script's table -----------------------------------------------------------


def vsibench_official_table(records: Iterable[Scorable]) -> Table:
    """``vsibench_aggregate_results``: per-type means, direction merged as sum/3, Overall the
    mean over the rows left."""
    recs = _records(records)
    rows = []
    output: dict[str, float] = {}
    for qtype, group in sorted(_group(recs, lambda r: r.task).items(), key=lambda kv: kv[0]):
        score = mean(float(r.score or 0.0) for r in group)
        invalid = sum(1 for r in group if not r.valid)
        rows.append(vsibench_row(qtype, answer_format(group[0]), len(group), invalid, score))
        output[qtype] = score or 0.0
    merged = sum(output.pop(part, 0.0) for part in VSI_DIRECTION_PARTS) / 3.0
    output["object_rel_direction"] = merged
    parts = [r for r in rows if r["question_type"] in VSI_DIRECTION_PARTS]
    rows.append(vsibench_merged_row("object_rel_direction", "MC", parts, merged))
    invalid = sum(1 for r in recs if not r.valid)
    rows.append(vsibench_row("Overall", "", len(recs), invalid, sum(output.values()) / len(output)))
    return VSIBENCH_TABLE.filled(
        rows,
        "official scorer (vision-x-nyu/thinking-in-space vsibench utils.py): first token "
        "of the response; mean per question type; relative direction = (easy + medium + "
        "hard) / 3 with a missing difficulty as 0; Overall = mean over the remaining rows",
    )


__all__ = [
    "VSI_DIRECTION_PARTS",
    "VSI_MERGED",
    "vsibench_merged_row",
    "vsibench_official",
    "vsibench_official_table",
    "vsibench_row",
    "vsibench_table",
]
