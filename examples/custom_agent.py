"""Your own streaming agent, plugged into streamspatial without touching the package.

The agent below remembers the last N frames of the stream (one a second) and, at each
question, shows the model exactly those frames and the benchmark's prompt.  It is written
against the public contract only (``streamspatial.agents``): the runner resets it at the start
of each video, feeds it the frames it asked for in time order (``observe``), and asks it to
decide each query point (``decide``).  It can only ever see frames up to the query time.

Run it with no arguments::

    python examples/custom_agent.py

It renders a tiny benchmark with the simulator (one house, half a minute of egocentric video),
evaluates the agent on its OVO-S-Bench file with the seeded random baseline as the model
(set STREAMSPATIAL_MODEL=openai:<name> and OPENAI_BASE_URL to ask a real one), prints the
headline scores, and then shows the prefix guard at work: a variant of the agent that tries
to look one frame past the query time is refused with a CausalityError, and nothing it would
have seen reaches a model.

To ship an agent as a package instead of registering it in code, declare an entry point::

    [project.entry-points."streamspatial.agents"]
    last-frames = "my_package.agents:LastFramesAgent"

and ``streamspatial run --agent last-frames`` finds it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import deque
from collections.abc import Sequence
from pathlib import Path

import streamspatial
from streamspatial.agents import (
    AgentOptions,
    Ask,
    QueryContext,
    StreamingAgent,
    VideoStream,
    register_agent,
)
from streamspatial.core.errors import CausalityError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, Part, TextPart
from streamspatial.video import JpegFrame, query_frame_index


class LastFramesAgent(StreamingAgent):
    """Remember the last ``n`` frames (one every ``every_s`` seconds) and ask the model."""

    name = "last-frames"

    def __init__(self, n: int = 4, every_s: float = 1.0, params: GenerationParams | None = None):
        self.n = n
        self.every_s = every_s
        self.params = params or GenerationParams()
        self.recent: deque[JpegFrame] = deque(maxlen=n)  # bounded, whatever the stream length

    @classmethod
    def from_options(cls, options: AgentOptions) -> LastFramesAgent:
        return cls(params=options.params)  # the run's sampling parameters

    @property
    def label(self) -> str:
        return f"last-{self.n}@{1 / self.every_s:g}fps"

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        """One frame a second up to the query time: the runner decodes these once, in order."""
        n_q = query_frame_index(query.time, stream.fps, stream.n_frames)
        step = max(1, round(stream.fps * self.every_s))
        return range(0, n_q + 1, step)

    def reset(self, stream: VideoStream) -> None:
        self.recent.clear()

    def observe(self, frame: JpegFrame) -> None:
        self.recent.append(frame)

    async def decide(self, ctx: QueryContext) -> Ask:
        parts: list[Part] = []
        for frame in self.recent:
            parts += [TextPart(f"Frame at {frame.time:.1f} s:"), ImagePart(frame.jpeg, frame.time)]
        parts.append(TextPart(ctx.prompt()))
        return Ask(ctx.request(parts, params=self.params))


class PeekingAgent(LastFramesAgent):
    """The same agent, but it tries to look one frame into the future of each question."""

    name = "peeking"

    async def decide(self, ctx: QueryContext) -> Ask:
        assert ctx.view is not None
        ctx.view.get([ctx.view.n_q + 1])  # the PrefixView refuses: CausalityError
        return await super().decide(ctx)


def main() -> int:
    model = os.environ.get("STREAMSPATIAL_MODEL", "random")
    register_agent("last-frames", LastFramesAgent)
    with tempfile.TemporaryDirectory(prefix="streamspatial-example-") as tmp:
        print("rendering a tiny benchmark (one house, 30 s of video) …", flush=True)
        bench = streamspatial.generate(
            Path(tmp) / "bench", houses=1, minutes=0.5, size=(160, 120), fps=5, per_family=1
        )
        data = bench.files["ovos"]
        print(f"benchmark: {data.name}, {len(streamspatial.load_benchmark(data))} items")

        result = streamspatial.evaluate(data, bench.videos, model=model, agent="last-frames")
        frames = {len(r.frame_times) for r in result.records}
        print(f"{result.benchmark}, agent {result.records[0].policy}, model {model}:")
        for name, value in result.headline.items():
            shown = "–" if value is None else f"{100 * value:.1f}"
            print(f"  {name:<8} {shown}")
        print(f"  frames per request: {min(frames)}–{max(frames)} (never more than 4)")
        late = [r for r in result.records if any(t > r.t_q for t in r.frame_times)]
        print(f"  requests holding a frame after their query time: {len(late)}")

        try:
            streamspatial.evaluate(data, bench.videos, model=model, agent=PeekingAgent)
        except CausalityError as exc:
            print(f"prefix guard: the peeking agent was refused: {exc}")
        else:
            print("prefix guard: the peeking agent was NOT refused", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
