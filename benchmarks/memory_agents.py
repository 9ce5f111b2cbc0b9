"""Cost of the model-written memory agents (folding, spatial captions) as the stream grows.

Workload: one hour of stream at 1 fps (frames are stand-in bytes: the agents never decode
them), a question every minute, and an instant in-process "model" whose fold summaries are
deliberately verbose (4,000 characters) so the caps are what bounds the prompt.  Per agent and
stream minute (1, 10, 30, 60) it prints what an answer request holds (images, text
characters), the side calls made for that query (folds or captions), the state kept (folds /
captions), and the agent's own CPU per query (its decision, side calls included, the model
excluded).

Baseline: the same agent on the same stream at minute 1 — every minute of the stand-in stream
is alike, so the only difference between a query at minute 1 and one at minute 60 is the
hour of memory behind it.  The figure is the agent CPU of the queries in minutes 56–60 over
that of minutes 1–5 (five queries each, less noisy than one), over ``--repeat`` passes (goal in
docs/performance.md: ≤ 1.2×), with the request size at minute 60 ÷ minute 1 beside it.

Run: ``python benchmarks/memory_agents.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from streamspatial.agents.contract import QueryContext, VideoStream
from streamspatial.agents.folding import FoldingAgent
from streamspatial.agents.spatial_caption import SpatialCaptionAgent
from streamspatial.models.types import ModelResponse, TextPart
from streamspatial.video.prefix import PrefixView

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report, load

MINUTES = 60
REPORT_AT = (1, 10, 30, 60)


class StandInStore:
    """``seconds`` of 1 fps frames whose bytes name the frame."""

    fps = 1.0

    def __init__(self, seconds: int):
        self.n_frames = seconds + 1

    def jpeg_frames(self, indices: list[int]) -> list[bytes]:
        return [b"jpeg-%d" % i for i in indices]


class InstantModel:
    name = "instant"

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, request) -> ModelResponse:
        self.calls += 1
        return ModelResponse(text="memory " * 570)  # ≈ 4,000 characters


def measure(agent) -> tuple[list[tuple[int, int, int, int, int, float]], list[float]]:
    """(rows at REPORT_AT, CPU seconds of every query by minute)."""
    store = StandInStore(MINUTES * 60)
    model = InstantModel()
    adapter = SimpleNamespace(prompt=lambda *a, **k: "Question?", system_prompt=lambda it: None)
    rows, cpus = [], []
    stream = None
    # A first query on another video pays the one-off costs (imports, the first event loop).
    for video, minute in [("warm-up", 1)] + [("v", m) for m in range(1, MINUTES + 1)]:
        if stream is None or stream.video != video:  # a new video: the agent starts over
            stream = VideoStream(video, Path(video), store.fps, store.n_frames)
            agent.reset(stream)
        t_q = 60.0 * minute
        item = SimpleNamespace(
            id=f"q{minute}",
            video=video,
            letters="ABCD",
            benchmark="b",
            task=SimpleNamespace(task="t"),
        )
        query = SimpleNamespace(time=t_q, evidence=((t_q - 30, t_q - 5),), index=0)
        view = PrefixView(store, t_q)
        before = model.calls
        start = time.process_time()
        frames = tuple(agent.frames_needed(item, query, stream))
        ctx = QueryContext(item, query, stream, view, adapter, model, frames)  # type: ignore[arg-type]
        request = asyncio.run(agent.decide(ctx)).request
        cpu = time.process_time() - start
        if video != "v":
            continue
        cpus.append(cpu)
        if minute in REPORT_AT:
            text = sum(len(p.text) for p in request.parts if isinstance(p, TextPart))
            st = agent.state
            kept = len(st.folds) if hasattr(st, "folds") else len(st.captions)
            rows.append((minute, len(request.images), text, model.calls - before, kept, cpu))
    return rows, cpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one pass")
    args = ap.parse_args()
    report = Report("memory_agents", quick=args.quick)
    print(load())
    for key, name, make in (
        ("folding_cpu", "folding (K=10 s)", FoldingAgent),
        ("caption_cpu", "spatial-caption (64)", SpatialCaptionAgent),
    ):
        ratios = []
        for r in range(1 if args.quick else args.repeat):
            rows, cpus = measure(make())
            ratios.append(statistics.fmean(cpus[-5:]) / max(statistics.fmean(cpus[:5]), 1e-9))
            if r == 0:
                print(f"\n{name}")
                print("minute  images  text chars  side calls  state kept  agent CPU ms/query")
                for minute, images, text, calls, kept, cpu in rows:
                    print(
                        f"{minute:>6}  {images:>6}  {text:>10}  {calls:>10}  {kept:>10}  "
                        f"{cpu * 1e3:>18.2f}"
                    )
                first, last = rows[0], rows[-1]
                size = (
                    f"minute {last[0]} / minute {first[0]}: images {last[1] / first[1]:.2f}×, "
                    f"text {last[2] / first[2]:.2f}×"
                )
                print(size)
        report.figure(key, ratios, f"{size}; {load()}")
    report.finish()


if __name__ == "__main__":
    main()
