"""Rules for UCS-Bench's user-centric questions (Table 7).

* where an object was, relative to the way one faced on first entering its room (the pose
  the memory logged on entering, ``memory.scene_log``);
* the rooms walked into after last leaving a room (the same log, in order);
* which of two objects is closer now; whether an object is within reach (its box, horizontally,
  within ``REACH_M``);
* which kind of object was seen in a room (objects on the room's perceived floor).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from streamspatial.agents.rule_context import (
    Answer,
    RuleContext,
    best_option,
    scenes_in,
    sector_option,
    text_option,
)
from streamspatial.agents.rules_scene import box
from streamspatial.agents.rules_space import contains, room_of
from streamspatial.agents.scene_graph import ego_relation, find_mentions

REACH_M = 0.9  # between the generator's "can" (≤ 0.6 m) and "cannot" (≥ 1.2 m)


def _relative_position(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.question)
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if not tags or n is None:
        return None
    entry = next((pose for scene, pose in ctx.memory.scene_log if scene == tags[0]), None)
    if entry is None:
        return None
    return sector_option(ctx, str(ego_relation(entry, n.position)["sector"]))


def _my_trajectory(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.question)
    log = [scene for scene, _ in ctx.memory.scene_log]
    if not tags or tags[0] not in log[:-1]:
        return None
    last = max(i for i, s in enumerate(log[:-1]) if s == tags[0])
    want = log[last + 1 : last + 3]
    for letter, text in ctx.options:
        if scenes_in(ctx, text) == want:
            return letter
    return None


def _distance_comparison(ctx: RuleContext) -> Answer:
    pose = ctx.memory.pose
    if pose is None:
        return None
    return best_option(ctx, lambda n: math.dist(pose.position, n.position))


def _reachability(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    pose = ctx.memory.pose
    b = None if n is None else box(n)
    if b is None or pose is None:
        return None
    x, y = pose.position[0], pose.position[1]
    d = math.hypot(max(b[0][0] - x, 0.0, x - b[1][0]), max(b[0][1] - y, 0.0, y - b[1][1]))
    return text_option(ctx, "You can reach" if d <= REACH_M else "You cannot reach")


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


RULES: dict[str, Callable[[RuleContext], Answer]] = {
    "relative_position": _relative_position,
    "my_trajectory": _my_trajectory,
    "distance_comparison": _distance_comparison,
    "reach": _reachability,
    "category_recall": _category_recall,
}

__all__ = ["RULES"]
