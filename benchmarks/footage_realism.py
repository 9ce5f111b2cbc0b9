"""Footage realism: six per-frame figures of generated video against two real indoor clips.

    .venv/bin/python benchmarks/footage_realism.py [--seeds 101 202] [--seconds 60]
        [--size 640x480] [--real DIR] [--no-boxes]

Renders one walk of ``--seconds`` through each house (``generate_house(seed)`` with the
defaults, ``plan_trajectory(seed=0)`` and, for textured houses, ``plan_events`` as ``sim
generate`` adds them; 60 s by default, ``sim generate``'s minute per house: the event planner
lays out at least a minute's events however short the walk, so a 30-s walk shows lights off
and glance-backs twice as often as any generated video), at ``sim generate``'s default frame
size unless
``--size`` says otherwise, H.264 at crf 23 as ``sim generate`` writes it), then
measures 40 frames spread over all the generated video, and 40 frames of each real clip,
all resized to 320 px wide (:mod:`streamspatial.sim.render.realism`).  The real clips are a ScanNet
walk-through (UCS-Bench's public demo) and a handheld bedroom video, read from ``--real``
(default: the ``shared/data/real_indoor`` folder found above the repository); they are
measured, never copied.

Goal (``footage_realism`` in ``_common.py``, shown in docs/performance.md): every figure at
least half of *each* real clip's (the most common colour's share at most twice), i.e. the
weakest ratio ≥ 0.5; ends with the common ``RESULT`` line, exit 1 otherwise.  The baseline
printed beside is the box world (``--furniture boxes``) of the same houses and walks, the
simulator before textured houses: the fair comparison for what the furniture, materials and
light add.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import Report

from streamspatial.sim.events.plan import plan_events
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.pipeline.config import BENCHMARK_SIZE
from streamspatial.sim.render.episode import render_episode  # first: sets MUJOCO_GL
from streamspatial.sim.render.realism import (
    FIGURES,
    LABELS,
    Figures,
    mean_figures,
    meets,
    video_frames,
)
from streamspatial.sim.walk.nav import plan_trajectory

REAL = {"walk-through": "scannet_walk_panel.mp4", "bedroom": "bedroom.mp4"}


def _find_real() -> Path | None:
    here = Path(__file__).resolve().parent
    for d in (here, *here.parents):
        cand = d / "shared" / "data" / "real_indoor"
        if cand.is_dir():
            return cand
    return None


def _generated(seeds, seconds, size, furniture, tmp: Path) -> Figures:
    frames = []
    per = 40 // len(seeds)
    for seed in seeds:
        house = generate_house(seed, furniture=furniture)
        walk = plan_trajectory(house, duration=seconds, fps=10, seed=0)
        schedule = None
        if house.style == "textured":  # as sim generate films it: with its dynamic events
            walk, schedule = plan_events(house, walk, 0, aspect=size[0] / size[1])
        paths = render_episode(
            house, walk, tmp, size, name=f"{furniture}-{seed}", schedule=schedule
        )
        frames += video_frames(paths.video, per, 320)
    return mean_figures(frames)


def _fmt(k: str, v: float) -> str:
    if k in ("top_share", "edges"):
        return f"{100 * v:.1f} %"
    return f"{v:.2f}" if k in ("entropy", "texture") else f"{v:.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[101, 202])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--size", default="{}x{}".format(*BENCHMARK_SIZE))
    ap.add_argument("--real", type=Path, default=None)
    ap.add_argument("--no-boxes", action="store_true", help="skip the box-world baseline")
    ap.add_argument("--quick", action="store_true", help="10 s walks, no box-world baseline")
    a = ap.parse_args(argv)
    if a.quick:
        a.seconds, a.no_boxes = min(a.seconds, 10.0), True
    real_dir = a.real or _find_real()
    if real_dir is None or not all((real_dir / f).is_file() for f in REAL.values()):
        print(f"real clips not found (looked for {list(REAL.values())} in {real_dir})")
        return 2
    size = tuple(int(v) for v in a.size.lower().split("x"))
    real = {k: mean_figures(video_frames(real_dir / f)) for k, f in REAL.items()}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        ours = _generated(a.seeds, a.seconds, size, "catalog", Path(tmp))
        took = time.perf_counter() - t0
        boxes = None if a.no_boxes else _generated(a.seeds, a.seconds, size, "boxes", Path(tmp))
    head = f"| per frame | {' | '.join(REAL)} | generated {a.size} |"
    if boxes:
        head += f" box world {a.size} |"
    print(f"houses {a.seeds}, {a.seconds:.0f} s each, {took:.0f} s to generate and measure\n")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    ok = True
    verdicts = {k: meets(ours, r) for k, r in real.items()}
    for k in FIGURES:
        row = [LABELS[k], *(_fmt(k, getattr(r, k)) for r in real.values())]
        mark = "" if all(v[k] for v in verdicts.values()) else " ✗"
        ok &= not mark
        row.append(_fmt(k, getattr(ours, k)) + mark)
        if boxes:
            row.append(_fmt(k, getattr(boxes, k)))
        print("| " + " | ".join(row) + " |")
    ratios = {
        name: [
            (getattr(r, k) / max(getattr(ours, k), 1e-9))
            if k == "top_share"
            else getattr(ours, k) / max(getattr(r, k), 1e-9)
            for k in FIGURES
        ]
        for name, r in real.items()
    }
    for name, rs in ratios.items():
        print(f"\nratio to {name} (≥ 0.5 passes): " + ", ".join(f"{v:.2f}" for v in rs))
        print(f"  weakest {min(rs):.2f}")
    print("\nPASS" if ok else "\nFAIL: a figure is below half of a real clip's")
    worst, k, clip = min(
        (v, k, name) for name, rs in ratios.items() for v, k in zip(rs, FIGURES, strict=True)
    )
    report = Report("footage_realism", quick=a.quick)
    report.figure(
        "footage_realism",
        [worst],
        f"weakest: {LABELS[k]} against the {clip} clip; houses {a.seeds}, "
        f"{a.seconds:.0f} s each at {a.size}, H.264 crf 23",
    )
    report.finish()
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
