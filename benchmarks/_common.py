"""What every benchmark shares: its goal, how a figure is reported, and the exit status.

A benchmark measures its subject and its baseline in the same run (interleaved or back to
back, repeated), prints the ratio with its spread and the load average (the machine may be
shared), and ends with one ``RESULT {json}`` line that ``benchmarks/run_all.py`` collects into
``docs/performance.md``.  It exits 1 when a figure misses its goal, so a benchmark can fail.

The goals live here, in one table; ``run_all.py --write-docs`` copies them into the document.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Goal:
    """``value`` must be ``≤`` (``at_most``) or ``≥`` the goal."""

    key: str
    what: str
    op: str  # "<=" or ">="
    goal: float
    unit: str = "×"

    def met(self, value: float) -> bool:
        return value <= self.goal if self.op == "<=" else value >= self.goal

    def text(self) -> str:
        return f"{'≤' if self.op == '<=' else '≥'} {self.goal:g}{self.unit}"


GOALS: dict[str, Goal] = {
    g.key: g
    for g in (
        Goal("run_rss", "peak RSS of `streamspatial run`, 800 ÷ 100 query points", "<=", 1.3),
        Goal("request_c32", "answers/s ÷ ideal (32 in flight, 8 images, 1 s server)", ">=", 0.9),
        Goal("request_c64", "answers/s ÷ ideal (64 in flight, 8 images, 1 s server)", ">=", 0.9),
        Goal("decode", "per-query decoder time ÷ single pass (40 queries, 10 min)", ">=", 10.0),
        Goal("scene_graph_ingest", "scene-graph ingest, minute 60 ÷ minute 1", "<=", 1.2),
        Goal("folding_cpu", "folding agent CPU per query, minute 60 ÷ minute 1", "<=", 1.2),
        Goal("caption_cpu", "spatial-caption agent CPU per query, minute 60 ÷ 1", "<=", 1.2),
        Goal("long_stream_rss", "peak RSS, 120-min stream ÷ 10-min stream (worst case)", "<=", 1.3),
        Goal("runner_overlap", "whole run ÷ (decoding + ideal calls)", "<=", 1.0),
        Goal("bench_load", "benchmark load ÷ bare json.loads", "<=", 25.0),
        Goal("extraction", "extraction time per answer ÷ one re.search", "<=", 60.0),
        Goal("render_vs_public_api", "our renderer fps ÷ MuJoCo's 3-pass Renderer", ">=", 1.0),
        Goal(
            "render_320",
            "RGB + depth + ids of a furnished, textured house, 320×240 (best round)",
            ">=",
            60.0,
            " fps",
        ),
        Goal(
            "render_640",
            "RGB + depth + ids of a furnished, textured house, 640×480 (best round)",
            ">=",
            25.0,
            " fps",
        ),
        Goal(
            "encode_deterministic",
            "deterministic H.264 encoding, CPU a frame ÷ x264's defaults (640×480 walk)",
            "<=",
            1.5,
        ),
        Goal(
            "ask_vs_render",
            "question stage ÷ rendering, CPU, worst house (seeds 9, 11; 640×480)",
            "<=",
            1.0,
        ),
        Goal(
            "gpu_batch_speedup",
            "hf: answers/s at batch 16 ÷ batch 1 (1.3 B model, 8 images, GPU)",
            ">=",
            5.0,
        ),
        Goal(
            "gpu_harness_share",
            "hf: harness answers/s ÷ bare generate loop at batch 16 (GPU)",
            ">=",
            0.9,
        ),
        Goal(
            "footage_realism",
            "weakest of six footage figures ÷ each real clip's (top colour: its share ÷ ours)",
            ">=",
            0.5,
        ),
    )
}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def spread(values: list[float]) -> str:
    """``median [min–max] of n``."""
    if len(values) == 1:
        return f"{values[0]:.3g} (1 run)"
    return f"{statistics.median(values):.3g} [{min(values):.3g}–{max(values):.3g} of {len(values)}]"


@dataclass
class Report:
    """The figures of one benchmark run; :meth:`finish` prints them and exits."""

    benchmark: str
    quick: bool = False
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def figure(self, key: str, values: list[float], detail: str = "", best: bool = False) -> bool:
        """Record a goal's figure (the median of ``values``; with ``best``, the best of them,
        for speeds a shared machine can only lower); print it; True when met."""
        goal = GOALS[key]
        if best:
            value = max(values) if goal.op == ">=" else min(values)
        else:
            value = statistics.median(values)
        ok = goal.met(value)
        self.figures[key] = {
            "value": round(value, 4),
            "runs": [round(v, 4) for v in values],
            "goal": goal.text(),
            "ok": ok,
            "detail": detail,
            "load": load(),
        }
        verdict = "meets" if ok else "MISSES"
        shown = f"{value:.3g}, the best of {spread(values)}" if best else spread(values)
        print(f"==> {goal.what}: {shown} — {verdict} the goal {goal.text()}", flush=True)
        return ok

    def finish(self) -> None:
        """The RESULT line, then exit 1 when a full-size figure missed its goal."""
        payload = {"benchmark": self.benchmark, "quick": self.quick, "figures": self.figures}
        print("RESULT " + json.dumps(payload, ensure_ascii=False), flush=True)
        failed = [k for k, f in self.figures.items() if not f["ok"]]
        if failed:
            print(f"missed: {', '.join(failed)}", file=sys.stderr)
            sys.exit(1)
