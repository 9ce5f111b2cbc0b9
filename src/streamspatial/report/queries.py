"""Query-level analyses of the papers: accuracy against time, length and retained evidence.

Each analysis joins a run's records with the benchmark's annotations (evidence intervals live
in the benchmark file, not in ``predictions.jsonl``) and returns plain numbers for the plots:

* accuracy vs question–evidence interval and vs query time (UCS-Bench Fig. 6a, App. E.1.2),
  in the paper's bins (0–30 s, 30 s–1 min, 1–5, 5–15, 15–30, > 30 min);
* Spearman ρ of query-level mean accuracy vs prefix length and evidence span, per level and
  level-controlled (OVO-S-Bench Table 9);
* evidence recall vs correctness with Pearson r, and the retained-time density against t/t_q
  (OVO-S-Bench Fig. 5), from the ER/CR that memory agents record in ``diagnostics``.

A query's score is the one stored in its record, with the benchmark's invalid rule applied the
way :mod:`streamspatial.grading.aggregate` applies it (``wrong``: 0; ``exclude``: left out).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.results import Record, iter_records
from streamspatial.grading.metrics import mean
from streamspatial.report.run_report import RunReport

# UCS-Bench App. E.1.2 / Fig. 11 bins, in seconds (upper bounds; the last is open).
INTERVAL_BINS: tuple[tuple[str, float], ...] = (
    ("0–30 s", 30.0),
    ("30 s–1 min", 60.0),
    ("1–5 min", 300.0),
    ("5–15 min", 900.0),
    ("15–30 min", 1800.0),
    ("> 30 min", math.inf),
)


@dataclass(frozen=True)
class QueryRow:
    """One scored query point of one run, with its annotations."""

    item_id: str
    query_index: int
    t_q: float
    level: str | None
    score: float | None
    evidence: tuple[tuple[float, float], ...]
    er: float | None
    cr: float | None
    frame_times: tuple[float, ...]
    source: str | None = None

    @property
    def evidence_gap(self) -> float | None:
        """Question–evidence interval: t_q minus the end of the last evidence interval."""
        ends = [e for _, e in self.evidence]
        return self.t_q - max(ends) if ends else None

    @property
    def evidence_span(self) -> float | None:
        """Evidence-span duration: first start to last end (OVO-S-Bench A.5)."""
        if not self.evidence:
            return None
        return max(e for _, e in self.evidence) - min(s for s, _ in self.evidence)


@dataclass
class RunQueries:
    """A run's query rows, or why there are none with annotations."""

    label: str
    rows: list[QueryRow] = field(default_factory=list)
    annotations: bool = False
    why_no_annotations: str | None = None


def _benchmark_queries(rep: RunReport) -> tuple[dict[tuple[str, int], Any] | None, str | None]:
    cfg = rep.meta.get("config", {})
    data = cfg.get("data")
    if not data:
        return None, "run.json names no benchmark file"
    try:
        from streamspatial.bench.registry import load_benchmark

        _, items = load_benchmark(Path(data), cfg.get("format", "auto"), videos=None)
    except (StreamspatialError, OSError) as exc:
        return None, f"benchmark file {data} could not be read ({exc})"
    return {(it.id, q.index): q for it in items for q in it.queries}, None


def _score(rec: Record, invalid: str) -> float | None:
    if not rec.valid or rec.score is None:
        return 0.0 if invalid == "wrong" else None
    return float(rec.score)


def _diag(rec: Record, key: str) -> float | None:
    for source in (rec.diagnostics or {}, rec.extra or {}):
        value = source.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def run_queries(rep: RunReport, label: str | None = None) -> RunQueries:
    """Join a run's records with its benchmark's query points (evidence intervals)."""
    invalid = str((rep.meta.get("benchmark") or {}).get("invalid", "wrong"))
    queries, why = _benchmark_queries(rep)
    out = RunQueries(
        label=label or rep.label, annotations=queries is not None, why_no_annotations=why
    )
    for rec in iter_records(rep.run_dir):
        if rec.error:
            continue
        q = queries.get((rec.item_id, rec.query_index)) if queries else None
        out.rows.append(
            QueryRow(
                item_id=rec.item_id,
                query_index=rec.query_index,
                t_q=float(rec.t_q),
                level=None if rec.task.get("level") is None else str(rec.task.get("level")),
                score=_score(rec, invalid),
                evidence=tuple(tuple(e) for e in q.evidence) if q is not None else (),
                er=_diag(rec, "evidence_recall"),
                cr=_diag(rec, "compression_ratio"),
                frame_times=tuple(float(t) for t in rec.frame_times),
                source=rec.source,
            )
        )
    return out


def _bin(seconds: float) -> str:
    return next(label for label, upper in INTERVAL_BINS if seconds < upper)


def accuracy_by_interval(
    rows: Sequence[QueryRow], value: str
) -> list[tuple[str, int, float | None]]:
    """(bin, n, mean score) for ``value`` = ``"gap"`` (question–evidence) or ``"time"`` (t_q).

    Bins holding no query are left out; queries without evidence have no gap.
    """
    groups: dict[str, list[float | None]] = defaultdict(list)
    for r in rows:
        x = r.evidence_gap if value == "gap" else r.t_q
        if x is None:
            continue
        groups[_bin(max(0.0, x))].append(r.score)
    return [
        (label, len(groups[label]), mean(groups[label]))
        for label, _ in INTERVAL_BINS
        if label in groups
    ]


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank (scipy's ``rankdata``, without the
    seconds-long scipy.stats import)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman ρ (Pearson on average ranks); None below 3 points or for a constant input."""
    return _pearson(_ranks(xs), _ranks(ys)) if len(xs) >= 3 else None


def level_controlled_spearman(points: Sequence[tuple[Any, float, float]]) -> float | None:
    """Partial Spearman ρ controlling a grouping (level, or level and source): ranks of both
    variables are centred within each group before they are correlated."""
    if len(points) < 3:
        return None
    rx = _ranks([p[1] for p in points])
    ry = _ranks([p[2] for p in points])
    by_level: dict[Any, list[int]] = defaultdict(list)
    for i, p in enumerate(points):
        by_level[p[0]].append(i)
    cx, cy = list(rx), list(ry)
    for idx in by_level.values():
        mx = sum(rx[i] for i in idx) / len(idx)
        my = sum(ry[i] for i in idx) / len(idx)
        for i in idx:
            cx[i], cy[i] = rx[i] - mx, ry[i] - my
    return _pearson(cx, cy)


@dataclass(frozen=True)
class LengthRow:
    scope: str
    evidence_rho: float | None
    evidence_n: int
    prefix_rho: float | None
    prefix_n: int


def length_vs_accuracy(runs: Sequence[RunQueries]) -> list[LengthRow]:
    """OVO-S-Bench Table 9: ρ between query-level mean accuracy (over the runs) and length."""
    scores: dict[tuple[str, int], list[float | None]] = defaultdict(list)
    first: dict[tuple[str, int], QueryRow] = {}
    for run in runs:
        for r in run.rows:
            scores[(r.item_id, r.query_index)].append(r.score)
            first.setdefault((r.item_id, r.query_index), r)
    points = []
    for key, values in scores.items():
        acc = mean(values)
        if acc is not None:
            points.append((first[key], acc))

    def row(
        scope: str, chosen: list[tuple[QueryRow, float]], group: Callable[[QueryRow], Any] | None
    ) -> LengthRow:
        """ρ over ``chosen``; with ``group``, ranks are centred within each group first."""
        key = group or (lambda q: None)
        ev = [(key(q), q.evidence_span, a) for q, a in chosen if q.evidence_span is not None]
        pre = [(key(q), q.t_q, a) for q, a in chosen]
        rho = level_controlled_spearman if group else (
            lambda pts: spearman([p[1] for p in pts], [p[2] for p in pts])
        )  # fmt: skip
        return LengthRow(scope, rho(ev), len(ev), rho(pre), len(pre))

    from streamspatial.grading.aggregate import _natural

    levels = sorted({q.level for q, _ in points if q.level is not None}, key=_natural)
    out = [row(f"L{lv}" if lv.isdigit() else lv, [p for p in points if p[0].level == lv], None)
           for lv in levels]  # fmt: skip
    if not levels:
        return [row("All", points, None)]
    out.append(row("Level-controlled", points, lambda q: q.level))
    if len({q.source for q, _ in points}) > 1:
        out.append(row("Level+source-controlled", points, lambda q: (q.level, q.source)))
    return out


@dataclass(frozen=True)
class RecallStats:
    """OVO-S-Bench Fig. 5 for one run: ER vs correctness, ER by level, retained-time density."""

    label: str
    n: int
    pearson_r: float | None
    mean_er: float | None
    mean_cr: float | None
    er_by_level: dict[str, float | None]
    er_points: tuple[tuple[float, float], ...]
    relative_times: tuple[float, ...]


def recall_stats(run: RunQueries) -> RecallStats | None:
    """None when no record carries evidence recall (plain frame policies do not)."""
    with_er = [r for r in run.rows if r.er is not None and r.score is not None]
    if not with_er:
        return None
    by_level: dict[str, list[float | None]] = defaultdict(list)
    for r in with_er:
        by_level[r.level or "all"].append(r.er)
    rel = tuple(t / r.t_q for r in with_er if r.t_q > 0 for t in r.frame_times if t <= r.t_q)
    return RecallStats(
        label=run.label,
        n=len(with_er),
        pearson_r=_pearson([r.er for r in with_er], [r.score for r in with_er]),  # type: ignore[misc]
        mean_er=mean(r.er for r in with_er),
        mean_cr=mean(r.cr for r in with_er),
        er_by_level={k: mean(v) for k, v in sorted(by_level.items())},
        er_points=tuple((r.er, r.score) for r in with_er),  # type: ignore[misc]
        relative_times=rel,
    )


__all__ = [
    "INTERVAL_BINS",
    "LengthRow",
    "QueryRow",
    "RecallStats",
    "RunQueries",
    "accuracy_by_interval",
    "length_vs_accuracy",
    "level_controlled_spearman",
    "recall_stats",
    "run_queries",
    "spearman",
]
