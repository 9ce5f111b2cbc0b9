"""Cost of the model-written memory agents (folding, spatial captions) as the stream grows.

Workload: one hour of stream at 1 fps (frames are stand-in bytes: the agents never decode
them), a question every minute, and an instant in-process "model" whose fold summaries are
deliberately verbose (4,000 characters) so the caps are what bounds the prompt.  Per agent and
stream minute (1, 10, 30, 60) it prints what an answer request holds (images, text
characters), the side calls made for that query (folds or captions), the state kept (folds /
captions), and the agent's own CPU per query (prepare + build, the model excluded), with the
minute-60 / minute-1 ratio measured in the same run.

Run: ``.venv/bin/python benchmarks/memory_agents.py``.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from streamspatial.agents.folding import FoldingAgent
from streamspatial.agents.spatial_caption import SpatialCaptionAgent
from streamspatial.models.types import ModelResponse, TextPart
from streamspatial.video.prefix import PrefixView

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


def measure(agent) -> list[tuple[int, int, int, int, int, float]]:
    store = StandInStore(MINUTES * 60)
    model = InstantModel()
    adapter = SimpleNamespace(prompt=lambda *a, **k: "Question?", system_prompt=lambda it: None)
    rows = []
    for minute in range(1, MINUTES + 1):
        t_q = 60.0 * minute
        item = SimpleNamespace(
            id=f"q{minute}",
            video="v",
            letters="ABCD",
            benchmark="b",
            task=SimpleNamespace(task="t"),
        )
        query = SimpleNamespace(time=t_q, evidence=(), index=0)
        view = PrefixView(store, t_q)
        before = model.calls
        start = time.process_time()
        asyncio.run(agent.prepare(view, item, query, adapter, model))
        request = agent.build_request(view, item, query, adapter)
        cpu = time.process_time() - start
        if minute in REPORT_AT:
            text = sum(len(p.text) for p in request.parts if isinstance(p, TextPart))
            st = agent._states.get("v")
            kept = len(st.folds) if hasattr(st, "folds") else len(st.captions)
            rows.append((minute, len(request.images), text, model.calls - before, kept, cpu))
    return rows


def main() -> None:
    for name, agent in (
        ("folding (K=10 s)", FoldingAgent()),
        ("spatial-caption (64)", SpatialCaptionAgent()),
    ):
        rows = measure(agent)
        print(f"\n{name}")
        print("minute  images  text chars  side calls  state kept  agent CPU ms/query")
        for minute, images, text, calls, kept, cpu in rows:
            print(
                f"{minute:>6}  {images:>6}  {text:>10}  {calls:>10}  {kept:>10}  {cpu * 1e3:>18.2f}"
            )
        first, last = rows[0], rows[-1]
        print(
            f"minute {last[0]} / minute {first[0]}: images {last[1] / first[1]:.2f}×, "
            f"text {last[2] / first[2]:.2f}×, CPU {last[5] / max(first[5], 1e-9):.2f}×"
        )


if __name__ == "__main__":
    main()
