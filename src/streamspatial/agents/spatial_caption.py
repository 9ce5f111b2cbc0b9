"""Spatial captions (UCS-Bench App. D.3.1 and E.2, the "Desc." ablation of Table 5).

Frames are sampled at a fixed interval into a buffer of the 64 most recent ones; the model
writes a spatial caption for each buffered frame (salient objects, their positions, the
relations between them, the layout), and the answer request interleaves every frame with its
caption before the question.  It is the text-memory baseline DirectMe's scene graph is measured
against: the captions are viewpoint-bound descriptions, not a world-anchored memory.

Each caption is a side call asked at its frame's time with that frame only, so it can never
describe anything later; captions are kept per video for the frames still in the buffer (the
response cache keeps them across runs), so consecutive queries caption only the new frames.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from streamspatial.core.errors import CausalityError, InputError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import Backend, GenerationParams, Part, TextPart
from streamspatial.video.prefix import JpegFrame, PrefixView

from .contract import (
    AgentOptions,
    Ask,
    Diagnostics,
    MemoryCallError,
    QueryContext,
    VideoStream,
)
from .model_memory import ModelMemoryAgent, clip, image_parts, prefix_grid

CAPTION_INSTRUCTION = (
    "Write a spatial caption of this frame: the salient objects with their colours, where each "
    "one is in the view (left, centre, right; near or far), the spatial relations between them "
    "(on, next to, in front of, behind), and the overall layout of the space. Be precise and "
    "brief: at most {words} words."
)


@dataclass
class CaptionState:
    """One video's captions, by frame index, for the frames in (or recently in) the buffer."""

    captions: dict[int, str] = field(default_factory=dict)
    errors: int = 0


class SpatialCaptionAgent(ModelMemoryAgent):
    """``--agent spatial-caption``: the 64 most recent frames, each with its model caption."""

    name: ClassVar[str] = "spatial-caption"

    def __init__(
        self,
        *,
        params: GenerationParams | None = None,
        variant: str = "default",
        buffer: int = 64,
        sample_fps: float = 1.0,
        caption_chars: int = 600,
        caption_tokens: int = 256,
    ):
        if buffer < 1 or not sample_fps > 0 or caption_chars < 16:
            raise InputError(
                "spatial-caption: the buffer needs ≥ 1 frame, a positive sampling rate and "
                f"≥ 16 caption characters (got {buffer}, {sample_fps}, {caption_chars})"
            )
        super().__init__(params, variant)
        self.buffer = buffer
        self.sample_fps = float(sample_fps)
        self.caption_chars = caption_chars
        self.caption_tokens = caption_tokens
        self.state = CaptionState()  # this video's captions

    @classmethod
    def from_options(cls, options: AgentOptions) -> SpatialCaptionAgent:
        return cls(params=options.params, variant=options.variant)

    @property
    def label(self) -> str:
        return f"spatial-caption[{self.buffer}@{self.sample_fps:g}fps]"

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        """The buffer at t_q: the ``buffer`` most recent frames of the sampling grid."""
        return prefix_grid(stream, query, self.sample_fps)[-self.buffer :]

    def reset(self, stream: VideoStream) -> None:
        self.state = CaptionState()

    async def _caption(
        self, view: PrefixView | None, wanted: Sequence[int], backend: Backend
    ) -> None:
        """Caption the buffered frames not captioned yet (concurrently: they are independent)."""
        if view is None:
            return
        st = self.state
        missing = [i for i in wanted if i not in st.captions]
        frames = view.get(missing)
        words = max(15, self.caption_chars // 7)

        failures: list[str] = []

        async def caption(frame: JpegFrame) -> None:
            parts: list[Part] = image_parts([frame])
            parts.append(TextPart(CAPTION_INSTRUCTION.format(words=words)))
            request = self.memory_request(parts, frame.time, self.caption_tokens)
            response = await backend.generate(request)
            if response.error is None:
                st.captions[frame.index] = clip(response.text, self.caption_chars)
            else:  # left uncaptioned: the next query (or --retry-errors) asks again
                st.errors += 1
                failures.append(
                    f"caption of the frame at {frame.time:g} s failed: {response.error}"
                )

        await asyncio.gather(*(caption(f) for f in frames))
        if wanted:  # forget captions of frames that have left the buffer
            for i in [i for i in st.captions if i < wanted[0]]:
                del st.captions[i]
        if failures:
            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise MemoryCallError(sorted(failures)[0] + more)

    async def decide(self, ctx: QueryContext) -> Ask:
        item, query, view = ctx.item, ctx.query, ctx.view
        assert ctx.backend is not None, "captions are written through the run's backend"
        await self._caption(view, ctx.frames, ctx.backend)
        st = self.state
        frames = view.get(ctx.frames) if view is not None else []
        parts: list[Part] = []
        captioned = 0
        for f in frames:
            if f.time > query.time + 1e-9:
                raise CausalityError(f"caption buffer holds t={f.time} for item {item.id}")
            parts += image_parts([f])
            text = st.captions.get(f.index)
            captioned += text is not None
            parts.append(TextPart(f"Spatial caption: {text or '(unavailable)'}"))
        request = self.answer_request(ctx, parts, shown=bool(frames))
        diagnostics = Diagnostics.of_times(
            [f.time for f in frames],
            query,
            frames=len(frames),
            captioned=captioned,
            caption_errors=st.errors,
        )
        return Ask(request, diagnostics)
