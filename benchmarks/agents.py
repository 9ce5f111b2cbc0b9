"""Cost of the DirectMe scene-graph memory as the stream grows (bounded memory).

Workload: a generated house walked for an hour and a minute at 10 fps by the simulator's
navigator.  What each frame sees comes from the exact ray–box caster on a sparse 16×12 ray grid
(occlusion-aware; no GL, so the benchmark runs anywhere), turned into ground-truth perception
by :class:`~streamspatial.perception.ground_truth.SimGroundTruth` — perfect, and with the
documented unit noise (drift, depth error, misses, false detections, label confusion) whose
false detections are what could make a memory grow with time.

The figure compares like with like: the memory as it stands after minute 1 and after minute 60
of the walk each ingest the *same* probe — the walk's 61st minute, perception precomputed —
from a fresh copy, alternately, ``--repeat`` times.  Timing minute 60 of the walk against its
minute 1 would compare different footage (other rooms, more or fewer objects in view), which
says nothing about the memory.  Goal (docs/performance.md): probe ingest after 60 minutes ≤
1.2× after 1 minute, with unit noise.

It also prints, from the walk itself, memory size (object nodes, keyframes, pose chain, place
cells) at minutes 1, 5, 10, 30, 60 and the prompt of a scene-graph query at those times:
subgraph characters, estimated tokens (characters / 4; no tokenizer is downloaded), keyframes
attached, and the query's build time (retrieval + rendering).

Run: ``python benchmarks/agents.py [--minutes 60] [--fps 10] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

from streamspatial.agents.scene_graph import (
    SceneGraphMemory,
    SceneGraphState,
    parse_intent,
    render_subgraph,
    retrieve,
)
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.perception.noise import NoiseModel
from streamspatial.scene.types import EpisodeMeta, FrameRecord, Intrinsics, Visible
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.raycast import cast
from streamspatial.sim.render.scene import scene_boxes
from streamspatial.sim.walk.nav import plan_trajectory

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report, load, spread

SIZE = (160, 120)
STRIDE = 10  # one ray per 10×10 pixels
REPORT_MIN = (1, 5, 10, 30, 60)
KEYFRAME_FPS = 1.0  # frames whose JPEG feeds the keyframe cache (stand-in bytes here)


def episode(minutes: float, fps: float, seed: int, cast_every: int) -> EpisodeMeta:
    """A walk with occlusion-aware visibility from the ray caster (sparse grid), cast every
    ``cast_every`` frames and held in between (casting dominates the set-up time)."""
    house = generate_house(seed)
    traj = plan_trajectory(house, duration=minutes * 60, fps=fps, seed=seed)
    intr = Intrinsics.from_vfov(SIZE[0], SIZE[1], 45.0)
    rows, cols = np.meshgrid(
        np.arange(STRIDE // 2, SIZE[1], STRIDE), np.arange(STRIDE // 2, SIZE[0], STRIDE)
    )
    grid = np.stack([rows.ravel(), cols.ravel()], axis=1)
    boxes = scene_boxes(house)
    frames = []
    vis: list[Visible] = []
    for i, pose in enumerate(traj.poses):
        if i % cast_every:
            x, y, _ = pose.position
            frames.append(FrameRecord(i, pose, house.room_at(x, y), tuple(vis)))
            continue
        depth, ids, _ = cast(boxes, pose, intr, grid)
        vis = []
        for iid in np.unique(ids[ids > 0]):
            m = ids == iid
            pts = grid[m]
            bbox = (
                int(pts[:, 1].min()),
                int(pts[:, 0].min()),
                int(pts[:, 1].max()) + 1,
                int(pts[:, 0].max()) + 1,
            )
            vis.append(
                Visible(int(iid), int(m.sum()) * STRIDE * STRIDE, bbox, float(depth[m].mean()))
            )
        x, y, _ = pose.position
        frames.append(FrameRecord(i, pose, house.room_at(x, y), tuple(vis)))
    return EpisodeMeta(house, intr, fps, tuple(frames), traj.keypoints, "bench.mp4")


def _query(provider: SimGroundTruth, memory: SceneGraphMemory) -> tuple[int, int, int, float]:
    """(subgraph chars, estimated tokens, keyframes, build ms) of one distance question."""
    labels = provider.labels
    a, b = labels[0], labels[-1]
    item = SimpleNamespace(question=f"How far is the {a} from the {b}?", intent=None)
    t0 = time.perf_counter()
    intent = parse_intent(item, set(labels) | memory.labels(), provider.attributes)
    nodes = retrieve(memory, intent, 12)
    text = render_subgraph(memory, nodes)
    keyframes = [k for n in nodes for k in sorted(n.keyframes, key=lambda f: -f.score)[:1]][:8]
    ms = (time.perf_counter() - t0) * 1e3
    return len(text), math.ceil(len(text) / 4), len(keyframes), ms


def stream(meta: EpisodeMeta, noise: NoiseModel, minutes: float, repeat: int) -> dict:
    """Feed the walk's first ``minutes`` into the memory; snapshot it after minute 1 and at the
    end; then time both snapshots ingesting the same probe (the rest of the walk)."""
    provider = SimGroundTruth(meta, noise=noise, key="bench")
    memory = SceneGraphState(provider).memory  # configured as the agent configures it
    step = max(1, round(meta.fps / KEYFRAME_FPS))
    end = round(minutes * 60 * meta.fps)
    first = round(60 * meta.fps)
    sizes, prompts, snapshots = {}, {}, {}
    report_at = {round(m * 60 * meta.fps) - 1: m for m in REPORT_MIN if m <= minutes}
    provider.advance(len(meta.frames) / meta.fps)
    for i in range(end):
        memory.ingest(provider.observe(i), b"jpeg" if i % step == 0 else None)
        if i in report_at:
            m = report_at[i]
            sizes[m] = memory.size_stats() | {"places": len(memory.places())}
            prompts[m] = _query(provider, memory)
        if i == first - 1:
            snapshots[1] = copy.deepcopy(memory)
    snapshots[minutes] = copy.deepcopy(memory)
    probe = [
        (provider.observe(i), b"jpeg" if i % step == 0 else None)
        for i in range(end, len(meta.frames))
    ]
    timings: dict[float, list[float]] = {1: [], minutes: []}
    for _ in range(repeat):
        for m in (1, minutes):
            mem = copy.deepcopy(snapshots[m])
            t0 = time.perf_counter()
            for obs, jpeg in probe:
                mem.ingest(obs, jpeg)
            timings[m].append((time.perf_counter() - t0) / len(probe) * 1e6)
    return {"sizes": sizes, "prompts": prompts, "probe": timings, "probe_frames": len(probe)}


def report(name: str, r: dict, minutes: float) -> list[float]:
    t1, tn = r["probe"][1], r["probe"][minutes]
    ratios = [b / a for a, b in zip(t1, tn, strict=True)]
    print(f"\n## {name}\n")
    print(
        f"probe ({r['probe_frames']} frames of the walk's last minute) ingest µs/frame: after "
        f"minute 1 {spread(t1)}, after minute {minutes:g} {spread(tn)}; ratio {spread(ratios)}"
    )
    print("\n| minute | objects | keyframes | chain | recent | place cells | places | "
          "prompt chars | ≈tokens | keyframes sent | query ms |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, s in r["sizes"].items():
        chars, tokens, kfs, ms = r["prompts"][m]
        print(
            f"| {m} | {s['objects']} | {s['keyframes']} | {s['chain']} | {s['recent']} | "
            f"{s['place_cells']} | {s['places']} | {chars} | {tokens} | {kfs} | {ms:.2f} |"
        )
    return ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cast-every", type=int, default=5, help="frames between visibility casts")
    ap.add_argument("--quick", action="store_true", help="10 minutes, 3 repeats")
    args = ap.parse_args()
    if args.quick:
        args.minutes, args.repeat = 10.0, 3
    report_ = Report("agents", quick=args.quick)
    t0 = time.perf_counter()
    meta = episode(args.minutes + 1, args.fps, args.seed, args.cast_every)
    n_obj = len(meta.house.objects)
    print(
        f"episode: {len(meta.frames)} frames ({args.minutes + 1:g} min at {args.fps:g} fps), "
        f"{n_obj} objects in {len(meta.house.rooms)} rooms; visibility cast every "
        f"{args.cast_every} frames in {time.perf_counter() - t0:.1f} s; {load()}",
        flush=True,
    )
    ratios = {}
    for name, noise in (
        ("perfect perception", NoiseModel()),
        ("unit noise (ground-truth:noise=1)", NoiseModel.scaled(1.0, seed=1)),
    ):
        ratios[name] = report(name, stream(meta, noise, args.minutes, args.repeat), args.minutes)
    report_.figure(
        "scene_graph_ingest",
        ratios["unit noise (ground-truth:noise=1)"],
        f"perfect perception {spread(ratios['perfect perception'])}; "
        f"probe after minute {args.minutes:g} vs after minute 1",
    )
    report_.finish()


if __name__ == "__main__":
    main()
