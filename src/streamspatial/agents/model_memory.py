"""What the agents whose memory the model writes itself (folding, spatial captions) share.

Their memory is text produced by *side calls*: ordinary model requests made before the answer
(a fold summary at time t, a caption of the frame at time t).  A side call is asked "at" the
time of the newest frame it shows, so the backend's causality header and the loopback
server's canary hold for it exactly as for an answer, and it carries no item id, task key or
choices: the same frames and text hit the response cache from any question about the video.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.bench.prompts import frame_caption
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, Part, TextPart
from streamspatial.video.prefix import JpegFrame, query_frame_index

from .contract import Agent, QueryContext, VideoStream

# S3-Bench App. 1.1: the system prompt AMF-VLM is evaluated with.
AMF_SYSTEM = (
    "You are a spatial understanding agent; based on the observed spatial information, "
    "answer the corresponding questions."
)


def sample_grid(fps: float, n_q: int, rate: float) -> list[int]:
    """Frame indices at ``rate`` frames per second, from frame 0 up to ``n_q`` inclusive."""
    if n_q < 0:
        return []
    step = max(1, round(fps / rate)) if rate > 0 else 1
    return list(range(0, n_q + 1, step))


def prefix_grid(stream: VideoStream, query: QueryPoint, rate: float) -> list[int]:
    """The sampling grid at ``rate`` frames per second over the prefix of ``query`` (empty
    when the run reads no video)."""
    if stream.n_frames <= 0:
        return []
    return sample_grid(stream.fps, query_frame_index(query.time, stream.fps, stream.n_frames), rate)


def image_parts(frames: Iterable[JpegFrame]) -> list[Part]:
    """``Frame at T s:`` + image for each frame, in the order given."""
    parts: list[Part] = []
    for f in frames:
        parts.append(TextPart(frame_caption(f.time)))
        parts.append(ImagePart(jpeg=f.jpeg, time=f.time))
    return parts


def side_params(params: GenerationParams, max_tokens: int) -> GenerationParams:
    """The run's decoding settings with a smaller cap when the run sets one: a memory text is
    short by design (and clipped anyway).  A run that sets no cap sends none (reasoning models
    refuse ``max_tokens``)."""
    if params.max_tokens is None:
        return params
    return dataclasses.replace(params, max_tokens=min(params.max_tokens, max_tokens))


def side_request(parts: list[Part], t: float, params: GenerationParams) -> ModelRequest:
    """A side call asked at time ``t``; no item, task or choices, so it caches per video."""
    return ModelRequest(parts=tuple(parts), query_time=t, system=AMF_SYSTEM, params=params)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters: a memory text must stay bounded whatever the model says."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def system_for(adapter: BenchmarkAdapter, item: Item) -> str:
    """The benchmark's own system prompt, else AMF-VLM's."""
    return adapter.system_prompt(item) or AMF_SYSTEM


class ModelMemoryAgent(Agent):
    """An agent whose memory the model writes: its memory calls and its answer share the run's
    decoding settings, and its answer follows the memory the same way whatever the memory is."""

    def __init__(self, params: GenerationParams | None, variant: str):
        self.params = params or GenerationParams()
        self.variant = variant

    def memory_request(self, parts: list[Part], t: float, max_tokens: int) -> ModelRequest:
        """A side call asked at time ``t`` under the run's settings, capped at ``max_tokens``."""
        return side_request(parts, t, side_params(self.params, max_tokens))

    def answer_request(self, ctx: QueryContext, parts: list[Part], *, shown: bool) -> ModelRequest:
        """``parts`` (the memory, with the frames it shows), then the benchmark's prompt (its
        text-only form when nothing was ``shown``), under :func:`system_for`'s system prompt."""
        parts.append(TextPart(ctx.prompt(variant=self.variant, text_only=not shown)))
        return ctx.request(parts, params=self.params, system=system_for(ctx.adapter, ctx.item))
