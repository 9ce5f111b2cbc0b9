"""Rules over object boxes and the latest frame: local relations and imagined changes.

Object boxes are the memory's anchors and sizes (a 3D detector's world-axis extents); the
latest frame is ``memory.in_view`` (each node's image box and depth as last perceived).

* sizes: which of two objects is larger / smaller (box volume);
* support: which box's top the object rests on (or the floor), and "is X on top of Y";
* occlusion: the nearer object whose image box covers most of X's, or nothing;
* left-to-right order of objects in the frame (image box centres);
* whether an object is within reach (its box, horizontally, within ``REACH_M``);
* turned 90°, does X fit the gap between Y and Z; with X removed, is the floor path to Y
  free; could X stand on Y.
"""

from __future__ import annotations

import math

from streamspatial.agents.rules.context import Answer, RuleContext, best_option, text_option
from streamspatial.agents.scene_graph import ObjectNode, find_mentions

Box = tuple[tuple[float, float, float], tuple[float, float, float]]

REST_M = 0.08  # an object rests on a surface its bottom is this close to

NEARER_M = 0.3  # an occluder is this much nearer than what it hides

OCCLUDED = 0.1  # share of X's image box a nearer object must cover to count as blocking


def box(n: ObjectNode) -> Box | None:
    if n.size is None:
        return None
    c, s = n.position, n.size
    return (
        (c[0] - s[0] / 2, c[1] - s[1] / 2, c[2] - s[2] / 2),
        (c[0] + s[0] / 2, c[1] + s[1] / 2, c[2] + s[2] / 2),
    )


def _nodes(ctx: RuleContext, k: int) -> list[ObjectNode] | None:
    if len(ctx.mentions) < k:
        return None
    nodes = [ctx.node(m) for m in ctx.mentions[:k]]
    return None if any(n is None or n.size is None for n in nodes) else nodes  # type: ignore[misc]


def _volume(n: ObjectNode) -> float:
    s = n.size or (0.0, 0.0, 0.0)
    return s[0] * s[1] * s[2]


def _relative_scale(ctx: RuleContext) -> Answer:
    smaller = "smaller" in str(ctx.params.get("ask", "")) or "smaller" in ctx.question.lower()
    return best_option(ctx, lambda n: _volume(n) if smaller else -_volume(n))


def rests_on(x: ObjectNode, y: ObjectNode) -> bool:
    bx, by = box(x), box(y)
    if bx is None or by is None or x.node_id == y.node_id:
        return False
    cx, cy = x.position[0], x.position[1]
    inside = by[0][0] <= cx <= by[1][0] and by[0][1] <= cy <= by[1][1]
    return inside and abs(bx[0][2] - by[1][2]) <= REST_M


def _containment(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 2)
    if got is None:
        return None
    return text_option(ctx, "Yes" if rests_on(got[0], got[1]) else "No")


def _support(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 1)
    if got is None:
        return None
    x = got[0]
    under = [n for n in ctx.memory.nodes() if rests_on(x, n)]
    if under:
        top = max(under, key=lambda n: n.position[2])
        for letter, text in ctx.options:
            ms = find_mentions(text, ctx.labels, ctx.attributes)
            if ms and ctx.node(ms[0]) is top:
                return letter
        return None
    bx = box(x)
    return text_option(ctx, "floor") if bx is not None and bx[0][2] <= REST_M else None


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h) / max(1.0, (a[2] - a[0]) * (a[3] - a[1]))


def _occlusion(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 1)
    view = {v.node_id: v for v in ctx.memory.in_view if v.bbox is not None and v.depth is not None}
    if got is None or got[0].node_id not in view:
        return None
    x = view[got[0].node_id]
    cover = {
        nid: _overlap(x.bbox, v.bbox)
        for nid, v in view.items()
        if nid != x.node_id and v.depth < x.depth - NEARER_M  # type: ignore[operator]
    }
    best = max(cover, key=lambda nid: cover[nid], default=None)
    if best is None or cover[best] < OCCLUDED:
        return text_option(ctx, "nothing")
    for letter, text in ctx.options:
        ms = find_mentions(text, ctx.labels, ctx.attributes)
        n = ctx.node(ms[0]) if ms else None
        if n is not None and n.node_id == best:
            return letter
    return None


def _local_topology(ctx: RuleContext) -> Answer:
    view = {v.node_id: v for v in ctx.memory.in_view if v.bbox is not None}
    best, best_score = None, -1
    for letter, text in ctx.options:
        nodes = [ctx.node(m) for m in find_mentions(text, ctx.labels, ctx.attributes)]
        if len(nodes) < 2 or any(n is None or n.node_id not in view for n in nodes):
            continue
        xs = [(view[n.node_id].bbox[0] + view[n.node_id].bbox[2]) / 2 for n in nodes]  # type: ignore[union-attr,index]
        score = sum(xs[i] < xs[j] for i in range(len(xs)) for j in range(i + 1, len(xs)))
        if score > best_score:
            best, best_score = letter, score
    return best


def _mental_rotation(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 3)
    if got is None:
        return None
    x, y, z = got
    bx, by, bz = box(x), box(y), box(z)
    dx, dy = abs(y.position[0] - z.position[0]), abs(y.position[1] - z.position[1])
    axis = 0 if dx >= dy else 1
    gap = max(by[0][axis], bz[0][axis]) - min(by[1][axis], bz[1][axis])  # type: ignore[index]
    turned = bx[1][1 - axis] - bx[0][1 - axis]  # type: ignore[index]
    return text_option(ctx, "Yes" if turned < gap else "No")


def _floor_hits(a, b, bx: Box) -> bool:
    t0, t1 = 0.0, 1.0
    for i in range(2):
        d = b[i] - a[i]
        lo, hi = bx[0][i], bx[1][i]
        if abs(d) < 1e-12:
            if not lo <= a[i] <= hi:
                return False
            continue
        u, v = (lo - a[i]) / d, (hi - a[i]) / d
        t0, t1 = max(t0, min(u, v)), min(t1, max(u, v))
        if t0 > t1:
            return False
    return True


def _what_if(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 2)
    pose = ctx.memory.pose
    if got is None or pose is None:
        return None
    x, y = got
    here, end = pose.position[:2], y.position[:2]
    rest = [
        n
        for n in ctx.memory.nodes()
        if n.node_id not in (x.node_id, y.node_id)
        and (b := box(n)) is not None
        and _floor_hits(here, end, b)
    ]
    return text_option(ctx, "No" if rest else "Yes")


def _feasibility(ctx: RuleContext) -> Answer:
    got = _nodes(ctx, 2)
    if got is None:
        return None
    x, y = got
    need = sorted(x.size[:2])  # type: ignore[index]
    top = sorted(y.size[:2])  # type: ignore[index]
    return text_option(ctx, "Yes" if all(n < t for n, t in zip(need, top, strict=True)) else "No")


REACH_M = 0.9  # between the generator's "can" (≤ 0.6 m) and "cannot" (≥ 1.2 m)


def _reachability(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    pose = ctx.memory.pose
    b = None if n is None else box(n)
    if b is None or pose is None:
        return None
    x, y = pose.position[0], pose.position[1]
    d = math.hypot(max(b[0][0] - x, 0.0, x - b[1][0]), max(b[0][1] - y, 0.0, y - b[1][1]))
    return text_option(ctx, "You can reach" if d <= REACH_M else "You cannot reach")
