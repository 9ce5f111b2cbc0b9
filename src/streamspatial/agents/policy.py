"""The frame-policy agent: the papers' default way of showing a prefix to a model.

A sampling policy (uniform-N, single@query, nearest-16f@4fps, log-decay-128, oracle-evidence,
or ``none`` for text only; seed 000 App. A.1) picks frame indices in ``[0, n_q]``; the request
interleaves a caption naming each frame's time with the frame itself, then the images of image
options (each after "Option A:"), then the benchmark's own prompt (G.5/G.6: every policy sends
exactly the same text, only the images differ).

``scorer="official"`` sends what the benchmark's official code sends instead: frames chosen
by its sampling code, no time captions (its requests carry the images alone), and its prompt
words; image options still follow the frames, captioned with their letter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from streamspatial.agents.base import answer_request, option_image_parts
from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.bench.prompts import frame_caption
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, Part, TextPart

TEXT_ONLY = ("none", "text-only", "text")


class PolicyAgent:
    """Shows the model the frames a sampling policy picks from the prefix."""

    name: ClassVar[str] = "policy"
    streaming: ClassVar[bool] = False

    def __init__(
        self,
        policy: str,
        *,
        params: GenerationParams | None = None,
        variant: str = "default",
        scorer: str = "paper",
    ):
        self.policy = policy.strip()
        self.params = params or GenerationParams()
        self.variant = variant
        self.scorer = scorer
        from streamspatial.video.policies import parse_policy

        spec_text = "none" if self.policy.lower() in TEXT_ONLY else self.policy
        self._spec = parse_policy(spec_text)  # InputError naming the grammar when bad
        self.text_only = self._spec.kind == "none"
        self._offline = self._spec.offline

    @property
    def label(self) -> str:
        return str(self._spec)

    @property
    def offline(self) -> bool:
        return self._offline

    def frames_needed(self, item: Item, query: QueryPoint, fps: float, n_frames: int) -> list[int]:
        if self.text_only or n_frames <= 0:
            return []
        from streamspatial.video.policies import select_frames
        from streamspatial.video.prefix import query_frame_index

        n_q = query_frame_index(query.time, fps, n_frames)
        evidence = query.evidence if self._offline else None
        picked = select_frames(
            self._spec, n_q, fps, evidence=evidence, rules=self.scorer, t_q=query.time
        )
        return sorted({int(i) for i in picked})

    def build_request(
        self,
        view: Any,
        item: Item,
        query: QueryPoint,
        adapter: BenchmarkAdapter,
        *,
        prior_answers: Mapping[str, str] | None = None,
        indices: list[int] | None = None,
    ) -> ModelRequest:
        parts: list[Part] = []
        if not self.text_only:
            wanted = (
                indices
                if indices is not None
                else self.frames_needed(item, query, view.fps, view.n_frames)
            )
            for frame in view.get(wanted):
                if self.scorer != "official":
                    parts.append(TextPart(frame_caption(frame.time)))
                parts.append(ImagePart(jpeg=frame.jpeg, time=frame.time))
        parts.extend(option_image_parts(item))
        prompt = adapter.prompt(
            item,
            query,
            variant=self.variant,  # type: ignore[arg-type]
            text_only=self.text_only,
            prior_answers=prior_answers,
            scorer=self.scorer,
        )
        parts.append(TextPart(prompt))
        system_prompt = getattr(adapter, "system_prompt", None)
        return answer_request(
            item,
            query,
            parts,
            params=self.params,
            system=system_prompt(item) if system_prompt is not None else None,
        )
