"""Model-call throughput and the harness's own CPU cost per query.

1. Queries per second through ``OpenAIChatBackend`` against the loopback server with a fixed
   200 ms latency, at concurrency 1, 8 and 32, as a ratio of the ideal (concurrency ÷ latency).
2. Client CPU time per query for building the request from cached JPEGs (uniform-128 frames at
   448 px): ``ModelRequest`` → chat body → JSON bytes, the cache key, and a full call through
   the backend (server in a separate process, so only the client's CPU is counted).

3. The whole harness per query: a ``Runner`` (plan, single decoding pass, prefix views, frame
   cache, request building, HTTP, extraction, durable records) over a generated 640×480 30 fps
   video, uniform-128 at 448 px, concurrency 8, against the same server.  Process CPU per query
   with a cold frame cache (frame preparation = decode + resize + JPEG, included) and a warm one
   (frames read from the cache; decodes nothing), the difference being frame preparation.

Run: ``.venv/bin/python benchmarks/throughput.py``.
"""

from __future__ import annotations

import asyncio
import io
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

import psutil
from PIL import Image

from streamspatial.agents import PolicyAgent
from streamspatial.bench.registry import load_benchmark
from streamspatial.eval.results import PREDICTIONS, PredictionWriter
from streamspatial.eval.runner import Runner
from streamspatial.models.openai_compat import OpenAIChatBackend, build_body
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
from streamspatial.testing import FakeOpenAIServer
from streamspatial.video.synthetic import draw_frame

LATENCY = 0.2


def cached_jpegs(n: int = 128, size: tuple[int, int] = (448, 336)) -> list[bytes]:
    out = []
    for i in range(n):
        buf = io.BytesIO()
        Image.fromarray(draw_frame(i * 10, size)).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def make_request(jpegs: list[bytes], n_frames: int, tag: int) -> ModelRequest:
    parts: list = []
    for i in range(n_frames):
        parts.append(TextPart(f"Frame at {i * 0.5:.1f}s:"))
        parts.append(ImagePart(jpegs[i % len(jpegs)], i * 0.5))
    parts.append(TextPart(f"Question {tag}: what is left of the sofa? A. chair B. table"))
    return ModelRequest(parts=tuple(parts), query_time=n_frames * 0.5, choices="AB")


def _serve(port_queue, stop_event, latency: float) -> None:
    with FakeOpenAIServer("A", latency=latency, decode_frames=False) as server:
        port_queue.put(server.port)
        stop_event.wait()


async def _calls(url: str, requests: list[ModelRequest], concurrency: int) -> float:
    backend = OpenAIChatBackend("bench", url, "k", concurrency=concurrency, timeout=60)
    # open the pool's connections first: we measure the steady state of a long run
    await asyncio.gather(*(backend.generate(r) for r in requests[:concurrency]))
    start = time.perf_counter()
    out = await asyncio.gather(*(backend.generate(r) for r in requests))
    elapsed = time.perf_counter() - start
    await backend.aclose()
    assert all(r.error is None for r in out), [r.error for r in out if r.error][:1]
    return elapsed


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def runner_cpu(url: str, data: Path, videos: Path, out: Path, cache: Path) -> tuple[float, Runner]:
    """Process CPU seconds of one whole run (the server lives in another process)."""
    adapter, items = load_benchmark(data, videos=videos)
    backend = OpenAIChatBackend("bench", url, "k", concurrency=8, timeout=60)
    with PredictionWriter(out / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=backend,
            agent=PolicyAgent("uniform-128"),
            writer=writer,
            videos=videos,
            model="bench",
            concurrency=8,
            frame_size=448,
            cache_dir=cache,
            progress=False,
        )

        async def go() -> None:
            try:
                await runner.run()
            finally:
                await backend.aclose()

        c0 = _cpu(psutil.Process())
        asyncio.run(go())
        cpu = _cpu(psutil.Process()) - c0
    assert runner.stats.errors == 0, "some calls failed"
    return cpu, runner


def harness_per_query(url: str, seconds: float = 120.0, n_queries: int = 20) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from runner_stream import make_bench

    print(
        f"\n3. whole harness per query: Runner, {seconds:.0f} s 640×480 30 fps video, "
        f"{n_queries} queries, uniform-128 at 448 px, concurrency 8, {LATENCY * 1000:.0f} ms"
    )
    with tempfile.TemporaryDirectory(prefix="ss-throughput-") as tmp:
        root = Path(tmp)
        data, videos = make_bench(root, seconds=seconds, size=(640, 480), n_queries=n_queries)
        cache = root / "frames"
        results = {}
        for label in ("cold", "warm"):
            out = root / f"run-{label}"
            out.mkdir()
            w0 = time.perf_counter()
            cpu, runner = runner_cpu(url, data, videos, out, cache)
            wall = time.perf_counter() - w0
            results[label] = cpu / n_queries
            s = runner.stats
            print(
                f"  {label} frame cache: {cpu / n_queries * 1000:7.1f} ms CPU/query "
                f"({s.decodes} decode pass(es), {s.frames_decoded} frames prepared), "
                f"wall {wall:.1f} s"
            )
        prep = results["cold"] - results["warm"]
        print(f"  frame preparation (cold − warm):    {prep * 1000:7.1f} ms CPU/query")
        print(
            f"  bookkeeping + requests (warm) as a share of the model latency: "
            f"{results['warm'] / LATENCY:.2f}"
        )


def main() -> None:
    ctx = mp.get_context("spawn")
    ports, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve, args=(ports, stop, LATENCY), daemon=True)
    proc.start()
    url = f"http://127.0.0.1:{ports.get(timeout=60)}/v1"
    server = psutil.Process(proc.pid)
    jpegs = cached_jpegs()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"cached JPEGs: {len(jpegs)} at 448×336, mean {sum(map(len, jpegs)) / len(jpegs):.0f} bytes"
    )
    try:
        for frames in (0, 8):
            print(
                f"\n1. throughput, server latency {LATENCY * 1000:.0f} ms, {frames}-frame requests"
            )
            print(
                f"{'concurrency':>11} {'queries':>8} {'qps':>8} {'ideal':>8} {'ratio':>6} "
                f"{'client CPU ms/q':>16} {'server CPU ms/q':>16}"
            )
            for conc in (1, 8, 32):
                n = conc * 6
                reqs = [make_request(jpegs, frames, i) for i in range(n)]
                c0, s0 = time.process_time(), _cpu(server)
                elapsed = asyncio.run(_calls(url, reqs, conc))
                cpu = (time.process_time() - c0) / (n + 1)
                server_cpu = (_cpu(server) - s0) / (n + 1)
                qps, ideal = n / elapsed, conc / LATENCY
                print(
                    f"{conc:>11} {n:>8} {qps:>8.1f} {ideal:>8.1f} {qps / ideal:>6.2f} "
                    f"{cpu * 1000:>16.1f} {server_cpu * 1000:>16.1f}"
                )

        print("\n2. client CPU per query, uniform-128 at 448 px")
        n = 20
        reqs = [make_request(jpegs, 128, i) for i in range(n)]
        c0 = time.process_time()
        sizes = [len(json.dumps(build_body("bench", r, GenerationParams()))) for r in reqs]
        body_cpu = (time.process_time() - c0) / n
        c0 = time.process_time()
        for r in reqs:
            r.content_hash("bench")
        hash_cpu = (time.process_time() - c0) / n
        c0 = time.process_time()
        w0 = time.perf_counter()
        asyncio.run(_calls(url, reqs, 8))
        call_cpu = (time.process_time() - c0) / n
        wall = (time.perf_counter() - w0) / n
        print(
            f"  request body (data URLs + JSON, {sizes[0] / 1e6:.1f} MB): "
            f"{body_cpu * 1000:.1f} ms CPU/query"
        )
        print(f"  cache key (content_hash):             {hash_cpu * 1000:.1f} ms CPU/query")
        print(
            f"  full call through the backend (c=8):  {call_cpu * 1000:.1f} ms CPU/query, "
            f"{wall * 1000:.0f} ms wall/query incl. {LATENCY * 1000:.0f} ms server latency"
        )
        print(f"  CPU per query as a share of the model latency: {call_cpu / LATENCY:.2f}")
        harness_per_query(url)
    finally:
        stop.set()
        proc.join(timeout=10)


if __name__ == "__main__":
    main()
