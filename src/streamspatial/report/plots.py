"""The report's figures as PNG bytes (matplotlib, Agg backend: no display needed).

Each function draws one figure from numbers computed elsewhere and returns the encoded PNG, so
the HTML page can embed it as a data URL and stay one self-contained file.  Accuracy axes are
in percent, as the papers print them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.aggregate import Trajectory

try:
    import matplotlib
except ImportError:  # the figures are an extra: say how to get them, in one line
    raise StreamspatialError(
        "the HTML report needs the report extra (matplotlib): pip install 'streamspatial[report]'"
    ) from None

matplotlib.use("Agg")
import matplotlib.pyplot as plt

DPI = 110


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    if not fig.get_constrained_layout():
        fig.tight_layout()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def _pct(v: float | None) -> float:
    return math.nan if v is None else 100.0 * v


def grouped_bars(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    references: Sequence[str] = (),
    ylabel: str = "score (%)",
) -> bytes:
    """One bar per run in each group (level / task); reference runs hatched."""
    n = max(1, len(series))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(min(11.0, max(6.0, 0.3 * len(groups) * n + 3)), 3.8))
    for k, (label, values) in enumerate(series.items()):
        xs = [i - 0.4 + width * (k + 0.5) for i in range(len(groups))]
        ax.bar(
            xs,
            [_pct(v) for v in values],
            width,
            label=label,
            hatch="//" if label in references else None,
            edgecolor="black" if label in references else None,
            linewidth=0.5,
        )
    ax.set_xticks(range(len(groups)), groups, rotation=20 if len(groups) > 6 else 0)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def heatmap(
    rows: Sequence[str], cols: Sequence[str], values: Sequence[Sequence[float | None]], title: str
) -> bytes:
    """Policy (rows) × model (columns), cells annotated with their percentage."""
    data = [[_pct(v) for v in row] for row in values]
    fig, ax = plt.subplots(
        figsize=(max(4.5, 1.5 * len(cols) + 2.5), max(2.5, 0.6 * len(rows) + 1.5))
    )
    im = ax.imshow(data, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            text = "–" if math.isnan(v) else f"{v:.1f}"
            ax.text(j, i, text, ha="center", va="center", color="white" if v < 60 else "black")
    fig.colorbar(im, ax=ax, label="%")
    ax.set_title(title)
    return _png(fig)


def lines_by_bin(
    series: Mapping[str, Sequence[tuple[str, int, float | None]]],
    bins: Sequence[str],
    *,
    title: str,
    xlabel: str,
) -> bytes:
    """Accuracy per interval bin, one line per run (seed 003 Fig. 6a / Fig. 11)."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for label, points in series.items():
        by = {b: acc for b, _, acc in points}
        ax.plot(range(len(bins)), [_pct(by.get(b)) for b in bins], marker="o", label=label)
    ax.set_xticks(range(len(bins)), bins)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    return _png(fig)


def trajectories(
    trajs: Sequence[Trajectory],
    metrics: Sequence[Mapping[str, Any]],
    times: Sequence[Sequence[float]] | None = None,
) -> bytes:
    """VCBench: each question's predicted counts against the truth over its query times."""
    n = len(trajs)
    cols = min(4, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.5 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.axis("off")
    for k, (ax, traj, m) in enumerate(zip(axes.flat, trajs, metrics, strict=False)):
        xs = list(times[k]) if times else list(range(1, len(traj.gts) + 1))
        ax.plot(xs, traj.gts, "k-o", ms=3, label="truth")
        ax.plot(
            xs,
            [math.nan if p is None else p for p in traj.preds],
            "C1--s",
            ms=3,
            label="prediction",
        )
        parts = [f"{k.upper()} {_fmt(m.get(k))}" for k in ("gpa", "moc", "uda")]
        ax.set_title(f"{traj.item_id} ({traj.subcategory})\n" + " · ".join(parts), fontsize=8)
        ax.set_xlabel("query time (s)" if times else "query point", fontsize=7)
        ax.tick_params(labelsize=7)
    axes.flat[0].legend(fontsize=7)
    return _png(fig)


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def recall_figure(stats: Sequence[Any]) -> bytes:
    """Seed 000 Fig. 5: (a) retained-time density vs t/t_q, (b) ER by level, (c) ER vs
    correctness with Pearson r in the legend."""
    rows = math.ceil(len(stats) / 3)
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(12, 3.6 + 0.22 * rows), layout="constrained")
    for k, s in enumerate(stats):
        if s.relative_times:
            a.hist(s.relative_times, bins=20, range=(0, 1), density=True, histtype="step",
                   color=f"C{k % 10}")  # fmt: skip
    a.axhline(1.0, color="grey", ls=":", label="uniform")
    a.set_xlabel("t / t_q")
    a.set_ylabel("density")
    a.set_title("(a) retained-time density")
    levels = sorted({lv for s in stats for lv in s.er_by_level})
    width = 0.8 / max(1, len(stats))
    for k, s in enumerate(stats):
        b.bar([i - 0.4 + width * (k + 0.5) for i in range(len(levels))],
              [_pct(s.er_by_level.get(lv)) for lv in levels], width,
              color=f"C{k % 10}")  # fmt: skip
    b.set_xticks(range(len(levels)), levels)
    b.set_ylabel("ER (%)")
    b.set_ylim(0, 100)
    b.set_title("(b) evidence recall by level")
    for k, s in enumerate(stats):
        r = "–" if s.pearson_r is None else f"{s.pearson_r:.2f}"
        c.scatter([p[0] for p in s.er_points], [p[1] for p in s.er_points], s=10, alpha=0.6,
                  color=f"C{k % 10}", label=f"{s.label} (r = {r})")  # fmt: skip
    c.set_xlabel("evidence recall")
    c.set_ylabel("correct (score)")
    c.set_title("(c) ER vs correctness")
    a.legend(fontsize=7, loc="upper left")
    fig.legend(*c.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    return _png(fig)


def stacked_shares(
    groups: Sequence[str], labels: Sequence[str], shares: Sequence[Sequence[float]], title: str
) -> bytes:
    """Stacked bars of label shares per group (the taxonomy's per-level distribution)."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    bottom = [0.0] * len(groups)
    for j, label in enumerate(labels):
        vals = [100 * row[j] for row in shares]
        ax.bar(groups, vals, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_ylabel("share of labelled errors (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(fig)


__all__ = [
    "grouped_bars",
    "heatmap",
    "lines_by_bin",
    "recall_figure",
    "stacked_shares",
    "trajectories",
]
