"""DirectMe's pose-anchored scene-graph memory (UCS-Bench §4, App. D) and the agent built on it.

The memory is what a person keeps while walking through a house: *which* objects exist, where
each one is in a fixed world frame, when it was first and last seen, which room-like region it
belongs to, and where I am now.  It is built from perception observations in time order, costs
O(1) per frame whatever the stream length (dictionary and spatial-hash lookups, running means,
a decimated pose chain), and its size is bounded by the distinct objects and places seen, not
by time.  At a query it answers from the state it has — which by construction holds nothing
from after the last ingested frame — by rendering the relevant part of the graph in the
*current* egocentric frame (UCS-Bench Eq. 15–16), for a model (:class:`SceneGraphAgent`) or for
the rule reasoner (:mod:`streamspatial.agents.rules`).

Structure (App. D.3): object nodes (tracked identity, temporally pooled world anchor, voted
label and attributes, first/last seen, observation count, a small keyframe cache), place nodes
(DBSCAN over ego positions per scene tag), the ego node (current pose + decimated chain), and
object–object (near / k-nearest) and object–place (containment) edges computed from geometry.

One idea per module: :mod:`.nodes` and :mod:`.memory` (the graph), :mod:`.state` (perception
integration), :mod:`.retrieval` (question → subgraph), :mod:`.render` (subgraph → prompt
text) and :mod:`.agent` (the agent and its diagnostics).
"""

from .agent import SceneGraphAgent, diagnostics
from .memory import PATH_CELL, SceneGraphMemory
from .nodes import InView, Keyframe, MemoryConfig, ObjectNode, PlaceNode, SceneVisits
from .render import REACH_M, describe_direction, ego_relation, render_subgraph
from .retrieval import (
    Mention,
    QueryIntent,
    find_mentions,
    parse_intent,
    plural_forms,
    resolve,
    retrieve,
)
from .state import SceneGraphState

__all__ = [
    "PATH_CELL",
    "REACH_M",
    "InView",
    "Keyframe",
    "MemoryConfig",
    "Mention",
    "ObjectNode",
    "PlaceNode",
    "QueryIntent",
    "SceneGraphAgent",
    "SceneGraphMemory",
    "SceneGraphState",
    "SceneVisits",
    "describe_direction",
    "diagnostics",
    "ego_relation",
    "find_mentions",
    "parse_intent",
    "plural_forms",
    "render_subgraph",
    "resolve",
    "retrieve",
]
