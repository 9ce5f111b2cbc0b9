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

from streamspatial.bench.vcbench.score import Trajectory
from streamspatial.core.errors import StreamspatialError
from streamspatial.report.tables import VCBENCH_METRICS

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
    fig, ax = plt.subplots(
        figsize=(min(11.0, max(6.0, 0.3 * len(groups) * n + 3)), 3.4 + _legend_height(series)),
        layout="constrained",
    )
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
    _legend_below(fig, ax)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def _legend_height(labels: Sequence[str]) -> float:
    """Inches a legend of ``labels`` below the axes takes (one or two columns)."""
    return 0.2 * math.ceil(len(labels) / _legend_columns(labels)) + 0.3


def _legend_columns(labels: Sequence[str]) -> int:
    return 2 if len(labels) > 3 and max(map(len, labels)) <= 45 else 1


def _legend_below(fig: Any, ax: Any) -> None:
    """The legend under the plot, full labels, never over the bars or the axis labels."""
    handles, labels = ax.get_legend_handles_labels()
    if labels:
        fig.legend(handles, labels, loc="outside lower center", fontsize=8,
                   ncol=_legend_columns(labels), frameon=False)  # fmt: skip


def heatmap(
    rows: Sequence[str], cols: Sequence[str], values: Sequence[Sequence[float | None]], title: str
) -> bytes:
    """Policy (rows) × model (columns), cells annotated with their percentage."""
    data = [[_pct(v) for v in row] for row in values]
    longest_row = max((len(r) for r in rows), default=0)
    width = max(6.0, 1.5 * len(cols) + 0.08 * longest_row + 2.0)
    fig, ax = plt.subplots(figsize=(width, max(2.5, 0.6 * len(rows) + 1.8)), layout="constrained")
    im = ax.imshow(data, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            text = "–" if math.isnan(v) else f"{v:.1f}"
            ax.text(j, i, text, ha="center", va="center", color="white" if v < 60 else "black")
    fig.colorbar(im, ax=ax, label="%")
    fig.suptitle(title)  # over the whole figure: a narrow grid does not cut it
    return _png(fig)


def lines_by_bin(
    series: Mapping[str, Sequence[tuple[str, int, float | None]]],
    bins: Sequence[str],
    *,
    title: str,
    xlabel: str,
) -> bytes:
    """Accuracy per interval bin, one line per run (UCS-Bench Fig. 6a / Fig. 11)."""
    fig, ax = plt.subplots(figsize=(7, 3.0 + _legend_height(series)), layout="constrained")
    for label, points in series.items():
        by = {b: acc for b, _, acc in points}
        ax.plot(range(len(bins)), [_pct(by.get(b)) for b in bins], marker="o", label=label)
    ax.set_xticks(range(len(bins)), bins)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    _legend_below(fig, ax)
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
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.3 * cols, 2.7 * rows), squeeze=False, layout="constrained"
    )
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
        parts = [f"{name} {_fmt(m.get(k))}" for k, name in VCBENCH_METRICS.items()]
        # Long ids keep their end, which tells a file's questions apart.
        head = traj.item_id if len(traj.item_id) <= 36 else "…" + traj.item_id[-35:]
        ax.set_title(f"{head}\n{traj.subcategory} · " + " · ".join(parts), fontsize=7)
        ax.set_xlabel("query time (s)" if times else "query point", fontsize=7)
        ax.tick_params(labelsize=7)
    axes.flat[0].legend(fontsize=7)
    return _png(fig)


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def recall_figure(stats: Sequence[Any], title: str = "") -> bytes:
    """OVO-S-Bench, Fig. 5: (a) retained-time density vs t/t_q, (b) ER by level, (c) ER vs
    correctness with Pearson r in the legend.  A panel with nothing to draw is left out."""
    levels = sorted({lv for s in stats for lv in s.er_by_level})
    panels = [
        name
        for name, has in (
            ("a", any(s.relative_times for s in stats)),
            ("b", bool(levels)),
            ("c", any(s.er_points for s in stats)),
        )
        if has
    ]
    if not panels:
        panels = ["c"]  # nothing at all: one empty, labelled panel beats no figure
    legend = [s.label + " (r = –)" for s in stats] if panels[-1] != "a" else []
    fig, axes = plt.subplots(
        1, len(panels), figsize=(max(8.0, 4 * len(panels)), 3.8 + _legend_height(legend)),
        layout="constrained", squeeze=False,
    )  # fmt: skip
    ax = dict(zip(panels, axes[0], strict=True))
    if "a" in ax:
        a = ax["a"]
        for k, s in enumerate(stats):
            if s.relative_times:
                a.hist(s.relative_times, bins=20, range=(0, 1), density=True, histtype="step",
                       color=f"C{k % 10}")  # fmt: skip
        a.axhline(1.0, color="grey", ls=":", label="uniform")
        a.set_xlabel("t / t_q")
        a.set_ylabel("density")
        a.set_title("(a) retained-time density")
        a.legend(fontsize=7, loc="upper left")
    if "b" in ax:
        b = ax["b"]
        width = 0.8 / max(1, len(stats))
        for k, s in enumerate(stats):
            b.bar([i - 0.4 + width * (k + 0.5) for i in range(len(levels))],
                  [_pct(s.er_by_level.get(lv)) for lv in levels], width,
                  color=f"C{k % 10}", label=s.label)  # fmt: skip
        long = len(levels) > 5 or max(map(len, levels)) > 6
        b.set_xticks(range(len(levels)), levels, rotation=30 if long else 0,
                     ha="right" if long else "center", fontsize=7 if long else None)  # fmt: skip
        b.set_ylabel("ER (%)")
        b.set_ylim(0, 100)
        b.set_title("(b) evidence recall by level")
    if "c" in ax:
        c = ax["c"]
        for k, s in enumerate(stats):
            r = "–" if s.pearson_r is None else f"{s.pearson_r:.2f}"
            c.scatter([p[0] for p in s.er_points], [p[1] for p in s.er_points], s=10,
                      alpha=0.6, color=f"C{k % 10}", label=f"{s.label} (r = {r})")  # fmt: skip
        c.set_xlabel("evidence recall")
        c.set_ylabel("correct (score)")
        c.set_title("(c) ER vs correctness")
    if title:
        fig.suptitle(title)
    if panels[-1] != "a":
        _legend_below(fig, ax[panels[-1]])
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
