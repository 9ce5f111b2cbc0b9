"""The frame-policy agent: the papers' default way of showing a prefix to a model.

A sampling policy (uniform-N, single@query, nearest-16f@4fps, log-decay-128, oracle-evidence,
or ``none`` for text only; OVO-S-Bench App. A.1) picks frame indices in ``[0, n_q]``; the request
interleaves a caption naming each frame's time with the frame itself, then the images of image
options (each after "Option A:"), then the benchmark's own prompt (G.5/G.6: every policy sends
exactly the same text, only the images differ).

A benchmark whose items are turns of a dialogue (OST-Bench) fixes the frames instead: each
turn's chat re-sends the earlier turns with the model's own replies (:mod:`.dialogue`).  One
whose items are polled (StreamingBench's Proactive Output) says so too, and those items are
asked by its polling loop (:mod:`.polling`): the benchmark selects the protocol, not a flag.

``scorer="official"`` sends what the benchmark's official code sends instead: frames chosen
by its sampling code (a benchmark whose code fixes its own, ``official_policy``, gets that
in place of ``--policy``: RTV-Bench's 8 uniform frames), no time captions (its requests
carry the images alone), and its prompt words; image options still follow the frames,
captioned with their letter.

``frames="video"`` sends the picked frames as one video instead (the Qwen-VL family's path:
frames merge in pairs into temporal patches, and the model reads their times): one line
giving their times (``video_caption``; none under the official scorer), then the video, with
no per-frame captions.  It needs evenly spaced frames; a query whose frames are not (a
prefix shorter than the policy's step leaves gaps no frame fills) goes as images.  Image
options stay images, and a dialogue's turns keep theirs.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, ClassVar

from streamspatial.bench.prompts import frame_caption, video_caption
from streamspatial.bench.registry import ADAPTERS
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, Part, TextPart, VideoPart

from .clips import clip_budget, clips_frames, clips_request
from .contract import Agent, AgentOptions, Answer, Ask, QueryContext, VideoStream
from .dialogue import dialogue_frames, dialogue_request
from .polling import polled, polling_frames, run_polling
from .requests import option_image_parts

if TYPE_CHECKING:
    from streamspatial.video.policies import PolicySpec

TEXT_ONLY = ("none", "text-only", "text")


class PolicyAgent(Agent):
    """Shows the model the frames a sampling policy picks from the prefix."""

    name: ClassVar[str] = "policy"
    polls: ClassVar[bool] = True

    def __init__(
        self,
        policy: str,
        *,
        params: GenerationParams | None = None,
        variant: str = "default",
        scorer: str = "paper",
        frames: str = "images",
    ):
        self.policy = policy.strip()
        self.params = params or GenerationParams()
        self.variant = variant
        self.scorer = scorer
        self.frames = frames
        from streamspatial.video.policies import parse_policy

        spec_text = "none" if self.policy.lower() in TEXT_ONLY else self.policy
        self._spec = parse_policy(spec_text)  # InputError naming the grammar when bad
        self.text_only = self._spec.kind == "none"
        self._offline = self._spec.offline

    @classmethod
    def from_options(cls, options: AgentOptions) -> PolicyAgent:
        return cls(
            options.policy,
            params=options.params,
            variant=options.variant,
            scorer=options.scorer,
            frames=options.frames,
        )

    def video_refusal(self) -> str | None:
        if self.text_only:
            return f"--policy {self._spec} sends no frames"
        if not self._spec.evenly_spaced:
            return f"--policy {self._spec} picks unevenly spaced frames"
        return None

    @property
    def label(self) -> str:
        return str(self._spec)

    @property
    def offline(self) -> bool:
        return self._offline

    @property
    def reads_video(self) -> bool:
        return not self.text_only

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        if self.text_only or stream.n_frames <= 0:
            return []
        poll = polled(item)
        if poll is not None:  # the benchmark polls it: one frame a second of its window
            return polling_frames(poll, query, stream)
        from streamspatial.video.policies import select_frames
        from streamspatial.video.prefix import query_frame_index

        n_q = query_frame_index(query.time, stream.fps, stream.n_frames)
        dialogue = ADAPTERS[item.benchmark].dialogue(item) if item.benchmark in ADAPTERS else None
        if dialogue is not None:  # the benchmark fixes what each turn shows
            return dialogue_frames(dialogue, query.time, stream.fps, n_q)
        spec = self._item_spec(item)
        clips = ADAPTERS[item.benchmark].clips(item) if item.benchmark in ADAPTERS else None
        if clips is not None:  # the benchmark lays its clips out itself
            return clips_frames(clips, clip_budget(spec))
        evidence = query.evidence if spec.offline else None
        picked = select_frames(
            spec, n_q, stream.fps, evidence=evidence, rules=self.scorer, t_q=query.time
        )
        return sorted({int(i) for i in picked})

    def _item_spec(self, item: Item) -> PolicySpec:
        """``--policy``, or the benchmark's own sampling under the official scorer."""
        adapter = ADAPTERS.get(item.benchmark)
        official = adapter.official_policy if adapter is not None else None
        if self.scorer == "official" and official is not None:
            from streamspatial.video.policies import parse_policy

            return parse_policy(official)
        return self._spec

    async def decide(self, ctx: QueryContext) -> Ask | Answer:
        poll = ctx.adapter.polling(ctx.item)
        if poll is not None:  # text only: polled all the same, with no frames (a blind row)
            captions = self.scorer != "official"
            return await run_polling(ctx, poll, params=self.params, captions=captions)
        dialogue = ctx.adapter.dialogue(ctx.item)
        if dialogue is not None and not self.text_only and ctx.view is not None:
            prompt = ctx.prompt(variant=self.variant, scorer=self.scorer)
            return Ask(dialogue_request(ctx, dialogue, self.params, prompt))
        clips = ctx.adapter.clips(ctx.item)
        if clips is not None and not self.text_only and ctx.view is not None:
            prompt = ctx.prompt(variant=self.variant, scorer=self.scorer)
            budget = clip_budget(self._item_spec(ctx.item))
            official = self.scorer == "official"
            return Ask(clips_request(ctx, clips, budget, self.params, prompt, official=official))
        parts: list[Part] = []
        if not self.text_only and ctx.view is not None:
            frames = ctx.view.get(ctx.frames)
            if self.frames == "video" and frames and evenly_spaced([f.index for f in frames]):
                if self.scorer != "official":
                    parts.append(TextPart(video_caption([f.time for f in frames])))
                parts.append(
                    VideoPart(
                        frames=tuple(ImagePart(jpeg=f.jpeg, time=f.time) for f in frames),
                        indices=tuple(f.index for f in frames),
                        fps=ctx.stream.fps,
                    )
                )
            else:
                for frame in frames:
                    if self.scorer != "official":
                        parts.append(TextPart(frame_caption(frame.time)))
                    parts.append(ImagePart(jpeg=frame.jpeg, time=frame.time))
        parts.extend(option_image_parts(ctx.item))
        parts.append(
            TextPart(ctx.prompt(variant=self.variant, text_only=self.text_only, scorer=self.scorer))
        )
        system = ctx.adapter.system_prompt(ctx.item)
        return Ask(ctx.request(parts, params=self.params, system=system))


def evenly_spaced(indices: Sequence[int]) -> bool:
    """Consecutive frames are equally far apart, to one frame of rounding (uniform-N's
    ``round(k·n/(N-1))`` steps differ by one)."""
    steps = [b - a for a, b in pairwise(indices)]
    return not steps or (min(steps) >= 1 and max(steps) - min(steps) <= 1)
