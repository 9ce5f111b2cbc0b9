"""Agents: what a model is shown at each query point, behind one typed contract.

Write an agent by subclassing :class:`Agent` (or :class:`StreamingAgent`, fed frame by frame)
and register it with :func:`register_agent` or an entry point in the ``streamspatial.agents``
group; ``--agent NAME`` and :func:`streamspatial.evaluate` then find it.  :mod:`.contract`
says what an agent receives and returns; :mod:`.registry` how names resolve.

Built in: ``policy`` (the papers' frame sampling), ``scene-graph`` and ``scene-graph-rules``
(DirectMe's pose-anchored memory, with a model or with rules), ``folding`` (AMF-VLM's memory
folding) and ``spatial-caption`` (captioned frames).
"""

from streamspatial.agents.contract import (
    Agent,
    AgentOptions,
    Answer,
    Ask,
    Decision,
    Diagnostics,
    MemoryCallError,
    QueryContext,
    StreamingAgent,
    VideoStream,
)
from streamspatial.agents.policy import PolicyAgent
from streamspatial.agents.registry import (
    ENTRY_POINT_GROUP,
    AgentFactory,
    agent_entry,
    agent_factory,
    agent_names,
    make_agent,
    perception_agents,
    register_agent,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Agent",
    "AgentFactory",
    "AgentOptions",
    "Answer",
    "Ask",
    "Decision",
    "Diagnostics",
    "MemoryCallError",
    "PolicyAgent",
    "QueryContext",
    "StreamingAgent",
    "VideoStream",
    "agent_entry",
    "agent_factory",
    "agent_names",
    "make_agent",
    "perception_agents",
    "register_agent",
]
