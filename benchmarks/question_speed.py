"""The question stage against rendering, house by house: asking must not set generation's pace.

    python benchmarks/question_speed.py [--seeds 9 11] [--houses 2] [--minutes 1]
                                        [--size 640x480] [--fps 10] [--quick]

For each house of each seed (``sim generate --seed S --houses N``: the same houses, walks and
events), plans and renders its walk (``sim.pipeline.jobs.render_walk``) and asks its questions alone
(``sim.pipeline.jobs.ask_group``, the reserve included, as a pruned benchmark asks them), and prints
both stages' CPU and wall seconds.  The CPU seconds are the figure: render counts the render
process's own CPU, and CPU time is what a shared machine disturbs least.

Baseline, measured in the same run on the same house: its own rendering.  Rendering is the
work a generation cannot skip (every frame drawn, its ground truth, the video encoded), so a
question stage within it leaves the pace to rendering, and a cluster sized for rendering is
sized for the whole.  The defaults are the houses that once asked for minutes per house: seeds
9 and 11 at the benchmark size.

Goal (``ask_vs_render`` in ``_common.py``, shown in docs/performance.md): on the worst house,
question CPU ÷ render CPU ≤ 1.  Ends with the common ``RESULT`` line; exit 1 if missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report

from streamspatial.sim.pipeline.config import GenerateConfig, house_seeds
from streamspatial.sim.pipeline.jobs import Group, ask_group, render_walk


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[9, 11])
    ap.add_argument("--houses", type=int, default=2)
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--quick", action="store_true", help="seed 9, 20 s walks at 320x240")
    a = ap.parse_args(argv)
    if a.quick:
        a.seeds, a.minutes, a.size = [9], 1 / 3, "320x240"
    w, h = (int(v) for v in a.size.split("x"))
    report = Report("question_speed", quick=a.quick)
    ratios: list[float] = []
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="question-speed-") as tmp:
        for seed in a.seeds:
            cfg = GenerateConfig(
                out=Path(tmp), houses=a.houses, seed=seed, minutes=a.minutes, size=(w, h), fps=a.fps
            )
            for hs in house_seeds(cfg.split, seed, cfg.houses):
                job = ("walk", hs)
                made = render_walk(cfg, job, Path(tmp)).times
                done = ask_group(cfg, Group(0, (job,)), Path(tmp))
                items, asked = done.items, done.times
                ratio = asked.cpu["ask"] / made.cpu["render"]
                ratios.append(ratio)
                rows.append(f"seed {seed} house {hs}: {ratio:.2f}")
                print(
                    f"seed {seed}, house {hs} ({a.size}, {a.minutes:.3g} min at {a.fps:g} fps): "
                    f"plan {made.cpu['plan']:.1f} s CPU, render {made.cpu['render']:.1f} s CPU "
                    f"({made.wall['render']:.1f} s wall), ask {asked.cpu['ask']:.1f} s CPU "
                    f"({asked.wall['ask']:.1f} s wall, {len(items)} questions) -> "
                    f"ask / render {ratio:.2f}",
                    flush=True,
                )
    worst = max(ratios)
    report.figure(
        "ask_vs_render",
        [worst],  # the goal holds for every house: the worst one is the figure
        f"worst of {len(ratios)} houses ({'; '.join(rows)}); {a.size}, {a.minutes:.3g}-min walks; "
        "CPU seconds, the render process's included",
    )
    print(f"worst house: asking takes {worst:.2f}× its rendering")
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
