"""Perception into memory: one video's perception stream feeding its scene graph up to t_q.

Perception providers (ground truth, classical, model-based) produce observations frame by
frame; the state advances the stream to each query time, reads the keyframes (and, for
providers that need pixels, the frames) through the query's own PrefixView, and ingests the
observations in time order.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from streamspatial.perception.stream import PerceptionProvider
from streamspatial.video.prefix import PrefixView

from .memory import SceneGraphMemory
from .nodes import MemoryConfig


class SceneGraphState:
    """One video's memory plus the perception stream feeding it."""

    def __init__(self, provider: PerceptionProvider, config: MemoryConfig | None = None):
        self.provider = provider
        config = config or MemoryConfig()
        if provider.stable_tracks:
            # two mugs side by side, seen at different times, are two mugs
            config = replace(config, merge_tracked=False)
        self.memory = SceneGraphMemory(config)

    def catch_up(self, view: PrefixView | None, t_q: float, sample_fps: float) -> None:
        """Ingest every observation up to ``t_q``; frames at ``sample_fps`` feed keyframes."""
        if self.memory.time > t_q + 1e-6:  # an earlier query after a later one: rebuild
            self.provider.reset()
            self.memory = SceneGraphMemory(self.memory.config)
        prov = self.provider
        prov.advance(t_q)
        pending = list(prov.pending(t_q))
        if not pending:
            return
        fps = view.fps if view is not None else prov.fps
        step = max(1, round(fps / sample_fps)) if sample_fps > 0 else 0
        wanted = (
            [i for i in range(pending[0], pending[-1] + 1) if step and i % step == 0]
            if view is not None
            else []
        )
        jpegs: dict[int, bytes] = {}
        images: dict[int, Any] = {}
        if view is not None and wanted:
            wanted = [i for i in wanted if i <= view.n_q]
            if prov.needs_images:
                for f in view.arrays(wanted):
                    images[f.index] = f.image
            for f in view.get(wanted):
                jpegs[f.index] = f.jpeg
        for i in pending:
            if prov.needs_images:
                if i not in images:
                    continue
                obs = prov.observe(i, images[i])
            else:
                obs = prov.observe(i)
            self.memory.ingest(obs, jpegs.get(i))
