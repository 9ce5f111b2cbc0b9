"""Rules over the object nodes: where each perceived object is, how big, when it was first seen.

* counts of a label (or of a group's labels) among the nodes so far;
* distances between two objects, and from the camera now; which option is nearest, farthest,
  closest to an anchor, or was approached over the last seconds;
* where an object lies from here (ahead, left, right, behind) and the turn between two others;
* the order objects were first seen in, and an object's size;
* the second turn of an S3 chain: "that object" is the one the reasoner itself named in its
  earlier answer (``RuleContext.previous``), placed from the camera or from another object.
"""

from __future__ import annotations

import math

from streamspatial.agents.rules.context import (
    Answer,
    RuleContext,
    best_option,
    nearest_number_option,
    sector_option,
)
from streamspatial.agents.scene_graph import ObjectNode, ego_relation, find_mentions


def _cam_dist(ctx: RuleContext, n: ObjectNode) -> float:
    assert ctx.memory.pose is not None
    return math.dist(ctx.memory.pose.position, n.position)


def _count(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    if labels is None:
        return None
    n = sum(1 for x in ctx.memory.nodes() if x.label in labels)
    return float(n) if not ctx.item.options else nearest_number_option(ctx, n)


def _pair_distance(ctx: RuleContext) -> Answer:
    if len(ctx.mentions) < 2:
        return None
    a, b = ctx.node(ctx.mentions[0]), ctx.node(ctx.mentions[1])
    if a is None or b is None:
        return None
    d = math.dist(a.position, b.position)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _cam_obj_distance(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None:
        return None
    d = _cam_dist(ctx, n)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _depth_ordering(ctx: RuleContext) -> Answer:
    ask = str(ctx.params.get("ask", ""))
    farther = "farther" in ask or ("farther" in ctx.item.question.lower() and not ask)
    sign = -1.0 if farther else 1.0
    return best_option(ctx, lambda n: sign * _cam_dist(ctx, n))


def _closest(ctx: RuleContext) -> Answer:
    return best_option(ctx, lambda n: _cam_dist(ctx, n))


def _approached(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    before = mem.pose_at(mem.time - ctx.seconds(3.0))
    if before is None or mem.pose is None:
        return None
    return best_option(
        ctx,
        lambda n: (
            math.dist(mem.pose.position, n.position)  # type: ignore[union-attr]
            - math.dist(before.position, n.position)
        ),
    )


def _proximity(ctx: RuleContext) -> Answer:
    anchor = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if anchor is None:
        return None
    scored = []
    for letter, text in ctx.options:
        ms = find_mentions(text, ctx.labels)
        if not ms:
            continue
        ds = [
            math.dist(anchor.position, n.position)
            for n in ctx.memory.nodes()
            if n.label == ms[0].label and n.node_id != anchor.node_id
        ]
        if ds:
            scored.append((min(ds), letter))
    return min(scored)[1] if scored else None


def _behind_camera(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None or ctx.memory.pose is None:
        return None
    return sector_option(ctx, str(ego_relation(ctx.memory.pose, n.position)["sector"]))


def _relative_orientation(ctx: RuleContext) -> Answer:
    if len(ctx.mentions) < 3:
        return None
    a, b, c = (ctx.node(m) for m in ctx.mentions[:3])
    if a is None or b is None or c is None:
        return None
    ab = (b.position[0] - a.position[0], b.position[1] - a.position[1])
    ac = (c.position[0] - a.position[0], c.position[1] - a.position[1])
    cross = ab[0] * ac[1] - ab[1] * ac[0]
    ang = math.degrees(math.atan2(abs(cross), ab[0] * ac[0] + ab[1] * ac[1]))
    sector = "behind" if ang > 135 else ("left" if cross > 0 else "right")
    return sector_option(ctx, sector)


def _first_appeared(ctx: RuleContext) -> Answer:
    return best_option(ctx, lambda n: n.first_seen)


def _sequence(ctx: RuleContext) -> Answer:
    best, best_score = None, -math.inf
    for letter, text in ctx.options:
        nodes = [ctx.node(m) for m in find_mentions(text, ctx.labels, ctx.attributes)]
        if len(nodes) < 2 or any(n is None for n in nodes):
            continue
        times = [n.first_seen for n in nodes]  # type: ignore[union-attr]
        score = sum(
            1 if times[i] < times[j] else -1
            for i in range(len(times))
            for j in range(i + 1, len(times))
        )
        if score > best_score:
            best, best_score = letter, score
    return best


def _attribute(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None or n.size is None:
        return None
    return float(max(n.size))


def _distance_comparison(ctx: RuleContext) -> Answer:
    pose = ctx.memory.pose
    if pose is None:
        return None
    return best_option(ctx, lambda n: math.dist(pose.position, n.position))


def _previous(ctx: RuleContext) -> ObjectNode | None:
    return ctx.node(ctx.previous[0]) if ctx.previous else None


def _tem_horizontal_direction(ctx: RuleContext) -> Answer:
    n, pose = _previous(ctx), ctx.memory.pose
    if n is None or pose is None:
        return None
    ahead, left, _ = pose.to_ego(n.position)
    label = ("front-" if ahead >= 0 else "back-") + ("left" if left > 0 else "right")
    return next((letter for letter, t in ctx.options if t.lower() == label), None)


def _tem_spatial_distance_ref(ctx: RuleContext) -> Answer:
    n = _previous(ctx)
    refs = [m for m in ctx.mentions if m.start >= ctx.question.find("distance from that")]
    ref = ctx.node(refs[-1]) if refs else None
    if n is None or ref is None:
        return None
    d = math.dist(n.position, ref.position)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _tem_cam_obj_distance_ref(ctx: RuleContext) -> Answer:
    n, pose = _previous(ctx), ctx.memory.pose
    if n is None or pose is None:
        return None
    return math.dist(pose.position, n.position)
