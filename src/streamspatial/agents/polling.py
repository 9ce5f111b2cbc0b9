"""Polling: how an item its benchmark declares proactive is asked (StreamingBench's Proactive
Output, ``StreamingBenchProactive.py``).

The benchmark says, per item, how it is polled (:class:`~streamspatial.bench.base.Polling`,
from :meth:`~streamspatial.bench.base.BenchmarkAdapter.polling`), as it says which items are
turns of a dialogue; the default agent follows it without being told (:mod:`.policy`).  At
each poll time ``t`` the model is shown one frame a second of ``[window_start, t]`` and asked
the probe; on a reply containing "yes" it is asked the answer prompt at that same time, and
polling stops (unless the benchmark keeps polling).  Every call carries its own time as its
query time and frames up to that time only (checked like every answer request), so a polled
item never sees past the moment it is asked.  The item's reply is the whole dialogue, each
message with its time, as the official code records it (``{"answered": t or false,
"dialog_history": [...]}``); the scorers read it.
"""

from __future__ import annotations

import json
from typing import Any

from streamspatial.bench.base import Polling
from streamspatial.bench.prompts import frame_caption
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.requests import item_request
from streamspatial.models.types import GenerationParams, ImagePart, Part, TextPart
from streamspatial.video.prefix import JpegFrame, query_frame_index

from .contract import Answer, Diagnostics, MemoryCallError, QueryContext, VideoStream
from .requests import check_prefix


def polling_frames(poll: Polling, query: QueryPoint, stream: VideoStream) -> list[int]:
    """One frame a second of ``[window_start, t_q]`` (the frames every poll draws from)."""
    if stream.n_frames <= 0:
        return []
    n_q = query_frame_index(query.time, stream.fps, stream.n_frames)
    seconds = range(int(poll.window_start), int(query.time) + 1)
    return sorted({min(query_frame_index(s, stream.fps, stream.n_frames), n_q) for s in seconds})


def said_yes(reply: str) -> bool:
    """``'yes' in response.strip().lower()``, as the official loop reads a probe's reply."""
    return "yes" in reply.strip().lower()


async def run_polling(
    ctx: QueryContext, poll: Polling, *, params: GenerationParams, captions: bool
) -> Answer:
    """Replay the polling loop at the item's query point; the dialogue is the answer.

    ``captions``: name each frame's time before it (the paper prompt's layout); the official
    requests carry the images alone.
    """
    frames = ctx.view.get(ctx.frames) if ctx.view is not None else []
    dialog: list[dict[str, Any]] = []
    shown: set[float] = set()
    answered: float | bool = False
    for t in poll.times(ctx.query.time):
        window = sorted(
            (f for f in frames if poll.window_start - 1e-9 <= f.time <= t + 1e-9),
            key=lambda f: f.index,
        )
        shown.update(f.time for f in window)
        probe = await _ask(ctx, window, poll.probe, t, params, captions)
        dialog += [_message("user", poll.probe, t), _message("assistant", probe, t)]
        if not said_yes(probe):
            continue
        if answered is False:
            answered = t
        if poll.answer is not None:
            reply = await _ask(ctx, window, poll.answer, t, params, captions)
            dialog += [_message("user", poll.answer, t), _message("assistant", reply, t)]
        if poll.stop_at_yes:
            break
    text = json.dumps({"answered": answered, "dialog_history": dialog}, ensure_ascii=False)
    return Answer(text, Diagnostics.of_times(sorted(shown), ctx.query, polls=len(dialog) // 2))


async def _ask(
    ctx: QueryContext,
    frames: list[JpegFrame],
    prompt: str,
    t: float,
    params: GenerationParams,
    captions: bool,
) -> str:
    """One call at time ``t``: the window's frames, then ``prompt``."""
    parts: list[Part] = []
    for f in frames:
        if captions:
            parts.append(TextPart(frame_caption(f.time)))
        parts.append(ImagePart(jpeg=f.jpeg, time=f.time))
    parts.append(TextPart(prompt))
    request = item_request(ctx.item, float(t), parts, params=params, answering=True)
    check_prefix(request, ctx.item.id, float(t))
    assert ctx.backend is not None, "polling needs the run's model"
    response = await ctx.backend.generate(request)
    if response.error:
        raise MemoryCallError(f"poll at {t:g} s failed: {response.error}")
    return response.text


def _message(role: str, content: str, t: float) -> dict[str, Any]:
    return {"role": role, "content": content, "time": t}


def polled(item: Item) -> Polling | None:
    """How ``item`` is polled, as its benchmark declares; None for an item asked once."""
    from streamspatial.bench.registry import ADAPTERS

    adapter = ADAPTERS.get(item.benchmark)
    return adapter.polling(item) if adapter is not None else None


__all__ = ["polled", "polling_frames", "run_polling", "said_yes"]
