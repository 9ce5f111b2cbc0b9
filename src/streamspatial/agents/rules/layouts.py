"""Rules over perceived room layouts: the floor polygons perception reports (``memory.rooms``).

* the floor area of the room one stands in, and of the rooms visited since one first entered a
  named room (a room counts as visited once the walk, since then, passed within
  ``COVER_RADIUS`` of ``AREA_SHARE`` of its floor, the benchmark's S3 definition);
* which room holds an object: the perceived room whose floor polygon contains it;
* which kind of object was seen in a room (objects on the room's perceived floor), and how many
  of a label stand in the room one is in, once looking around has added its views.
"""

from __future__ import annotations

import numpy as np

from streamspatial.agents.rules.context import Answer, RuleContext, scenes_in, text_option
from streamspatial.agents.scene_graph import PATH_CELL, ObjectNode, find_mentions
from streamspatial.bench.conventions import AREA_SHARE, COVER_RADIUS

FLOOR_CELL = 0.5  # m: the floor grid coverage is counted on


def contains(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    inside = False
    for i in range(len(poly)):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def coverage(ctx: RuleContext, room: dict, since: float = -np.inf) -> float:
    """Share of the room's floor cells within COVER_RADIUS of a spot the camera stood on (last
    at ``since`` or later)."""
    poly = [tuple(q) for q in room["polygon"]]
    xs, ys = [q[0] for q in poly], [q[1] for q in poly]
    cells = [
        (x, y)
        for x in np.arange(min(xs) + FLOOR_CELL / 2, max(xs), FLOOR_CELL)
        for y in np.arange(min(ys) + FLOOR_CELL / 2, max(ys), FLOOR_CELL)
        if contains(poly, float(x), float(y))
    ]
    if not cells:
        return 0.0
    walked = sorted(c for c, t in ctx.memory.path_cells.items() if t >= since)
    if not walked:
        return 0.0
    path = (np.array(walked, dtype=float) + 0.5) * PATH_CELL
    cc = np.array(cells)
    d2 = ((cc[:, None, :] - path[None, :, :]) ** 2).sum(-1).min(axis=1)
    return float((d2 <= COVER_RADIUS**2).mean())


def _current_room_area(ctx: RuleContext) -> Answer:
    room = ctx.memory.rooms.get(ctx.memory.scene or "")
    return None if room is None else float(room["area"])


def _area(ctx: RuleContext) -> Answer:
    """The rooms visited since one first entered the room the question names, it included."""
    tags = scenes_in(ctx, ctx.question)
    entry = next((pose.time for s, pose in ctx.memory.scene_log if tags and s == tags[0]), None)
    if entry is None:
        return None
    since = [
        n for n, v in ctx.memory.visits.items() if v.last_seen >= entry and n in ctx.memory.rooms
    ]
    rooms = [
        ctx.memory.rooms[n]
        for n in since
        if coverage(ctx, ctx.memory.rooms[n], entry) >= AREA_SHARE
    ]
    return float(sum(r["area"] for r in rooms)) if rooms else None


def room_of(ctx: RuleContext, node: ObjectNode) -> str | None:
    """The perceived room whose floor holds the object, else where it was seen from."""
    x, y, _ = node.position
    for name, room in ctx.memory.rooms.items():
        if contains([tuple(q) for q in room["polygon"]], x, y):
            return name
    return node.scene


def _out_of_view(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    room = None if n is None else room_of(ctx, n)
    return None if room is None else text_option(ctx, room)


def _explore_room_count(ctx: RuleContext) -> Answer:
    """Objects of the asked label(s) on the floor of the room one stands in: what looking
    around (the exploration views ingested after t_q) adds to what the stream showed."""
    labels = ctx.target_labels()
    room = ctx.memory.rooms.get(ctx.memory.scene or "")
    if labels is None or room is None:
        return None
    poly = [tuple(q) for q in room["polygon"]]
    return float(
        sum(
            1
            for n in ctx.memory.nodes()
            if n.label in labels and contains(poly, n.position[0], n.position[1])
        )
    )


def _category_recall(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.question)
    if not tags:
        return None
    room = ctx.memory.rooms.get(tags[0])
    if room is not None:  # the room's perceived floor, not where it was seen from
        poly = [tuple(q) for q in room["polygon"]]
        here = {n.label for n in ctx.memory.nodes() if contains(poly, *n.position[:2])}
    else:
        here = {n.label for n in ctx.memory.nodes() if room_of(ctx, n) == tags[0]}
    for letter, text in ctx.options:
        ms = find_mentions(text, ctx.labels)
        if ms and ms[0].label in here:
            return letter
    return None
