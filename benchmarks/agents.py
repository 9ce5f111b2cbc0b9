"""Cost of the DirectMe scene-graph memory as the stream grows (issue #5: bounded memory).

Workload: a generated house walked for 30 minutes at 10 fps (18,000 frames) by the
simulator's navigator.  What each frame sees comes from the exact ray–box caster on a sparse
16×12 ray grid (occlusion-aware; no GL, so the benchmark runs anywhere), turned into
ground-truth perception by :class:`~streamspatial.perception.ground_truth.SimGroundTruth` —
perfect, and with the documented unit noise (drift, depth error, misses, false detections,
label confusion) whose false detections are what could make a memory grow with time.

It prints, measured in the same run:

* ingest time per frame (perception + memory, and the memory alone) in stream minute 1, 10
  and 30, mean and 95th percentile, and the minute-30 / minute-1 ratio;
* memory size (object nodes, keyframes, pose chain, place cells) at minutes 1, 5, 10, 20, 30;
* the prompt of a scene-graph query at those times: subgraph characters, estimated tokens
  (characters / 4; no tokenizer is downloaded), keyframes attached, and the query's build
  time (retrieval + rendering).

Run: ``.venv/bin/python benchmarks/agents.py [--minutes 30] [--fps 10]``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
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
from streamspatial.sim.house import generate_house
from streamspatial.sim.nav import plan_trajectory
from streamspatial.sim.raycast import cast
from streamspatial.sim.scene import scene_boxes
from streamspatial.sim.types import EpisodeMeta, FrameRecord, Intrinsics, Visible

SIZE = (160, 120)
STRIDE = 10  # one ray per 10×10 pixels
REPORT_MIN = (1, 5, 10, 20, 30)
TIMING_MIN = (1, 10, 30)
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


def stream(meta: EpisodeMeta, noise: NoiseModel) -> dict[str, object]:
    provider = SimGroundTruth(meta, noise=noise, key="bench")
    memory = SceneGraphState(provider).memory  # configured as the agent configures it
    step = max(1, round(meta.fps / KEYFRAME_FPS))
    per_frame: dict[int, list[float]] = {m: [] for m in TIMING_MIN}
    per_ingest: dict[int, list[float]] = {m: [] for m in TIMING_MIN}
    sizes = {}
    prompts = {}
    report_at = {round(m * 60 * meta.fps) - 1: m for m in REPORT_MIN}
    provider.advance(len(meta.frames) / meta.fps)
    for i in range(len(meta.frames)):
        t0 = time.perf_counter_ns()
        obs = provider.observe(i)
        t1 = time.perf_counter_ns()
        memory.ingest(obs, b"jpeg" if i % step == 0 else None)
        t2 = time.perf_counter_ns()
        minute = int(obs.time // 60) + 1
        if minute in per_frame:
            per_frame[minute].append((t2 - t0) / 1e3)
            per_ingest[minute].append((t2 - t1) / 1e3)
        if i in report_at:
            m = report_at[i]
            sizes[m] = memory.size_stats() | {"places": len(memory.places())}
            prompts[m] = _query(provider, memory)
    return {"frame": per_frame, "ingest": per_ingest, "sizes": sizes, "prompts": prompts}


def _p95(xs: list[float]) -> float:
    return sorted(xs)[int(0.95 * (len(xs) - 1))] if xs else float("nan")


def report(name: str, r: dict[str, object]) -> None:
    frame, ingest = r["frame"], r["ingest"]
    print(f"\n## {name}\n")
    print("| stream minute | frame µs mean | frame µs p95 | memory ingest µs mean | p95 |")
    print("|---:|---:|---:|---:|---:|")
    for m in TIMING_MIN:
        if frame[m]:  # type: ignore[index]
            f, g = frame[m], ingest[m]  # type: ignore[index]
            print(
                f"| {m} | {statistics.fmean(f):.1f} | {_p95(f):.1f} | "
                f"{statistics.fmean(g):.1f} | {_p95(g):.1f} |"
            )
    last = max(m for m in TIMING_MIN if frame[m])  # type: ignore[index]
    ratio = statistics.fmean(frame[last]) / statistics.fmean(frame[1])  # type: ignore[index]
    ratio_i = statistics.fmean(ingest[last]) / statistics.fmean(ingest[1])  # type: ignore[index]
    print(f"\nminute {last} / minute 1: frame {ratio:.2f}×, memory ingest {ratio_i:.2f}×")
    print("\n| minute | objects | keyframes | chain | recent | place cells | places | "
          "prompt chars | ≈tokens | keyframes sent | query ms |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, s in r["sizes"].items():  # type: ignore[union-attr]
        chars, tokens, kfs, ms = r["prompts"][m]  # type: ignore[index]
        print(
            f"| {m} | {s['objects']} | {s['keyframes']} | {s['chain']} | {s['recent']} | "
            f"{s['place_cells']} | {s['places']} | {chars} | {tokens} | {kfs} | {ms:.2f} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--cast-every", type=int, default=5, help="frames between visibility casts")
    args = ap.parse_args()
    t0 = time.perf_counter()
    meta = episode(args.minutes, args.fps, args.seed, args.cast_every)
    n_obj = len(meta.house.objects)
    print(
        f"episode: {len(meta.frames)} frames ({args.minutes:g} min at {args.fps:g} fps), "
        f"{n_obj} objects in {len(meta.house.rooms)} rooms; visibility cast every "
        f"{args.cast_every} frames in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    for name, noise in (
        ("perfect perception", NoiseModel()),
        ("unit noise (ground-truth:noise=1)", NoiseModel.scaled(1.0, seed=1)),
    ):
        report(name, stream(meta, noise))


if __name__ == "__main__":
    main()
