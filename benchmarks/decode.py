"""Single-pass decoding vs per-query seeking (issue 2).

Workload: one generated H.264 video (default 10 minutes, 640×480, 30 fps, GOP 250) with
``--queries`` query times spread over it, each wanting uniform-128 over its prefix.

Prints
  (a) the single-pass reader's time: one forward decode serving every query, frames resized to
      448 px and stored as JPEG in a fresh frame cache;
  (b) the per-query harness's time: for each query, open the file and seek + decode to each of
      its frames, converting them to RGB arrays (what decord/torchcodec-style loaders do);
  (c) the ratio (b)/(a);
  (d) frames decoded by each against the minimum (one pass up to the last query's frame);
  (e) a second run over the same queries from the cache (decodes nothing).

    python benchmarks/decode.py                       # full size (several minutes)
    python benchmarks/decode.py --minutes 1 --queries 8
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import av

from streamspatial.video import (
    FrameCache,
    ResizeSpec,
    SinglePassReader,
    open_source,
    query_frame_index,
    read_frame_index_jpeg,
    select_frames,
    sources,
    write_timestamp_video,
)


def query_times(duration: float, queries: int) -> list[float]:
    """Evenly spread, the last one 0.5 s before the end."""
    return [round((k + 1) * (duration - 0.5) / queries, 3) for k in range(queries)]


def plan(times: list[float], fps: float, n_frames: int, policy: str) -> dict[float, list[int]]:
    return {t: select_frames(policy, query_frame_index(t, fps, n_frames), fps) for t in times}


def single_pass(video: Path, cache_root: Path, per_query: dict[float, list[int]], spec):
    cache = FrameCache(cache_root)
    source = open_source(video, cache=cache)
    needed = sorted({i for frames in per_query.values() for i in frames})
    start = time.perf_counter()
    served = 0
    with SinglePassReader(source, cache, spec, needed) as reader:
        for t, frames in per_query.items():
            served += len(reader.view(t).get(frames))
    elapsed = time.perf_counter() - start
    return elapsed, source.decoded_frames, source.opens, served, reader


def per_query_seek(video: Path, per_query: dict[float, list[int]]) -> tuple[float, int]:
    """Open the file per query; for each wanted frame seek to it and decode forward to it."""
    decoded = 0
    start = time.perf_counter()
    for frames in per_query.values():
        with av.open(str(video)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            tb = stream.time_base
            rate = stream.average_rate
            for index in frames:
                target = round(index / rate / tb)
                container.seek(target, stream=stream, backward=True, any_frame=False)
                for frame in container.decode(stream):
                    decoded += 1
                    if frame.pts >= target:
                        frame.to_ndarray(format="rgb24")
                        break
    return time.perf_counter() - start, decoded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--policy", default="uniform-128")
    parser.add_argument("--size", type=int, default=448, help="cached frames' shorter side")
    parser.add_argument("--gop", type=int, default=250)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the video here")
    parser.add_argument("--skip-seek", action="store_true", help="skip the slow baseline")
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ss-decode-"))
    workdir.mkdir(parents=True, exist_ok=True)
    video = workdir / f"ts-{args.minutes:g}min-640x480-30fps-gop{args.gop}.mp4"
    if not video.exists():
        t0 = time.perf_counter()
        write_timestamp_video(
            video, seconds=args.minutes * 60, fps=30, size=(640, 480), gop=args.gop
        )
        print(f"generated {video.name} in {time.perf_counter() - t0:.1f} s")
    cache_root = workdir / "cache"
    shutil.rmtree(cache_root, ignore_errors=True)

    probe = open_source(video)
    times = query_times(probe.duration, args.queries)
    per_query = plan(times, probe.fps, probe.n_frames, args.policy)
    requested = sum(len(v) for v in per_query.values())
    minimum = query_frame_index(times[-1], probe.fps, probe.n_frames) + 1
    spec = ResizeSpec(args.size)
    distinct = len({i for v in per_query.values() for i in v})
    print(
        f"video: {probe.n_frames} frames, {probe.duration:.0f} s; {args.queries} queries × "
        f"{args.policy} = {requested} frame requests, {distinct} distinct"
    )

    t_single, dec_single, opens, served, reader = single_pass(video, cache_root, per_query, spec)
    print(f"(a) single pass: {t_single:.1f} s ({opens} open, {reader.stored} frames cached)")

    if args.skip_seek:
        t_seek = dec_seek = None
        print("(b) per-query open + seek: skipped")
    else:
        t_seek, dec_seek = per_query_seek(video, per_query)
        print(f"(b) per-query open + seek: {t_seek:.1f} s ({args.queries} opens)")
        print(f"(c) speed-up (b)/(a): {t_seek / t_single:.1f}×")
    line = f"(d) frames decoded: single pass {dec_single} vs minimum {minimum}"
    line += f" (ratio {dec_single / minimum:.3f})"
    if dec_seek is not None:
        line += f"; per-query seek {dec_seek} ({dec_seek / minimum:.2f}× the minimum)"
    print(line)

    sources._content_ids.clear()  # a second run is a new process: it hashes the file again
    t0 = time.perf_counter()
    cache = FrameCache(cache_root)
    again = open_source(video, cache=cache)
    needed = sorted({i for v in per_query.values() for i in v})
    reader2 = SinglePassReader(again, cache, spec, needed)
    served_again = {t: reader2.view(t).get(frames) for t, frames in per_query.items()}
    t_cached = time.perf_counter() - t0
    check = sum(
        read_frame_index_jpeg(f.jpeg) == i
        for t, frames in per_query.items()
        for f, i in zip(served_again[t], frames, strict=True)
    )
    print(
        f"(e) second run from the cache: {t_cached:.2f} s, {again.decoded_frames} frames decoded, "
        f"{again.opens} opens, {t_single / t_cached:.0f}× faster than (a); every served frame's "
        f"drawn index checked: {check}/{requested} match"
    )
    if served != requested or check != requested:
        raise SystemExit("mismatch: some frames were not served correctly")


if __name__ == "__main__":
    main()
