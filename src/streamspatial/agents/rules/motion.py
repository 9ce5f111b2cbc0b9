"""Rules for moving actors and changed surfaces, from the memory's dynamic log only.

* which way a named track is moving (OVO-S 1.3.3) and whether a person stands or walks
  (1.3.5): its plan-view displacement over the last second, split into the part along the
  line of sight (toward / away) and across it (left / right), from the camera's current place;
* which of two named tracks moved faster over the last second, or about the same (1.3.4):
  displacement over time;
* what changed on a surface (3.2.1) and by how many (UCS Quantity Change Tracking): the tracks
  seen on the surface's box during its previous visit against those seen during its latest;
* where a carried prop went (UCS Object Trajectory): the last surface its track rested on,
  the surface it rested on before that, and which side of the view the last one lay on when
  the prop was set down.

Where a prop is on a surface, moved or resting, and the window motion is judged over are the
generator's own lines (:mod:`streamspatial.bench.conventions`); the speeds that split the
classes lie between the generator's (which asks only where the classes are far apart): here
the nearest class is taken.
"""

from __future__ import annotations

import itertools
import math
import re

from streamspatial.agents.rules.boxes import box
from streamspatial.agents.rules.context import Answer, RuleContext, text_option
from streamspatial.agents.scene_graph import ObjectNode, ego_relation, find_mentions
from streamspatial.agents.scene_graph.dynamic import ActorSighting, DynamicFrame
from streamspatial.bench.conventions import (
    FLOOR_Z,
    MOVED_M,
    ON_HEIGHT_M,
    ON_MARGIN_M,
    REST_M,
    WINDOW_S,
)

WINDOW_TOL_S = 0.15  # the sighting a second ago may be this far from exactly one second

STILL_MPS = 0.15  # between the generator's "stationary" (< 0.05) and "moving" (> 0.3)

# between the generator's "about the same" (within 1.15x) and "faster" (at least 1.6x)
SAME_SPEED_RATIO = 1.35

NOT_PLACED = frozenset(
    {"person"}
)  # tracks never set down on a surface  # a track this still between two sightings is resting

Sightings = list[tuple[DynamicFrame, ActorSighting]]

# option words per class
DIRECTION_WORDS = {
    "toward": "toward",
    "away": "away",
    "left": "left",
    "right": "right",
    "stationary": "not moving",
}

STATE_WORDS = {"stationary": "standing still", "toward": "toward", "away": "away"}

CHANGE_WORDS = {
    "added": "have appeared",
    "removed": "have disappeared",
    "moved": "has been moved",
    "unchanged": "nothing on it",
}

COUNT_WORDS = {0: "none", 1: "one", 2: "two"}


def named_track(ctx: RuleContext) -> Sightings | None:
    """The dynamic track the question names ("the red ball", "the person")."""
    low = ctx.question.lower()
    tracks = ctx.memory.dynamic.tracks()
    best: tuple[int, int] | None = None
    for tid, s in tracks.items():
        label, color = s[-1][1].label.lower(), s[-1][1].color.lower()
        for score, phrase in ((2, f"{color} {label}"), (1, label)):
            if re.search(rf"\bthe {re.escape(phrase)}\b", low):
                if best is None or score > best[0]:
                    best = (score, tid)
                break
    return None if best is None else tracks[best[1]]


def _window(ctx: RuleContext, s: Sightings):
    """(sighting a second ago, sighting now, seconds between) or None."""
    now = ctx.memory.time
    if not s or abs(s[-1][0].time - now) > 1e-6:
        return None
    t0 = now - WINDOW_S
    f0, a0 = min(s, key=lambda fa: abs(fa[0].time - t0))
    if abs(f0.time - t0) > WINDOW_TOL_S:
        return None
    return a0, s[-1][1], now - f0.time


def _direction(ctx: RuleContext) -> str | None:
    s = named_track(ctx)
    w = None if s is None else _window(ctx, s)
    pose = ctx.memory.pose
    if w is None or pose is None:
        return None
    a0, a1, dt = w
    dx, dy = a1.position[0] - a0.position[0], a1.position[1] - a0.position[1]
    if math.hypot(dx, dy) / dt < STILL_MPS:
        return "stationary"
    rx, ry = a1.position[0] - pose.position[0], a1.position[1] - pose.position[1]
    r = math.hypot(rx, ry) or 1.0
    radial = (dx * rx + dy * ry) / r
    lateral = (-dx * ry + dy * rx) / r
    if abs(radial) >= abs(lateral):
        return "toward" if radial < 0 else "away"
    return "left" if lateral > 0 else "right"


def _motion_separation(ctx: RuleContext) -> Answer:
    d = _direction(ctx)
    return None if d is None else text_option(ctx, DIRECTION_WORDS[d])


def _motion_state(ctx: RuleContext) -> Answer:
    d = _direction(ctx)
    return None if d is None else text_option(ctx, STATE_WORDS.get(d, "across"))


def named_tracks(ctx: RuleContext) -> list[Sightings]:
    """Every dynamic track the question names, in the order it names them."""
    low = ctx.question.lower()
    found: dict[int, tuple[int, int]] = {}  # track → (position in the question, specificity)
    for tid, s in ctx.memory.dynamic.tracks().items():
        label, color = s[-1][1].label.lower(), s[-1][1].color.lower()
        for score, phrase in ((2, f"{color} {label}"), (1, label)):
            m = re.search(rf"\bthe {re.escape(phrase)}\b", low)
            if m:
                found[tid] = (m.start(), score)
                break
    # a bare label that is part of a longer named phrase ("the ball" in "the red ball") loses
    # to the specific one at the same place
    best: dict[int, tuple[int, int]] = {}
    for tid, (pos, score) in found.items():
        if pos not in best or score > best[pos][1]:
            best[pos] = (tid, score)
    tracks = ctx.memory.dynamic.tracks()
    return [tracks[tid] for _pos, (tid, _s) in sorted(best.items())]


def _relative_speed(ctx: RuleContext) -> Answer:
    """Which of the two named tracks moved faster over the last second, or about the same."""
    named = named_tracks(ctx)
    if len(named) != 2:
        return None
    speeds = []
    for s in named:
        w = _window(ctx, s)
        if w is None:
            return None
        a0, a1, dt = w
        speeds.append((math.dist(a0.position[:2], a1.position[:2]) / dt, s[-1][1]))
    (sa, ta), (sb, tb) = speeds
    if max(sa, sb) <= SAME_SPEED_RATIO * min(sa, sb):
        return text_option(ctx, "about the same")
    fast = ta if sa > sb else tb
    phrase = f"the {fast.color} {fast.label}".lower()
    for letter, text in ctx.options:
        if text.lower().strip() in (phrase, f"the {fast.label}".lower()):
            return letter
    return None


def _on(n: ObjectNode, pos: tuple[float, float, float]) -> bool:
    b = box(n)
    if b is None:
        return False
    (x0, y0, _), (x1, y1, z1) = b
    m, (lo, hi) = ON_MARGIN_M, ON_HEIGHT_M
    return x0 - m <= pos[0] <= x1 + m and y0 - m <= pos[1] <= y1 + m and lo <= pos[2] - z1 <= hi


def _asked_labels(ctx: RuleContext) -> set[str]:
    """Track labels the question or its options name (singular or plural): the props asked
    about, not a person passing by the surface."""
    text = " ".join([ctx.question, *(t for _, t in ctx.options)]).lower()
    labels = {a.label.lower() for f in ctx.memory.dynamic.frames for a in f.actors}
    return {lab for lab in labels if re.search(rf"\b{re.escape(lab)}(?:s|es)?\b", text)}


def _resting_on(ctx: RuleContext, n: ObjectNode, span: list[float]):
    """Track id → (label, last position) of the things seen on the surface during a visit (a
    person standing at a table is not on it, though a box around them may overlap its top)."""
    out = {}
    for f in ctx.memory.dynamic.until(span[1]):
        if f.time < span[0] - 1e-6:
            continue
        for a in f.actors:
            if a.label.lower() not in NOT_PLACED and _on(n, a.position):
                out[a.track_id] = (a.label, a.position)
    return out


def _surface(ctx: RuleContext) -> ObjectNode | None:
    """The static object the question names (a prop's label may be in the vocabulary too)."""
    for m in ctx.mentions:
        n = ctx.node(m)
        if n is not None:
            return n
    return None


def _visits_compared(ctx: RuleContext):
    """(tracks on the named surface at its previous visit, at its latest, the asked labels)."""
    n = _surface(ctx)
    if n is None or len(n.visits) < 2:
        return None
    a, b = _resting_on(ctx, n, n.visits[-2]), _resting_on(ctx, n, n.visits[-1])
    return a, b, _asked_labels(ctx)


def _change(ctx: RuleContext) -> str | None:
    """The asked-about category's change between the surface's previous visit and its latest
    (one change, or props all added or all removed; other categories may have changed too),
    or ``unchanged`` when nothing on it changed."""
    got = _visits_compared(ctx)
    if got is None:
        return None
    a, b, asked = got
    changed = {i: "added" for i in set(b) - set(a)}
    changed |= {i: "removed" for i in set(a) - set(b)}
    changed |= {i: "moved" for i in set(a) & set(b) if math.dist(a[i][1], b[i][1]) > MOVED_M}
    if not changed:
        return "unchanged"
    label = {i: v[0].lower() for i, v in (a | b).items()}
    mine = [cls for i, cls in changed.items() if label[i] in asked]
    if len(mine) == 1 or (len(set(mine)) == 1 and mine[0] in ("added", "removed")):
        return mine[0]  # one change, or all added or all removed ("one or more appeared")
    return None


def _change_detection(ctx: RuleContext) -> Answer:
    c = _change(ctx)
    return None if c is None else text_option(ctx, CHANGE_WORDS[c])


def _quantity_change(ctx: RuleContext) -> Answer:
    """The net change in the count of the asked category's tracks on the surface."""
    got = _visits_compared(ctx)
    if got is None:
        return None
    a, b, asked = got
    delta = sum(v[0].lower() in asked for v in b.values())
    delta -= sum(v[0].lower() in asked for v in a.values())
    word = COUNT_WORDS.get(abs(delta))
    if word is None:
        return None
    for letter, text in ctx.options:
        low = text.lower()
        if low.startswith(word) and (delta == 0 or ("added" in low) == (delta > 0)):
            return letter
    return None


# A rest is on a surface node, or on the floor (``FLOOR``): a still prop this low on no node.
FLOOR = "floor"

# (node id or FLOOR, the node, the rest's first frame, the prop's sighting there)
Rest = tuple[int | str, ObjectNode | None, DynamicFrame, ActorSighting]


def _rests(ctx: RuleContext, s: Sightings) -> list[Rest]:
    """Places the track rested on, in order, with the first frame of each rest."""
    out: list[Rest] = []
    nodes = ctx.memory.nodes()
    for (f0, a0), (_f1, a1) in itertools.pairwise(s):
        if math.dist(a0.position, a1.position) > REST_M:
            continue
        n = next((n for n in nodes if _on(n, a1.position)), None)
        key = n.node_id if n is not None else FLOOR if a1.position[2] <= FLOOR_Z else None
        if key is not None and (not out or out[-1][0] != key):
            out.append((key, n, f0, a1))
    return out


_TRAJECTORY = re.compile(r"lifted from the (.+?), it moved in a straight line to the (.+?) on the")


def _option_places(ctx: RuleContext, text: str) -> tuple[int | str, int | str] | None:
    """(from, to) keys an Object Trajectory option names: node ids, or ``FLOOR``."""
    m = _TRAJECTORY.search(text)
    if m is None:
        return None
    keys: list[int | str] = []
    for part in m.groups():
        if part.lower() == FLOOR:
            keys.append(FLOOR)
            continue
        ms = find_mentions(part, ctx.labels, ctx.attributes)
        node = ctx.node(ms[0]) if ms else None
        if node is None:
            return None
        keys.append(node.node_id)
    return keys[0], keys[1]


def _object_trajectory(ctx: RuleContext) -> Answer:
    s = named_track(ctx)
    rests = [] if s is None else _rests(ctx, s)
    if len(rests) < 2:
        return None
    (a, *_), (b, node, put, where) = rests[-2], rests[-1]
    # the pose of the set-down frame itself, kept with the sighting: minutes later the
    # memory's pose chain holds only keyframes, and the nearest may face elsewhere
    at = where.position if node is None else node.position
    side = "left" if float(ego_relation(put.pose, at)["bearing_deg"]) > 0 else "right"
    for letter, text in ctx.options:
        if _option_places(ctx, text) == (a, b) and re.search(rf"\b{side}\b", text.lower()):
            return letter
    return None
