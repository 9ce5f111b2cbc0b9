"""The memory as a prompt: the retrieved subgraph in the *current* egocentric frame
(UCS-Bench Eq. 15–16): sector, metres ahead and to the side, distance, room, sightings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from streamspatial.perception.types import EgoPose

from .memory import SceneGraphMemory
from .nodes import ObjectNode

EGO_SECTORS = ("ahead", "left", "right", "behind")
REACH_M = 1.0


def ego_relation(pose: EgoPose, point: Sequence[float]) -> dict[str, float | str]:
    """Where a world point is for the camera wearer now: sector, bearing, distances."""
    ahead, left, _up = pose.to_ego(point)
    bearing = math.degrees(math.atan2(left, ahead))
    if abs(bearing) <= 45:
        sector = "ahead"
    elif abs(bearing) >= 135:
        sector = "behind"
    else:
        sector = "left" if bearing > 0 else "right"
    return {
        "sector": sector,
        "bearing_deg": bearing,
        "ahead": ahead,
        "left": left,
        "distance": math.dist(pose.position, point),
        "horizontal": math.hypot(ahead, left),
    }


def describe_direction(rel: Mapping[str, Any]) -> str:
    ahead, left = float(rel["ahead"]), float(rel["left"])
    fb = f"{abs(ahead):.1f} m {'ahead' if ahead >= 0 else 'behind'}"
    lr = f"{abs(left):.1f} m to the {'left' if left >= 0 else 'right'}"
    return f"{rel['sector']} ({fb}, {lr})"


def render_subgraph(memory: SceneGraphMemory, nodes: Sequence[ObjectNode]) -> str:
    """The subgraph as text, relations in the *current* egocentric frame."""
    pose = memory.pose
    lines = [
        "Scene-graph memory (built only from what you have seen so far; directions are "
        "relative to where you stand and face now)."
    ]
    if pose is None:
        return lines[0] + "\nNothing has been observed yet."
    where = f" in the {memory.scene}" if memory.scene else ""
    lines.append(f"You: at t={pose.time:.1f}s{where}, having walked {memory.travelled:.1f} m.")
    places = memory.places()
    if places:
        described = []
        for p in places:
            rel = ego_relation(pose, (*p.center, pose.position[2]))
            described.append(
                f"{p.label} #{p.place_id} ({describe_direction(rel)}, "
                f"seen {p.first_seen:.0f}–{p.last_seen:.0f}s)"
            )
        lines.append("Places visited: " + "; ".join(described))
    lines.append("Objects:")
    for n in nodes:
        rel = ego_relation(pose, n.position)
        reach = (
            "within reach"
            if float(rel["horizontal"]) <= REACH_M
            else f"{float(rel['distance']):.1f} m away"
        )
        place = memory.place_of(n)
        near = ", ".join(
            f"{o.name} #{o.node_id} {d:.1f} m" for o, d in memory.neighbours(n, nodes)[:3]
        )
        size = f", size {max(n.size):.1f} m" if n.size else ""
        lines.append(
            f"- {n.name} #{n.node_id}: {describe_direction(rel)}, {reach}"
            f"{f', in {place.label} #{place.place_id}' if place else ''}{size}; first seen "
            f"{n.first_seen:.1f}s, last seen {n.last_seen:.1f}s, {n.count} sightings"
            f"{f'; near {near}' if near else ''}"
        )
    return "\n".join(lines)
