"""``--agent scene-graph``: a model answers from the retrieved subgraph and its keyframes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from streamspatial.agents.contract import (
    Agent,
    AgentOptions,
    Ask,
    Decision,
    Diagnostics,
    QueryContext,
    VideoStream,
)
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, Part, TextPart
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.video.coverage import within_prefix
from streamspatial.video.prefix import PrefixView

from .memory import SceneGraphMemory
from .nodes import MemoryConfig, ObjectNode
from .render import render_subgraph
from .retrieval import parse_intent, retrieve
from .state import SceneGraphState

ProviderFactory = Callable[[Item], PerceptionProvider]


class SceneGraphAgent(Agent):
    """``--agent scene-graph``: the model sees the retrieved subgraph as text plus keyframes.

    Perception is advanced to each query time as the query is decided (O(1) per frame, frames
    in time order), reading keyframes through the query's own PrefixView.  The model never
    sees a frame, node or relation from after t_q: the memory refuses later observations and
    each query checks the memory time and every keyframe time against t_q.
    """

    name: ClassVar[str] = "scene-graph"

    def __init__(
        self,
        perception: str = "ground-truth",
        *,
        provider_factory: ProviderFactory | None = None,
        params: GenerationParams | None = None,
        variant: str = "default",
        top_k: int = 12,
        max_keyframes: int = 8,
        sample_fps: float = 1.0,
        config: MemoryConfig | None = None,
    ):
        from streamspatial.perception.spec import parse_perception

        self.spec = parse_perception(perception)
        self._factory = provider_factory
        self.params = params or GenerationParams()
        self.variant = variant
        self.top_k = top_k
        self.max_keyframes = max_keyframes
        self.sample_fps = sample_fps
        self.config = config or MemoryConfig()
        self._stream: VideoStream | None = None
        self._state: SceneGraphState | None = None

    @classmethod
    def from_options(cls, options: AgentOptions) -> SceneGraphAgent:
        return cls(
            options.perception or "ground-truth", params=options.params, variant=options.variant
        )

    @property
    def label(self) -> str:
        return f"scene-graph[{self.spec.label}]"

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        """Frames at ``sample_fps`` up to t_q: keyframes (and pixels for image-based
        perception).  Ground-truth perception reads metadata for every frame regardless."""
        if stream.n_frames <= 0 or self.sample_fps <= 0:
            return []
        n_q = min(math.floor(query.time * stream.fps + 1e-9), stream.n_frames - 1)
        step = max(1, round(stream.fps / self.sample_fps))
        return list(range(0, n_q + 1, step))

    def reset(self, stream: VideoStream) -> None:
        self._stream = stream
        self._state = None

    def state(self, item: Item) -> SceneGraphState:
        """This video's memory and perception stream (opened on first use)."""
        if self._state is None:
            self._state = SceneGraphState(self._provider(item), self.config)
        return self._state

    def _provider(self, item: Item) -> PerceptionProvider:
        if self._factory is not None:
            return self._factory(item)
        from streamspatial.perception.spec import open_perception

        stream = self._stream
        if stream is None:
            raise RuntimeError("SceneGraphAgent.reset(stream) must come before its first query")
        return open_perception(
            self.spec, stream.path, fps=stream.fps or None, n_frames=stream.n_frames
        )

    def memory_at(self, view: PrefixView | None, item: Item, query: QueryPoint) -> SceneGraphMemory:
        """The memory caught up to t_q, after checking that nothing in it is later."""
        st = self.state(item)
        st.catch_up(view, query.time, self.sample_fps)
        st.memory.check_causal(query.time)
        return st.memory

    async def decide(self, ctx: QueryContext) -> Decision:
        item, query = ctx.item, ctx.query
        memory = self.memory_at(ctx.view, item, query)
        provider = self.state(item).provider
        intent = parse_intent(item, set(provider.labels) | memory.labels(), provider.attributes)
        nodes = retrieve(memory, intent, self.top_k)
        text = render_subgraph(memory, nodes)
        frames = []
        for n in nodes:
            for kf in sorted(n.keyframes, key=lambda f: -f.score)[:1]:
                if kf.jpeg is not None and kf.time <= query.time + 1e-6:
                    frames.append((kf.time, kf.jpeg, n))
            if len(frames) >= self.max_keyframes:
                break
        parts: list[Part] = [TextPart(text)]
        for t, jpeg, n in sorted(frames, key=lambda x: x[0]):
            parts.append(TextPart(f"Keyframe at {t:.1f}s showing {n.name} #{n.node_id}:"))
            parts.append(ImagePart(jpeg=jpeg, time=t))
        parts.append(TextPart(ctx.prompt(variant=self.variant, text_only=not frames)))
        request = ctx.request(parts, params=self.params)
        return Ask(request, diagnostics(memory, nodes, query, [t for t, _, _ in frames]))


def diagnostics(
    memory: SceneGraphMemory,
    nodes: Sequence[ObjectNode],
    query: QueryPoint,
    frame_times: Sequence[float],
    **extra: Any,
) -> Diagnostics:
    """CR and ER (OVO-S-Bench §4.3.3) for a memory agent: a second of the prefix "reaches the
    model" when a keyframe from it is shown, or when a shown node was observed in it (its
    first and last sightings — the evidence the node's facts rest on)."""
    t_q = float(query.time)
    kept = {float(t) for t in frame_times}
    for n in nodes:
        kept.add(min(n.first_seen, t_q))
        kept.add(min(n.last_seen, t_q))
    return Diagnostics.of_times(
        within_prefix(kept, t_q),
        query,
        memory_objects=len(memory.objects),
        subgraph_nodes=len(nodes),
        keyframes_sent=len(frame_times),
        memory_time=memory.time,
        **extra,
    )
