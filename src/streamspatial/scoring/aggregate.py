"""Per-paper results tables from scored query-point records.

Each seed paper averages differently, and the difference moves the headline number, so each
table reproduces its paper's arithmetic (checked against the published rows, see
``docs/metrics.md``):

* OVO-S-Bench Table 2: accuracy per main category (1.1 … 4.3); a level's Avg. is the *unweighted*
  mean of its categories; Overall is the unweighted mean of the level averages.
* VCBench Tables 2–3: GPA/MoC/UDA per question, averaged over the questions of a subcategory;
  Overall averages over *all questions* that have the metric (question-weighted).
* UCS-Bench main table and S3-Bench Tables 2–3: accuracy (or MRA) pooled over query points in
  every cell, category and overall rows included.
* VSI-Bench: per question type, the three relative-direction difficulties merged by their
  mean, Overall the unweighted mean over types.

Tables are plain data: a :class:`Table` of column names and row dicts with fractions in
[0, 1] (None where a paper reports nothing), for the report package to print as markdown/JSON.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any, Literal

from streamspatial.core.errors import InputError, Problem
from streamspatial.scoring.metrics import (
    gaussian_precision_accuracy,
    mean,
    monotonicity_consistency,
    update_direction_accuracy,
)

InvalidPolicy = Literal["wrong", "exclude"]


@dataclass(frozen=True)
class ScoredQuery:
    """One scored query point — the record shape every table reads.

    ``score`` is the per-query score (1/0 for choice, MRA for S3/VSI numbers); ``valid`` is
    False when extraction failed.  ``prediction`` and ``answer`` carry the raw values that the
    VCBench trajectory metrics need: a question's records, ordered by ``query_index``, form its
    trajectory.  The task fields mirror :class:`~streamspatial.core.TaskLabels`.
    """

    item_id: str
    query_index: int
    task: str
    level: str | None = None
    category: str | None = None
    subcategory: str | None = None
    answer_type: str = "choice"
    score: float | None = None
    valid: bool = True
    source: str | None = None
    prediction: str | float | None = None
    answer: str | float | None = None
    error: str | None = None  # the model call failed (official OVO-S skips such records)
    rule: str | None = None  # the scorer rule that scored it (scoring.scorers); None: paper

    @classmethod
    def from_mapping(cls, record: Mapping[str, Any] | Any) -> ScoredQuery:
        """Read a plain dict or a results-store record (any dataclass).

        Task labels may be flat or nested under ``"task"`` (a TaskLabels dump).  Aliases of
        the results store are understood: ``extracted`` for ``prediction``, and ``answer`` or
        ``source`` inside ``extra``.
        """
        data = asdict(record) if is_dataclass(record) else dict(record)
        extra = data.get("extra") if isinstance(data.get("extra"), Mapping) else {}
        if data.get("prediction") is None and "extracted" in data:
            data["prediction"] = data["extracted"]
        for key in ("answer", "source"):
            if data.get(key) is None and extra.get(key) is not None:
                data[key] = extra[key]
        task = data.get("task")
        if isinstance(task, Mapping):
            data.update({k: task.get(k) for k in ("level", "category", "subcategory")})
            data["task"] = task.get("task")
        known = {f for f in cls.__dataclass_fields__}
        missing = [k for k in ("item_id", "query_index", "task") if data.get(k) is None]
        if missing:
            raise InputError(
                Problem(
                    file="",
                    field=missing[0],
                    item_id=data.get("item_id"),
                    expected="expected a scored record with item_id, query_index and task",
                )
            )
        kept = {k: v for k, v in data.items() if k in known}
        for key in ("level", "category", "subcategory"):
            if kept.get(key) is not None:
                kept[key] = str(kept[key])
        return cls(**kept)


Record = ScoredQuery | Mapping[str, Any]


@dataclass(frozen=True)
class Table:
    """A results table: ordered columns, one dict per row, and notes on how it was computed."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def row(self, **match: Any) -> dict[str, Any]:
        """The one row whose fields equal ``match`` (tests and renderers look rows up)."""
        found = [r for r in self.rows if all(r.get(k) == v for k, v in match.items())]
        if len(found) != 1:
            raise KeyError(f"expected one row matching {match}, found {len(found)}")
        return found[0]


def _records(records: Iterable[Record | Any]) -> list[ScoredQuery]:
    return [r if isinstance(r, ScoredQuery) else ScoredQuery.from_mapping(r) for r in records]


def _natural(key: str | None) -> tuple[Any, ...]:
    parts = re.split(r"(\d+)", key or "")
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def _query_score(r: ScoredQuery, invalid: InvalidPolicy) -> float | None:
    """The score that enters an average; None means "left out of the denominator"."""
    if not r.valid or r.score is None:
        return 0.0 if invalid == "wrong" else None
    return float(r.score)


def _cell(records: Sequence[ScoredQuery], invalid: InvalidPolicy) -> dict[str, Any]:
    return {
        "n": len(records),
        "invalid": sum(1 for r in records if not r.valid or r.score is None),
        "score": mean(_query_score(r, invalid) for r in records),
    }


def _group(records: Iterable[ScoredQuery], key: Callable[[ScoredQuery], Any]) -> dict[Any, list]:
    groups: dict[Any, list[ScoredQuery]] = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return groups


# --------------------------------------------------------------------------------------------
# OVO-S-Bench


def ovos_table(
    records: Iterable[Record], *, by: str = "category", invalid: InvalidPolicy = "wrong"
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
            cell = _cell(in_cat, invalid)
            cat_scores.append(cell["score"])
            rows.append(
                {
                    "level": level,
                    "group": cat,
                    "n": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
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
        name="OVO-S-Bench",
        columns=("level", "group", "n", "invalid", "accuracy"),
        rows=tuple(rows),
        notes=(
            f"accuracy per {by} over query points; level Avg. = unweighted mean of its "
            f"{by} rows; Overall = unweighted mean of level averages; invalid answers "
            f"counted {'wrong' if invalid == 'wrong' else 'out'}",
        ),
    )


# --------------------------------------------------------------------------------------------
# VCBench

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


def vcbench_trajectories(records: Iterable[Record]) -> list[Trajectory]:
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


def vcbench_table(records: Iterable[Record]) -> Table:
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
        name="VCBench",
        columns=("subcategory", "questions", "query_points", "invalid_rate", "gpa", "moc", "uda"),
        rows=(overall, *rows),
        notes=(
            "metrics per question (eq. 1–3), averaged over questions; Overall over all "
            "questions having the metric; invalid answers excluded, see invalid_rate",
        ),
    )


# --------------------------------------------------------------------------------------------
# UCS-Bench, S3-Bench, VSI-Bench


def ucs_table(records: Iterable[Record], *, invalid: InvalidPolicy = "wrong") -> Table:
    """UCS-Bench main table: accuracy per category and subcategory, pooled over query points.

    Category ``Overall`` rows and the grand Overall pool all their query points (the paper's
    category Overall lies between its subcategories but is not their mean, e.g. DirectMe
    Traj. & Movement 54.1 from 53.0 / 57.2; the grand Overall is not the mean of categories).
    """
    recs = _records(records)
    rows = []
    for cat, in_cat in sorted(
        _group(recs, lambda r: r.category or r.task).items(), key=lambda kv: _natural(kv[0])
    ):
        cell = _cell(in_cat, invalid)
        rows.append(
            {
                "category": cat,
                "subcategory": "Overall",
                "n": cell["n"],
                "invalid": cell["invalid"],
                "accuracy": cell["score"],
            }
        )
        for sub, in_sub in sorted(
            _group(in_cat, lambda r: r.subcategory or r.task).items(),
            key=lambda kv: _natural(kv[0]),
        ):
            cell = _cell(in_sub, invalid)
            rows.append(
                {
                    "category": cat,
                    "subcategory": sub,
                    "n": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
    cell = _cell(recs, invalid)
    rows.append(
        {
            "category": "Overall",
            "subcategory": "",
            "n": cell["n"],
            "invalid": cell["invalid"],
            "accuracy": cell["score"],
        }
    )
    return Table(
        name="UCS-Bench",
        columns=("category", "subcategory", "n", "invalid", "accuracy"),
        rows=tuple(rows),
        notes=("accuracy pooled over query points in every row",),
    )


def _format(r: ScoredQuery) -> str:
    return "Num" if r.answer_type == "number" else "MC"


def s3_table(records: Iterable[Record], *, invalid: InvalidPolicy = "wrong") -> Table:
    """S3-Bench Tables 2–4: per task, then Num (mean MRA), MC (accuracy) and Overall.

    Records carry MRA as ``score`` for numeric tasks and 1/0 for multiple choice (§3.4).
    Overall pools every query point: Table 2's Overall is not the mean of its 16 task columns
    (GPT-5.2: task mean 44.7 vs. 44.9 reported), consistent with pooling.
    """
    recs = _records(records)
    rows = []
    for task, in_task in sorted(
        _group(recs, lambda r: r.task).items(), key=lambda kv: _natural(kv[0])
    ):
        cell = _cell(in_task, invalid)
        rows.append(
            {
                "task": task,
                "dimension": in_task[0].category or "",
                "format": _format(in_task[0]),
                "n": cell["n"],
                "invalid": cell["invalid"],
                "score": cell["score"],
            }
        )
    for label, subset in (
        ("Num", [r for r in recs if _format(r) == "Num"]),
        ("MC", [r for r in recs if _format(r) == "MC"]),
        ("Overall", recs),
    ):
        cell = _cell(subset, invalid)
        rows.append(
            {
                "task": label,
                "dimension": "",
                "format": "" if label == "Overall" else label,
                "n": cell["n"],
                "invalid": cell["invalid"],
                "score": cell["score"],
            }
        )
    return Table(
        name="S3-Bench",
        columns=("task", "dimension", "format", "n", "invalid", "score"),
        rows=tuple(rows),
        notes=(
            "score = MRA for Num tasks, accuracy for MC; Num, MC and Overall pool "
            "their query points",
        ),
    )


VSI_MERGED = {
    "object_rel_direction_easy": "object_rel_direction",
    "object_rel_direction_medium": "object_rel_direction",
    "object_rel_direction_hard": "object_rel_direction",
}


def vsibench_table(
    records: Iterable[Record],
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
    for task, in_task in sorted(
        _group(recs, lambda r: r.task).items(), key=lambda kv: _natural(kv[0])
    ):
        cell = _cell(in_task, invalid)
        rows.append(
            {
                "question_type": task,
                "format": _format(in_task[0]),
                "n": cell["n"],
                "invalid": cell["invalid"],
                "score": cell["score"],
            }
        )
        scores[task] = cell["score"]
    merged: dict[str, list[float | None]] = defaultdict(list)
    for task, score in scores.items():
        merged[merge.get(task, task)].append(score)
    type_scores = {name: mean(values) for name, values in merged.items()}
    for name in sorted(set(merge.values()) & set(merged)):
        parts = [r for r in rows if merge.get(r["question_type"]) == name]
        rows.append(
            {
                "question_type": name,
                "format": parts[0]["format"],
                "n": sum(r["n"] for r in parts),
                "invalid": sum(r["invalid"] for r in parts),
                "score": type_scores[name],
            }
        )
    rows.append(
        {
            "question_type": "Overall",
            "format": "",
            "n": len(recs),
            "invalid": sum(r["invalid"] for r in rows[: len(scores)]),
            "score": mean(type_scores.values()),
        }
    )
    return Table(
        name="VSI-Bench",
        columns=("question_type", "format", "n", "invalid", "score"),
        rows=tuple(rows),
        notes=(
            "Overall = unweighted mean over question types, relative-direction "
            "difficulties merged by their mean",
        ),
    )


def per_source_table(records: Iterable[Record], *, invalid: InvalidPolicy = "wrong") -> Table:
    """Accuracy per source dataset (OVO-S Fig. 12, UCS per-source analyses), pooled."""
    recs = _records(records)
    rows = []
    for source, group in sorted(_group(recs, lambda r: r.source or "unknown").items()):
        cell = _cell(group, invalid)
        rows.append(
            {"source": source, "n": cell["n"], "invalid": cell["invalid"], "score": cell["score"]}
        )
    return Table(
        name="per-source",
        columns=("source", "n", "invalid", "score"),
        rows=tuple(rows),
        notes=("score pooled over query points",),
    )


def generic_table(records: Iterable[Record], *, invalid: InvalidPolicy = "wrong") -> Table:
    """Score per task and pooled Overall, for benchmarks without a paper layout (generated)."""
    recs = _records(records)
    rows = []
    for task, group in sorted(_group(recs, lambda r: r.task).items(),
                              key=lambda kv: _natural(kv[0])):  # fmt: skip
        cell = _cell(group, invalid)
        rows.append({"task": task, "n": cell["n"], "invalid": cell["invalid"],
                     "score": cell["score"]})  # fmt: skip
    cell = _cell(recs, invalid)
    rows.append({"task": "Overall", "n": cell["n"], "invalid": cell["invalid"],
                 "score": cell["score"]})  # fmt: skip
    return Table(name="generic", columns=("task", "n", "invalid", "score"), rows=tuple(rows),
                 notes=("score pooled over query points",))  # fmt: skip


def diagnostics_table(records: Iterable[Any]) -> Table | None:
    """Mean compression ratio and evidence recall (seed 000 §4.3.3) per level and Overall.

    Reads ``diagnostics`` of results-store records (or mappings).  A level is the task's
    ``level`` where the benchmark has levels, else its category, else its task.  ER averages
    over the query points with annotated evidence only (``n_er``).  None when no record holds
    a compression ratio (runs made before diagnostics were recorded).
    """
    rows_in: list[tuple[str, float, float | None]] = []
    for rec in records:
        data = asdict(rec) if is_dataclass(rec) else dict(rec)
        diag = data.get("diagnostics") or {}
        cr = diag.get("compression_ratio")
        if not isinstance(cr, (int, float)) or data.get("error"):
            continue
        task = data.get("task")
        labels = task if isinstance(task, Mapping) else data
        key = next(
            (str(labels[k]) for k in ("level", "category", "task") if labels.get(k) is not None),
            "unknown",
        )
        er = diag.get("evidence_recall")
        rows_in.append((key, float(cr), float(er) if isinstance(er, (int, float)) else None))
    if not rows_in:
        return None

    def row(level: str, group: list[tuple[str, float, float | None]]) -> dict[str, Any]:
        ers = [er for _, _, er in group if er is not None]
        return {
            "level": level,
            "n": len(group),
            "cr": mean(cr for _, cr, _ in group),
            "er": mean(ers),
            "n_er": len(ers),
        }

    groups: dict[str, list[tuple[str, float, float | None]]] = defaultdict(list)
    for r in rows_in:
        groups[r[0]].append(r)
    rows = [row(k, groups[k]) for k in sorted(groups, key=_natural)]
    rows.append(row("Overall", rows_in))
    return Table(
        name="diagnostics",
        columns=("level", "n", "cr", "er", "n_er"),
        rows=tuple(rows),
        notes=(
            "cr: share of the prefix's 1-s bins that reached the model (frames or memory); "
            "er: share of annotated evidence bins that did, over the n_er query points with "
            "evidence; both averaged over query points",
        ),
    )


TABLES: dict[str, Callable[..., Table]] = {
    "generic": generic_table,
    "ovos": ovos_table,
    "vcbench": vcbench_table,
    "ucs": ucs_table,
    "s3": s3_table,
    "vsibench": vsibench_table,
}


def paper_table(table: str, records: Iterable[Record]) -> Table:
    """The table a benchmark's :class:`~streamspatial.bench.base.ScoringSpec` names."""
    if table not in TABLES:
        raise InputError(
            f"unknown results table {table!r}; expected one of {', '.join(sorted(TABLES))}"
        )
    return TABLES[table](records)
