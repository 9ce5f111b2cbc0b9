"""The request path keeps up: answers per second through the runner against a 1-s server.

Workload: eight generated 60-s 640×480 30 fps videos, policy uniform-8 at 448 px (8 images
per request, ~35 kB each), ``ROUNDS × c`` query points spread over the videos, against the
loopback OpenAI-compatible server answering every request after exactly 1 s, in its own
process.  The frame cache is filled first, so what is measured is the request path itself:
the runner's scheduling, building each request once a slot is free, encoding the body off the
event loop, HTTP over pooled keep-alive connections, extraction, scoring and the durable
results file.

The figure is answers per second divided by the ideal ``c ÷ 1 s`` (goal in
docs/performance.md: ≥ 0.9 at c = 32 and c = 64).  The ideal is a bound, not a baseline, so
the same run also measures the *bare client*: httpx at the same concurrency posting
pre-built bodies of the same size, nothing else — the fairest thing a user could compare
with, and what the loopback server and this machine allow at all.  Runner and bare client
alternate, ``--repeat`` times each.

    python benchmarks/throughput.py [--repeat 2] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report, load, spread
from _loopback import loopback_server, write_single_query_bench

VIDEOS, SECONDS, LATENCY, POLICY, FRAME_SIZE = 8, 60.0, 1.0, "uniform-8", 448


def through_runner(
    data: Path, videos: Path, cache: Path, out: Path, url: str, c: int
) -> tuple[float, int, dict]:
    """(wall seconds, answers, a sample body's size) of one Runner over ``data``."""
    from streamspatial.agents import PolicyAgent
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.eval.results import PREDICTIONS, PredictionWriter
    from streamspatial.eval.runner import Runner
    from streamspatial.models.openai_compat import OpenAIChatBackend

    adapter, items = load_benchmark(data, videos=videos)
    out.mkdir()
    backend = OpenAIChatBackend("bench", url, "k", concurrency=c, timeout=120)
    with PredictionWriter(out / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=backend,
            agent=partial(PolicyAgent, POLICY),
            writer=writer,
            videos=videos,
            model="bench",
            concurrency=c,
            frame_size=FRAME_SIZE,
            cache_dir=cache,
            progress=False,
        )

        async def go() -> float:
            t0 = time.perf_counter()
            try:
                await runner.run()
            finally:
                await backend.aclose()
            return time.perf_counter() - t0

        wall = asyncio.run(go())
        errors = [r.error for r in writer.records.values() if r.error]
        if errors:
            raise SystemExit(f"{len(errors)} calls failed, e.g. {errors[0]}")
        return wall, len(writer.records), {"decodes": runner.stats.decodes}


def bare_client(url: str, body: bytes, n: int, c: int) -> float:
    """Wall seconds for ``n`` posts of ``body`` by plain httpx, ``c`` at a time."""

    async def go() -> float:
        limits = httpx.Limits(max_connections=c, max_keepalive_connections=c)
        async with httpx.AsyncClient(limits=limits, timeout=120) as client:
            sem = asyncio.Semaphore(c)

            async def one() -> None:
                async with sem:
                    r = await client.post(
                        url + "/chat/completions",
                        content=body,
                        headers={"content-type": "application/json"},
                    )
                    r.raise_for_status()

            t0 = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(n)))
            return time.perf_counter() - t0

    return asyncio.run(go())


def sample_body(videos: Path, cache: Path) -> bytes:
    """A body the runner sends: the 8 cached frames of the last query of the first video."""
    from streamspatial.models.body import build_body
    from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
    from streamspatial.video import FrameCache, ResizeSpec, open_source, query_frame_index
    from streamspatial.video.policies import select_frames

    fc = FrameCache(cache)
    source = open_source(videos / "v0.mp4", cache=fc)
    frames = fc.frames(source.content_id(), ResizeSpec(FRAME_SIZE))
    t_q = SECONDS - 1.0
    parts: list = []
    for i in select_frames(POLICY, query_frame_index(t_q, source.fps, source.n_frames), source.fps):
        data = frames.get(i / source.fps)
        assert data is not None, f"frame {i} is not cached"
        parts += [TextPart(f"Frame at {i / source.fps:.1f}s:"), ImagePart(data, i / source.fps)]
    parts.append(TextPart("Question 0: which object is closer to the camera? A. a B. b"))
    request = ModelRequest(parts=tuple(parts), query_time=t_q)
    return json.dumps(build_body("bench", request, GenerationParams())).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=10, help="answers per slot in a run")
    ap.add_argument("--quick", action="store_true", help="4 rounds, one repeat")
    args = ap.parse_args()
    rounds = 4 if args.quick else args.rounds
    repeat = 1 if args.quick else args.repeat
    report = Report("throughput", quick=args.quick)
    with (
        loopback_server(LATENCY) as url,
        tempfile.TemporaryDirectory(prefix="ss-throughput-") as tmp,
    ):
        root = Path(tmp)
        from streamspatial.video.synthetic import write_timestamp_video

        videos = root / "videos"
        videos.mkdir()
        for v in range(VIDEOS):
            write_timestamp_video(
                videos / f"v{v}.mp4", seconds=SECONDS, fps=30, size=(640, 480), gop=250
            )
        cache = root / "cache"
        levels = (32, 64)
        files = {}
        for c in levels:
            files[c] = root / f"bench-{c}.jsonl"
            write_single_query_bench(
                files[c], rounds * c, videos=VIDEOS, seconds=SECONDS, first=3.0, tail=1.0
            )
        # Fill the frame cache with every file's frames (and warm up): decoding is
        # measured by decode.py, the request path here.
        for c in levels:
            through_runner(files[c], videos, cache, root / f"warm-{c}", url, c)
        body = sample_body(videos, cache)
        print(
            f"{VIDEOS} videos, {POLICY} at {FRAME_SIZE} px (body {len(body) / 1e3:.0f} kB), "
            f"server latency {LATENCY:g} s, {rounds} answers per slot; {load()}",
            flush=True,
        )
        for c in levels:
            n, ideal = rounds * c, c / LATENCY
            ours: list[float] = []
            bare: list[float] = []
            for r in range(repeat):
                wall, answers, _ = through_runner(
                    files[c], videos, cache, root / f"run-{c}-{r}", url, c
                )
                assert answers == n, (answers, n)
                ours.append(n / wall / ideal)
                bare.append(n / bare_client(url, body, n, c) / ideal)
                print(
                    f"  c={c}: runner {ours[-1]:.3f} of ideal ({n / wall:.1f} answers/s), "
                    f"bare client {bare[-1]:.3f}; {load()}",
                    flush=True,
                )
            report.figure(
                f"request_c{c}",
                ours,
                f"{statistics.median(ours) * ideal:.1f} answers/s of an ideal {ideal:g}; "
                f"bare httpx client {spread(bare)} of ideal",
            )
    report.finish()


if __name__ == "__main__":
    main()
