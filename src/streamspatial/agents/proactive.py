"""``--agent proactive``: StreamingBench's Proactive Output as a streaming agent.

The official loop (``StreamingBenchProactive.py``): from the question's ``time_stamp`` ``s``,
at each whole second ``t = s + 1, s + 2, …`` up to the ground truth + 4 s, the model is shown
the clip ``[s, t]`` and asked whether it is the right time to output the expected text ("yes
or no"); on a reply containing "yes" it is asked the question itself at that same time, and
polling stops.  This agent observes the stream one frame per second of every polling window,
and at the item's query point replays the loop: each call carries its own time as its query
time and frames up to that time only (checked like every answer request).  The item's reply
is the whole dialogue, each message with its time, as the official code records it
(``{"answered": t or false, "dialog_history": [...]}``); the scorers read the last message.

Items that are not polled are answered as ``--agent policy`` answers them.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from streamspatial.bench.base import Polling
from streamspatial.bench.prompts import frame_caption
from streamspatial.bench.registry import ADAPTERS
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import ImagePart, Part, TextPart
from streamspatial.video.prefix import JpegFrame, query_frame_index

from .contract import (
    Answer,
    Ask,
    Diagnostics,
    MemoryCallError,
    QueryContext,
    StreamingAgent,
    VideoStream,
)
from .policy import PolicyAgent
from .requests import answer_request, check_prefix


class ProactiveAgent(PolicyAgent, StreamingAgent):
    """Polls a proactive item every second (official protocol); a policy agent otherwise."""

    name: ClassVar[str] = "proactive"
    polls: ClassVar[bool] = True

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._frames: dict[int, JpegFrame] = {}

    @property
    def reads_video(self) -> bool:
        return True

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> list[int]:
        poll = _polling(item)
        if poll is None:
            return list(super().frames_needed(item, query, stream))
        if stream.n_frames <= 0:
            return []
        n_q = query_frame_index(query.time, stream.fps, stream.n_frames)
        seconds = range(int(poll.start), int(query.time) + 1)
        return sorted(
            {min(query_frame_index(s, stream.fps, stream.n_frames), n_q) for s in seconds}
        )

    def observe(self, frame: JpegFrame) -> None:
        self._frames[frame.index] = frame

    async def decide(self, ctx: QueryContext) -> Ask | Answer:
        poll = ctx.adapter.polling(ctx.item)
        if poll is None:
            return await super().decide(ctx)
        # Frames of this window the stream fed before (an earlier item's window) come from
        # the view: every one is in the prefix, and decoded for this query.
        assert ctx.view is not None
        missing = [i for i in ctx.frames if i not in self._frames]
        for f in ctx.view.get(missing):
            self._frames[f.index] = f
        dialog: list[dict[str, Any]] = []
        shown: set[float] = set()
        answered: float | bool = False
        t = poll.start + 1
        while t <= min(poll.until, ctx.query.time):
            frames = [f for f in self._frames.values() if poll.start <= f.time <= t + 1e-9]
            frames.sort(key=lambda f: f.index)
            shown.update(f.time for f in frames)
            probe = await self._ask(ctx, frames, poll.probe, t)
            dialog += [_message("user", poll.probe, t), _message("assistant", probe, t)]
            if "yes" in probe.strip().lower():
                reply = await self._ask(ctx, frames, poll.answer, t)
                dialog += [_message("user", poll.answer, t), _message("assistant", reply, t)]
                answered = t
                break
            t += 1
        text = json.dumps({"answered": answered, "dialog_history": dialog}, ensure_ascii=False)
        diag = Diagnostics.of_times(sorted(shown), ctx.query, polls=len(dialog) // 2)
        return Answer(text, diag)

    async def _ask(self, ctx: QueryContext, frames: list[JpegFrame], prompt: str, t: float) -> str:
        """One call at time ``t``: the frames of ``[start, t]`` then ``prompt``."""
        parts: list[Part] = []
        for f in frames:
            if self.scorer != "official":
                parts.append(TextPart(frame_caption(f.time)))
            parts.append(ImagePart(jpeg=f.jpeg, time=f.time))
        parts.append(TextPart(prompt))
        at_t = ctx.query.model_copy(update={"time": float(t)})
        request = answer_request(ctx.item, at_t, parts, params=self.params)
        check_prefix(request, ctx.item.id, float(t))
        assert ctx.backend is not None, "polling needs the run's model"
        response = await ctx.backend.generate(request)
        if response.error:
            raise MemoryCallError(f"poll at {t:g} s failed: {response.error}")
        return response.text


def _polling(item: Item) -> Polling | None:
    adapter = ADAPTERS.get(item.benchmark)
    return adapter.polling(item) if adapter is not None else None


def _message(role: str, content: str, t: float) -> dict[str, Any]:
    return {"role": role, "content": content, "time": t}


__all__ = ["ProactiveAgent"]
