"""Peak memory of ``streamspatial run`` does not grow with the benchmark's length.

Workload: four generated 320×240, 30 fps H.264 videos of 2 minutes, and OVO-S-Bench files
with 100 and with 800 query points spread over them (the same videos, the same times grid,
8× as many points), policy uniform-32 (32 frames per request), concurrency 8, against the
loopback OpenAI-compatible server answering after 0.2 s in its own process.  Each run is the
real command in a fresh interpreter, as a user types it; its peak RSS is read from the kernel
when it exits (``wait4``).

Baseline: the same command on the 100-point file.  That is the fairest comparison for "memory
independent of length": same videos, frames, policy, concurrency and code, only the number of
query points differs, so any growth is memory that scales with the benchmark.  The two sizes
run alternately, ``--repeat`` times, and the ratio of their medians is the figure (goal in
docs/performance.md: ≤ 1.3×).

    python benchmarks/run_memory.py [--repeat 2] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report, load, spread
from _loopback import loopback_server, write_single_query_bench

VIDEOS, SECONDS, FPS, SIZE = 4, 120.0, 30, (320, 240)
LATENCY, CONCURRENCY, POLICY = 0.2, 8, "uniform-32"


def run_once(data: Path, videos: Path, out: Path, url: str) -> tuple[float, float, str]:
    """(peak RSS MiB, wall s, summary line) of one ``streamspatial run`` in a fresh process."""
    cmd = [
        sys.executable, "-m", "streamspatial", "run",
        "--data", str(data), "--videos", str(videos), "--model", "openai:bench",
        "--policy", POLICY, "--concurrency", str(CONCURRENCY), "--out", str(out),
        "--no-progress",
    ]  # fmt: skip
    env = {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k"}
    with tempfile.TemporaryFile("w+") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        log.seek(0)
        text = log.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"streamspatial run failed on {data.name}:\n{text[-3000:]}")
    return usage.ru_maxrss / 1024, wall, text.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="30-s videos, 25 vs 200 points")
    args = ap.parse_args()
    seconds = 30.0 if args.quick else SECONDS
    small, large = (25, 200) if args.quick else (100, 800)
    report = Report("run_memory", quick=args.quick)
    with (
        loopback_server(LATENCY) as url,
        tempfile.TemporaryDirectory(prefix="ss-run-memory-") as tmp,
    ):
        root = Path(tmp)
        from streamspatial.video.synthetic import write_timestamp_video

        videos = root / "videos"
        videos.mkdir()
        for v in range(VIDEOS):
            write_timestamp_video(
                videos / f"v{v}.mp4", seconds=seconds, fps=FPS, size=SIZE, gop=250
            )
        files = {n: root / f"bench-{n}.jsonl" for n in (small, large)}
        for n, f in files.items():
            write_single_query_bench(f, n, videos=VIDEOS, seconds=seconds, first=5.0, tail=1.0)
        print(
            f"{VIDEOS} videos × {seconds:g} s, 320×240 @ {FPS} fps; {POLICY}, concurrency "
            f"{CONCURRENCY}, server latency {LATENCY:g} s; {load()}",
            flush=True,
        )
        rss: dict[int, list[float]] = {small: [], large: []}
        for r in range(args.repeat):
            for n in (small, large):
                peak, wall, summary = run_once(files[n], videos, root / f"run-{n}-{r}", url)
                rss[n].append(peak)
                print(
                    f"  {n:>4} query points: peak RSS {peak:7.1f} MiB, {wall:5.1f} s  "
                    f"({summary[:90]})",
                    flush=True,
                )
        ratios = [b / a for a, b in zip(rss[small], rss[large], strict=True)]
        print(f"peak RSS MiB at {small}: {spread(rss[small])}; at {large}: {spread(rss[large])}")
        report.figure(
            "run_rss",
            ratios,
            f"{statistics.median(rss[small]):.0f} MiB at {small} points, "
            f"{statistics.median(rss[large]):.0f} MiB at {large} "
            f"(pairwise ratios {', '.join(f'{x:.2f}' for x in ratios)})",
        )
    report.finish()


if __name__ == "__main__":
    main()
