"""The record shape every results table reads, the table type, and the tables every
benchmark shares (per source, generic, CR/ER diagnostics).

Each seed paper averages differently, and the difference moves the headline number, so each
paper's table reproduces its paper's arithmetic (``bench/<name>/score.py``; checked against
the published rows, see ``docs/metrics.md``). Tables are plain data: a :class:`Table` of column
names and row dicts with fractions in [0, 1] (None where a paper reports nothing), for the
report package to print as markdown/JSON; :mod:`.tables` picks the one a benchmark names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from typing import Any, Literal

from streamspatial.core.errors import InputError, Problem
from streamspatial.grading.metrics import (
    mean,
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


# What a table is computed from: scored query points, or their dicts (a record as JSON).
Scorable = ScoredQuery | Mapping[str, Any]


@dataclass(frozen=True)
class Table:
    """A results table: ordered columns, one dict per row, and notes on how it was computed."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def filled(self, rows: Iterable[dict[str, Any]], *notes: str) -> Table:
        """This table's name and columns with ``rows`` and ``notes``: a benchmark states its
        layout once (a table without rows) and fills it for each of its tables (the paper's,
        the official script's), so the two cannot drift apart."""
        return replace(self, rows=tuple(rows), notes=notes)

    def row(self, **match: Any) -> dict[str, Any]:
        """The one row whose fields equal ``match`` (tests and renderers look rows up)."""
        found = [r for r in self.rows if all(r.get(k) == v for k, v in match.items())]
        if len(found) != 1:
            raise KeyError(f"expected one row matching {match}, found {len(found)}")
        return found[0]


def _records(records: Iterable[Scorable | Any]) -> list[ScoredQuery]:
    return [r if isinstance(r, ScoredQuery) else ScoredQuery.from_mapping(r) for r in records]


def _natural(key: str | None) -> tuple[Any, ...]:
    parts = re.split(r"(\d+)", key or "")
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def _query_score(r: ScoredQuery, invalid: InvalidPolicy) -> float | None:
    """The score that enters an average; None means "left out of the denominator"."""
    if not r.valid or r.score is None:
        return 0.0 if invalid == "wrong" else None
    return float(r.score)


def _cell(
    records: Sequence[ScoredQuery], invalid: InvalidPolicy, metric: str = "score"
) -> dict[str, Any]:
    """A table cell's columns: the query points, the invalid answers among them and their
    mean score, under the column name ``metric`` (``"accuracy"`` where a paper says so)."""
    return {
        "n": len(records),
        "invalid": sum(1 for r in records if not r.valid or r.score is None),
        metric: mean(_query_score(r, invalid) for r in records),
    }


def _group(records: Iterable[ScoredQuery], key: Callable[[ScoredQuery], Any]) -> dict[Any, list]:
    groups: dict[Any, list[ScoredQuery]] = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return groups


def natural_groups(
    records: Iterable[ScoredQuery], key: Callable[[ScoredQuery], Any]
) -> list[tuple[Any, list[ScoredQuery]]]:
    """The records grouped by ``key``, the groups in natural order (``1.2`` before ``1.10``,
    ``L2`` before ``L10``), as the papers' tables list tasks and levels."""
    groups = _group(records, key)
    return [(k, groups[k]) for k in sorted(groups, key=_natural)]


def per_source_table(records: Iterable[Scorable], *, invalid: InvalidPolicy = "wrong") -> Table:
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


def generic_table(records: Iterable[Scorable], *, invalid: InvalidPolicy = "wrong") -> Table:
    """Score per task and pooled Overall, for benchmarks without a paper layout (generated)."""
    recs = _records(records)
    rows = []
    for task, group in natural_groups(recs, lambda r: r.task):
        cell = _cell(group, invalid)
        rows.append({"task": task, "n": cell["n"], "invalid": cell["invalid"],
                     "score": cell["score"]})  # fmt: skip
    cell = _cell(recs, invalid)
    rows.append({"task": "Overall", "n": cell["n"], "invalid": cell["invalid"],
                 "score": cell["score"]})  # fmt: skip
    return Table(name="generic", columns=("task", "n", "invalid", "score"), rows=tuple(rows),
                 notes=("score pooled over query points",))  # fmt: skip


def diagnostics_table(records: Iterable[Any]) -> Table | None:
    """Mean compression ratio and evidence recall (OVO-S-Bench §4.3.3) per level and Overall.

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


def scored_cell(records: list[ScoredQuery]) -> dict[str, Any]:
    """n, invalid and the mean score of the records that count (score None: left out)."""
    counted = [r for r in records if r.score is not None]
    return {
        "n": len(counted),
        "invalid": sum(1 for r in records if not r.valid),
        "score": mean(float(r.score) for r in counted) if counted else None,
    }


def reading_of(records: list[ScoredQuery]) -> str:
    """Which scorer's verdicts the records hold, as a table's note names it."""
    return "paper" if all(r.rule in (None, "paper") for r in records) else "official"


def per_task(recs: list[ScoredQuery], invalid: InvalidPolicy):
    """(task, its query points, their cell) for every task, in natural order."""
    for task, in_task in natural_groups(recs, lambda r: r.task):
        yield task, in_task, _cell(in_task, invalid)


def answer_format(r: ScoredQuery) -> str:
    """ "Num" for a number answer, "MC" otherwise (the format column of S3's and VSI's tables)."""
    return "Num" if r.answer_type == "number" else "MC"


def pooled_row(records: list[ScoredQuery], **labels: str) -> dict[str, Any]:
    """A row of the official scripts' accuracy tables (OVO-S-Bench ``score.py``, UCS-Bench's
    two scripts): its ``labels`` (the first columns), then the query points, the unreadable
    answers among them and the accuracy pooled over them, an unreadable answer wrong."""
    right = sum(1 for r in records if r.valid and r.score)
    return {
        **labels,
        "n": len(records),
        "invalid": sum(1 for r in records if not r.valid),
        "accuracy": right / len(records) if records else None,
    }
