"""Rules over the rooms as walked: visits, the doorways walked between them, the log of entries.

* whether and how often the camera came back to a room, which was seen first, where it stayed
  longer (OVO-S L2 room memory);
* reachability without a room, the first room of the shortest walked route, with a doorway
  blocked, and the rooms a room was entered from (L3, L4 topology), searched over the doorways
  the walk went through (``memory.adjacency``);
* the cardinal direction between two rooms, north fixed by the start heading the question gives
  (L4 allocentric);
* where an object was relative to the way one faced on first entering its room, and the rooms
  walked into after last leaving one (UCS-Bench, ``memory.scene_log``).
"""

from __future__ import annotations

import math
import re

from streamspatial.agents.rules.context import (
    Answer,
    RuleContext,
    scene_option,
    scenes_in,
    sector_option,
    text_option,
)
from streamspatial.agents.scene_graph import SceneGraphMemory, ego_relation
from streamspatial.bench.conventions import CARDINALS, COMPASS8, SAME_STAY_RATIO


def _revisit_detection(ctx: RuleContext) -> Answer:
    v = ctx.memory.visits.get(ctx.memory.scene or "")
    return None if v is None else text_option(ctx, "Yes" if v.entries >= 2 else "No")


def _revisit_counting(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.item.question)
    if not tags:
        return None
    n = ctx.memory.visits[tags[0]].entries
    return text_option(ctx, str(n)) if ctx.item.options else float(n)


def _chronological_recall(ctx: RuleContext) -> Answer:
    return scene_option(ctx, lambda tag: ctx.memory.visits[tag].first_seen)


def _temporal_depth(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.item.question)
    if len(tags) < 2:
        return None
    fa, fb = (ctx.memory.visits[t].frames for t in tags[:2])
    if max(fa, fb) <= SAME_STAY_RATIO * min(fa, fb):
        for letter, text in ctx.options:
            if "same" in text.lower():
                return letter
    return scene_option(ctx, lambda tag: -ctx.memory.visits[tag].frames)


def _reachability(ctx: RuleContext) -> Answer:
    """ "Can you reach X from here without passing through Y": search the walked doorways."""
    tags = scenes_in(ctx, ctx.item.question)
    here = ctx.memory.scene
    if len(tags) < 2 or here is None:
        return None
    target, banned = tags[0], tags[1]
    seen, todo = {here}, [here]
    while todo:
        cur = todo.pop()
        for nxt in ctx.memory.adjacency.get(cur, ()):
            if nxt not in seen and nxt != banned:
                seen.add(nxt)
                todo.append(nxt)
    return text_option(ctx, "Yes" if target in seen else "No")


def _optimal_path(ctx: RuleContext) -> Answer:
    """The first room of the shortest walked route from here to the named room."""
    tags = scenes_in(ctx, ctx.item.question)
    here = ctx.memory.scene
    if not tags or here is None:
        return None
    parent: dict[str, str | None] = {here: None}
    frontier = [here]
    while frontier and tags[0] not in parent:
        nxt = []
        for cur in frontier:
            for n in sorted(ctx.memory.adjacency.get(cur, ())):
                if n not in parent:
                    parent[n] = cur
                    nxt.append(n)
        frontier = nxt
    if tags[0] not in parent:
        return None
    step = tags[0]
    while parent[step] not in (here, None):
        step = parent[step]  # type: ignore[assignment]
    return scene_option(ctx, lambda tag: 0.0 if tag == step else 1.0)


def _topology(ctx: RuleContext) -> Answer:
    """The option naming exactly the rooms entered from (or into) the named one."""
    tags = scenes_in(ctx, ctx.item.question)
    if not tags:
        return None
    truth = ctx.memory.adjacency.get(tags[0], set())
    for letter, text in ctx.options:
        if set(scenes_in(ctx, text)) == truth:
            return letter
    return None


def _rerouting(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.question)
    here = ctx.memory.scene
    if len(tags) < 3 or here is None:
        return None
    a, b, target = tags[0], tags[1], tags[-1]
    graph = {k: set(v) for k, v in ctx.memory.adjacency.items()}
    graph.get(a, set()).discard(b)
    graph.get(b, set()).discard(a)
    parent: dict[str, str | None] = {here: None}
    frontier = [here]
    while frontier and target not in parent:
        nxt = []
        for cur in frontier:
            for n in sorted(graph.get(cur, ())):
                if n not in parent:
                    parent[n] = cur
                    nxt.append(n)
        frontier = nxt
    if target not in parent:
        return text_option(ctx, "no other way")
    step = target
    while parent[step] not in (here, None):
        step = parent[step]  # type: ignore[assignment]
    for letter, text in ctx.options:
        if scenes_in(ctx, text)[:1] == [step]:
            return letter
    return None


# the start heading a question gives → degrees clockwise from north
COMPASS_DEG = {word: 45 * i for i, word in enumerate(COMPASS8)}


def _allocentric_direction(ctx: RuleContext) -> Answer:
    """The start heading the question gives fixes north; place centres give the bearing."""
    low = ctx.item.question.lower()
    facing = next(
        (deg for word, deg in sorted(COMPASS_DEG.items(), key=lambda x: -len(x[0]))
         if re.search(rf"facing (?:roughly )?{word}\b", low)),
        None,
    )  # fmt: skip
    tags = scenes_in(ctx, ctx.item.question)
    mem = ctx.memory
    if facing is None or len(tags) < 2 or not mem.chain:
        return None
    north_yaw = mem.chain[0].yaw + math.radians(facing)
    a, b = (_room_centre(mem, t) for t in tags[:2])
    if a is None or b is None:
        return None
    bearing = math.degrees(north_yaw - math.atan2(a[1] - b[1], a[0] - b[0])) % 360
    return text_option(ctx, CARDINALS[round(bearing / 90) % 4])


def _room_centre(mem: SceneGraphMemory, tag: str) -> tuple[float, float] | None:
    """The perceived room's floor centroid; without a layout, where the walk was in it."""
    room = mem.rooms.get(tag)
    if room is None:
        return mem.scene_center(tag)
    pts = [tuple(q) for q in room["polygon"]]
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
        c = x0 * y1 - x1 * y0
        a, cx, cy = a + c, cx + (x0 + x1) * c, cy + (y0 + y1) * c
    return (cx / (3 * a), cy / (3 * a)) if abs(a) > 1e-9 else mem.scene_center(tag)


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
