"""Agents: per-query input building behind one interface (see :mod:`.base`).

``make_agent`` is what ``--agent`` resolves through; later agents (scene-graph memory, memory
folding) register themselves in :data:`AGENTS` under their ``name``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from streamspatial.agents.base import Agent, PreparingAgent, StreamingAgent
from streamspatial.agents.policy import PolicyAgent
from streamspatial.core.errors import StreamspatialError

# name -> factory(policy=..., params=..., variant=..., **options) -> Agent
AGENTS: dict[str, Callable[..., Agent]] = {"policy": PolicyAgent}


def _lazy(module: str, cls: str) -> Callable[..., Agent]:
    """A factory importing its agent on first use (memory agents pull in perception)."""

    def make(**options: Any) -> Agent:
        import importlib

        return getattr(importlib.import_module(module), cls)(**options)

    return make


AGENTS["scene-graph"] = _lazy("streamspatial.agents.scene_graph", "SceneGraphAgent")
AGENTS["scene-graph-rules"] = _lazy(
    "streamspatial.agents.scene_graph_rules", "SceneGraphRulesAgent"
)
AGENTS["folding"] = _lazy("streamspatial.agents.folding", "FoldingAgent")
AGENTS["spatial-caption"] = _lazy("streamspatial.agents.spatial_caption", "SpatialCaptionAgent")
# The agents fed by a perception stream (``--perception``).
PERCEPTION_AGENTS = ("scene-graph", "scene-graph-rules")


def make_agent(name: str, **options: Any) -> Agent:
    """Build the agent ``--agent NAME`` asks for; an unknown name is a one-line user error."""
    try:
        factory = AGENTS[name]
    except KeyError:
        known = ", ".join(sorted(AGENTS))
        raise StreamspatialError(
            f"--agent: unknown agent {name!r}; expected one of {known}"
        ) from None
    return factory(**_accepted(factory, options))


def _accepted(factory: Callable[..., Agent], options: dict[str, Any]) -> dict[str, Any]:
    """The options a factory takes (all of them when it has ``**kwargs``): the runner passes
    one set (policy, params, variant, videos) and each agent uses what it needs."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return options
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return options
    names = {p.name for p in params}
    return {k: v for k, v in options.items() if k in names}


__all__ = [
    "AGENTS",
    "PERCEPTION_AGENTS",
    "Agent",
    "PolicyAgent",
    "PreparingAgent",
    "StreamingAgent",
    "make_agent",
]
