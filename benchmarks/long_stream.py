"""Long streams: peak memory and time per query on 10-, 60- and 120-minute videos.

Workload: one synthetic timestamp video per length (1 fps, 64×48, generated once and cached
under the temporary folder) and query points at seeded random times, **as many per minute at
every length** (items of 4 query points, one item per 2 minutes of stream: 20 points at 10
minutes, 240 at 120, OVO-S layout) — a longer stream in a real benchmark carries more
questions, so a memory that grows with the number of query points shows here as growth with
length.  Each runs through the real runner — single decoding pass, frame cache, agent,
extraction, results store — with an instant in-process model, so what is measured is the
harness itself.  Every (policy or agent, length) runs in its own subprocess and its peak RSS
is read from the kernel when it exits (``wait4``), so one run's memory cannot hide another's.

Baseline: the same policy or agent on the shortest stream.  Goal (docs/performance.md): the
longest stream's peak RSS ≤ 1.3× the shortest's, for every policy and agent (the worst one is
the figure).

Run: ``python benchmarks/long_stream.py`` (``--lengths 10 120``, ``--only uniform-128``,
``--json`` for machine-readable output; the slow test suite uses that).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report

FPS = 1.0
SIZE = (64, 48)
POINTS_PER_ITEM, MINUTES_PER_ITEM = 4, 2  # 2 query points per minute of stream, any length
LENGTHS = (10, 60, 120)  # minutes
CASES = [  # (agent, policy, agent options)
    ("policy", "single@query", {}),
    ("policy", "nearest-16f@4fps", {}),
    ("policy", "uniform-128", {}),
    ("policy", "log-decay-128", {}),
    ("policy", "oracle-evidence-32", {}),
    ("policy", "window-8@1fps/30s", {}),
    ("policy", "none", {}),
    ("folding", "uniform-8", {"fold_every": 60.0}),
    ("spatial-caption", "uniform-8", {}),
    ("scene-graph", "uniform-8", {"perception": "classical"}),
    ("scene-graph-rules", "uniform-8", {"perception": "classical"}),
]


def label(agent: str, policy: str) -> str:
    return policy if agent == "policy" else agent


# ------------------------------------------------------------------------------ inputs


def workdir() -> Path:
    root = Path(tempfile.gettempdir()) / "streamspatial-long-stream"
    root.mkdir(exist_ok=True)
    return root


def make_inputs(minutes: int) -> tuple[Path, Path]:
    """(benchmark file, videos folder) for one length; the video is made once and kept."""
    from streamspatial.video.synthetic import write_timestamp_video

    root = workdir() / f"{minutes}min"
    videos = root / "videos"
    video = videos / "long.mp4"
    if not video.exists():
        videos.mkdir(parents=True, exist_ok=True)
        tmp = videos / "long.partial.mp4"
        write_timestamp_video(tmp, seconds=minutes * 60, fps=FPS, size=SIZE)
        os.replace(tmp, video)  # a half-written video is never mistaken for a cached one
    data = root / "ovos.jsonl"
    rng = random.Random(minutes)
    seconds = minutes * 60 - 1
    with data.open("w") as fh:
        for iid in range(max(1, minutes // MINUTES_PER_ITEM)):
            times = sorted(round(rng.uniform(0, seconds), 2) for _ in range(POINTS_PER_ITEM))
            start = max(0.0, times[0] - 30)
            row = {
                "id": iid,
                "category_index": f"2.1.2_{iid}",
                "source_dataset": "synthetic",
                "video_id": "long",
                "video_path": "long.mp4",
                "level": 2,
                "task_main_category": "2.1",
                "task_subcategory": "2.1.2",
                "task_type_name": "Revisit Counting",
                "question": f"Question {iid}: how many times was the thing seen?",
                "options": {"ABCDE"[k]: f"{k} times" for k in range(5)},
                "query_times": times,
                "evidence_times": [[round(start, 2), round(max(start, t - 1), 2)] for t in times],
                "answers": ["A"] * POINTS_PER_ITEM,
            }
            fh.write(json.dumps(row) + "\n")
    return data, videos


# ------------------------------------------------------------------------------ child


class InstantModel:
    """Answers at once ("A"); side calls get a short text.  Measures the harness, not a model."""

    name = "instant"

    async def generate(self, request):
        from streamspatial.models.types import ModelResponse

        return ModelResponse(text="A" if request.choices else "a summary of the frames")

    async def aclose(self) -> None:
        return None


def child(minutes: int, case: int) -> dict[str, float]:
    from streamspatial.agents import AgentOptions, agent_factory
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.eval.results import PredictionWriter
    from streamspatial.eval.runner import Runner
    from streamspatial.models.types import GenerationParams

    agent_name, policy, options = CASES[case]
    data, videos = make_inputs(minutes)
    adapter, items = load_benchmark(data, videos=videos)
    agent = agent_factory(
        agent_name, AgentOptions(policy=policy, params=GenerationParams(), **options)
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        PredictionWriter(Path(tmp) / "predictions.jsonl") as writer,
    ):
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=InstantModel(),
            agent=agent,
            writer=writer,
            videos=videos,
            model="instant",
            concurrency=8,
            frame_size=SIZE[1],
            progress=False,
        )
        t0 = time.perf_counter()
        asyncio.run(runner.run())
        elapsed = time.perf_counter() - t0
        errors = sum(1 for r in writer.records.values() if r.error)
        n = len(writer.records)
    return {
        "queries": n,
        "errors": errors,
        "seconds": elapsed,
        "frames": runner.stats.frames_decoded,
    }


# ------------------------------------------------------------------------------ parent


def measure(minutes: int, case: int) -> dict[str, float]:
    """Run one case in a fresh interpreter; its result plus its peak RSS (MiB) from wait4."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        # Files, not pipes: wait4 (which reaps the child and returns its rusage) must be the
        # only wait, and a child blocked on a full pipe would never exit.
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(minutes), str(case)], stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{CASES[case][:2]} at {minutes} min failed:\n{err.read()[-2000:]}")
        result = json.loads(out.read().strip().splitlines()[-1])
    result["peak_rss_mib"] = usage.ru_maxrss / 1024  # Linux reports KiB
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS))
    parser.add_argument("--only", nargs="+", help="policies or agent names to run")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    cases = [k for k, (a, p, _) in enumerate(CASES) if not args.only or label(a, p) in args.only]
    for minutes in args.lengths:  # generate first, so no case pays for it
        make_inputs(minutes)
    results: dict[str, dict[int, dict[str, float]]] = {}
    for k in cases:
        name = label(*CASES[k][:2])
        results[name] = {m: measure(m, k) for m in args.lengths}
        if not args.json:
            cells = "  ".join(
                f"{m:>3} min: {r['peak_rss_mib']:6.1f} MiB "
                f"{1000 * r['seconds'] / r['queries']:7.1f} ms/q"
                for m, r in results[name].items()
            )
            first, last = args.lengths[0], args.lengths[-1]
            growth = results[name][last]["peak_rss_mib"] - results[name][first]["peak_rss_mib"]
            print(f"{name:<20} {cells}   RSS {last}-{first} min: {growth:+.1f} MiB", flush=True)
    if args.json:
        print(json.dumps(results))
        return
    first, last = args.lengths[0], args.lengths[-1]
    if first != last:
        growth = {
            name: r[last]["peak_rss_mib"] / r[first]["peak_rss_mib"] for name, r in results.items()
        }
        worst = max(growth, key=growth.__getitem__)
        report = Report("long_stream", quick=last < 120)
        report.figure(
            "long_stream_rss",
            [growth[worst]],
            f"worst: {worst}; {results[worst][first]['queries']} query points at {first} min, "
            f"{results[worst][last]['queries']} at {last} min",
        )
        report.finish()


if __name__ == "__main__":
    main()
