"""Multi-turn dialogues (OST-Bench): each turn re-sent with its own frames and the model's reply.

A benchmark whose items are the turns of one conversation
(:meth:`~streamspatial.bench.base.BenchmarkAdapter.dialogue`) fixes what the model sees: turn
*k* is a chat whose earlier user messages are the earlier turns' frames and prompts, whose
assistant messages are the model's own replies to them, verbatim (the runner hands them over
as ``QueryContext.prior_replies``, the S3-Bench chain mechanism), and whose last message holds
the frames turn *k* added and its prompt.  Every frame is in the prefix of turn *k*: the
earlier turns' frames are older still.
"""

from __future__ import annotations

import math

from streamspatial.bench.base import Dialogue
from streamspatial.core.errors import StreamspatialError
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, Part, TextPart
from streamspatial.models.types import Turn as Message

from .contract import QueryContext


def span_frames(start: float, end: float, fps: float, n_q: int) -> list[int]:
    """Indices of the frames recorded in ``[start, end]`` seconds, none after ``n_q``."""
    first = max(0, math.ceil(start * fps - 1e-9))
    last = min(n_q, math.floor(end * fps + 1e-9))
    return list(range(first, last + 1))


def dialogue_frames(dialogue: Dialogue, t_q: float, fps: float, n_q: int) -> list[int]:
    """Every frame the turn's chat shows: each earlier turn's, then its own."""
    spans = [(turn.start, turn.end) for turn in dialogue.earlier] + [(dialogue.start, t_q)]
    return sorted({i for s, e in spans for i in span_frames(s, e, fps, n_q)})


def dialogue_request(
    ctx: QueryContext, dialogue: Dialogue, params: GenerationParams, prompt: str
) -> ModelRequest:
    """The chat for this turn: earlier turns (frames then prompt; the model's reply), then this
    turn's new frames and ``prompt``; the benchmark's system prompt first."""
    replies = ctx.prior_replies or {}
    history: list[Message] = []
    for turn in dialogue.earlier:
        if turn.item_id not in replies:
            raise StreamspatialError(
                f"item {ctx.item.id}: its dialogue needs the model's reply to {turn.item_id}, "
                "which was not given (run the earlier turn first)"
            )
        shown = (*_images(ctx, turn.start, turn.end), TextPart(turn.prompt))
        history.append(Message("user", shown))
        history.append(Message("assistant", (TextPart(replies[turn.item_id]),)))
    own: list[Part] = [*_images(ctx, dialogue.start, ctx.query.time), TextPart(prompt)]
    system = ctx.adapter.system_prompt(ctx.item)
    return ctx.request(own, params=params, system=system, history=history)


def _images(ctx: QueryContext, start: float, end: float) -> list[Part]:
    assert ctx.view is not None
    indices = span_frames(start, end, ctx.stream.fps, ctx.view.n_q)
    return [ImagePart(jpeg=f.jpeg, time=f.time) for f in ctx.view.get(indices)]


__all__ = ["dialogue_frames", "dialogue_request", "span_frames"]
