"""Simulator throughput: render fps and wall seconds per minute of generated video.

    .venv/bin/python benchmarks/sim.py [--frames 120] [--fps 10] [--seed 2]

Prints, for 320×240 and 640×480: frames per second of our renderer (RGB + exact depth +
instance ids + visibility, two GL passes), against the baseline a user would write first,
measured in the same run on the same house and poses: MuJoCo's public ``Renderer`` API doing
the same work in three passes (goal in docs/performance.md: ours ≥ 1× it at both sizes; the
absolute render-speed goals are ``benchmarks/render_speed.py``'s).  Then the wall time of a
whole episode per minute of video, stage by stage: house,
trajectory, render + H.264 encode + metadata, and questions (every family, ``--per-family``
each, as ``sim generate`` asks them).  Render and encode are timed inside ``render_episode``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from streamspatial.scene.types import load_episode_meta
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.qa import QuestionGenerator
from streamspatial.sim.render.episode import render_episode  # first: sets MUJOCO_GL before mujoco
from streamspatial.sim.render.renderer import HouseRenderer
from streamspatial.sim.render.scene import scene_boxes
from streamspatial.sim.walk.nav import plan_trajectory

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report
from _public_renderer import public_three_pass_fps


def _ours(house, poses, size) -> float:
    with HouseRenderer(house, size) as r:
        r.render(poses[0])
        t = time.perf_counter()
        for p in poses:
            r.render(p).visibility()
        return len(poses) / (time.perf_counter() - t)


def _public_api(house, poses, size) -> float:
    """Three passes through mujoco.Renderer (rgb, depth, segmentation) + the same visibility."""
    with HouseRenderer(house, size) as ours:
        return public_three_pass_fps(ours, poses, size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--episode-seconds", type=float, default=60.0)
    ap.add_argument("--per-family", type=int, default=3)
    args = ap.parse_args()

    house = generate_house(args.seed)
    tr = plan_trajectory(house, duration=args.frames / args.fps, fps=args.fps, seed=0)
    print(
        f"house {house.house_id}: {len(house.rooms)} rooms, {len(house.objects)} objects, "
        f"{len(scene_boxes(house))} boxes; {len(tr.poses)} poses"
    )
    print(f"load average before: {os.getloadavg()[0]:.1f} (figures are noisy when it exceeds ~2)")
    report = Report("sim", quick=args.frames < 120)
    ratios = []
    for size in ((320, 240), (640, 480)):
        ours = _ours(house, tr.poses, size)
        public = _public_api(house, tr.poses, size)
        ratios.append(ours / public)
        print(
            f"{size[0]}x{size[1]}: ours {ours:6.1f} fps | public 3-pass API {public:6.1f} fps "
            f"(ours {ours / public:.2f}x)",
            flush=True,
        )

    for size in ((320, 240), (640, 480)):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            h = generate_house(args.seed + 1)
            t1 = time.perf_counter()
            tr = plan_trajectory(h, duration=args.episode_seconds, fps=args.fps, seed=0)
            t2 = time.perf_counter()
            timings: dict[str, float] = {}
            paths = render_episode(h, tr, tmp, size=size, timings=timings)
            t3 = time.perf_counter()
            meta = load_episode_meta(paths.video)
            items = QuestionGenerator(0, per_family=args.per_family).items(
                meta, video="bench.mp4", episode_id="bench"
            )
            t4 = time.perf_counter()
        stages = {
            "house": t1 - t0,
            "trajectory": t2 - t1,
            **timings,  # render (waiting on the render process + visibility), encode, metadata
            "other": (t3 - t2) - sum(timings.values()),  # render process set-up and close
            f"questions ({len(items)})": t4 - t3,
        }
        scale = 60.0 / args.episode_seconds
        per_min = (t4 - t0) * scale
        parts = ", ".join(f"{k} {v * scale:.2f} s" for k, v in stages.items())
        print(
            f"episode {size[0]}x{size[1]} @ {args.fps:g} fps, per minute of video: {parts} "
            f"-> {per_min:.1f} s wall ({per_min / 60:.2f}x real time)"
        )
    report.figure("render_vs_public_api", [min(ratios)], "the worse of 320×240 and 640×480")
    report.finish()


if __name__ == "__main__":
    main()
