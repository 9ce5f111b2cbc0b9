"""Ground truth of things that move and change, read from a causal prefix (scene.schedule).

Shared by the motion families (OVO-S 1.3.3–1.3.5, :mod:`.ovos_motion`) and the change
families (OVO-S 3.2.1 and UCS-Bench Quantity Change Tracking / Object Trajectory,
:mod:`.changes`).  Every answer is computed from actor poses at prefix frames (never later)
and only where the prefix *showed* it: the actor in ``FrameRecord.dynamic`` throughout the
window asked about, the surface in view at both visits a change is asked about.

Classes are computed from poses rather than from ``Event.detail``: the event list only says
where to look, so a planner's detail keys may change without changing an answer.  The rules
(:mod:`streamspatial.agents.rules.motion`) repeat the same geometry from perceived tracks;
the thresholds below leave a margin between classes that neither side could misjudge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamspatial.bench.conventions import (
    MOVED_M,
    ON_HEIGHT_M,
    ON_MARGIN_M,
    VISIT_GAP_S,
    WINDOW_S,
)
from streamspatial.scene.types import SceneObject

from .naming import category_text, object_ref
from .prefix import Prefix, Run

STILL_MPS = 0.05  # an actor slower than this is stationary
MOVING_MPS = 0.3  # …faster than this is moving; in between, no question is asked
AXIS_SHARE = 0.85  # toward/away: |radial| ≥ this share of the displacement; left/right: lateral
CAM_STILL_M = 0.05  # the camera moved less than this over the window…
CAM_STILL_RAD = math.radians(3.0)  # …and turned less than this: "toward me" is unambiguous
SPEED_RATIO = 1.6  # "faster": at least this many times the other's speed
MOVERS = ("person", "ball", "prop")  # actor kinds that translate (door leaves and pendulums swing)

DIRECTIONS = ("toward", "away", "left", "right", "stationary")


def actor_ref(p: Prefix, actor_id: int) -> str | None:
    """The actor's unambiguous name among the schedule's actors ("person", "red ball")."""
    a = p.actor(actor_id)
    others = [b for b in p.actors if b.actor_id != actor_id]
    cat = category_text(a.category)
    if not any(b.category == a.category for b in others):
        return cat
    if not any(b.category == a.category and b.color == a.color for b in others):
        return f"{a.color} {cat}"
    return None


def seen_throughout(p: Prefix, actor_id: int, j: int, k: int) -> bool:
    return all(actor_id in p.dynamic_seen(p.frames[i]) for i in range(j, k + 1))


def camera_still(p: Prefix, j: int, k: int) -> bool:
    a, b = p.frames[j].pose, p.frames[k].pose
    turn = abs(math.atan2(math.sin(b.yaw - a.yaw), math.cos(b.yaw - a.yaw)))
    return math.dist(a.position[:2], b.position[:2]) < CAM_STILL_M and turn < CAM_STILL_RAD


def direction_class(
    cam: tuple[float, float], a0: tuple[float, float], a1: tuple[float, float], dt: float
) -> str | None:
    """How an actor moved from ``a0`` to ``a1`` over ``dt`` s, seen from a still camera at
    ``cam`` (plan view): toward / away / left / right / stationary, or None when unclear."""
    dx, dy = a1[0] - a0[0], a1[1] - a0[1]
    d = math.hypot(dx, dy)
    if d / dt < STILL_MPS:
        return "stationary"
    if d / dt < MOVING_MPS:
        return None
    rx, ry = a1[0] - cam[0], a1[1] - cam[1]
    r = math.hypot(rx, ry)
    if r < 0.3:
        return None
    rx, ry = rx / r, ry / r
    radial = dx * rx + dy * ry
    lateral = dx * -ry + dy * rx  # along the camera's left of the line of sight
    if abs(radial) >= AXIS_SHARE * d:
        return "toward" if radial < 0 else "away"
    if abs(lateral) >= AXIS_SHARE * d:
        return "left" if lateral > 0 else "right"
    return None


@dataclass(frozen=True)
class Motion:
    actor_id: int
    kind: str
    start: int  # prefix frame the window starts at
    cls: str
    speed: float  # m/s over the window


def window_start(p: Prefix) -> int | None:
    j = p.k - p.frames_back(WINDOW_S)
    return j if j >= 0 else None


def motions(p: Prefix, kinds: tuple[str, ...] = MOVERS) -> list[Motion]:
    """Each named actor seen throughout the last second, with its class from a still camera."""
    j = window_start(p)
    if j is None or not p.dynamic or not camera_still(p, j, p.k):
        return []
    out = []
    cam = p.camera_xy()
    dt = p.t(p.k) - p.t(j)
    for aid in sorted(p.dynamic_seen(p.now)):
        a = p.actor(aid)
        if a.kind not in kinds or actor_ref(p, aid) is None or not seen_throughout(p, aid, j, p.k):
            continue
        a0, a1 = p.actor_pose(aid, j).position, p.actor_pose(aid, p.k).position
        cls = direction_class(cam, a0[:2], a1[:2], dt)
        if cls is not None:
            out.append(Motion(aid, a.kind, j, cls, math.dist(a0[:2], a1[:2]) / dt))
    return out


def speed(p: Prefix, j: int, actor_id: int | None) -> float:
    """Plan-view speed over frames ``j..k`` of an actor, or of the camera (``None``)."""
    dt = p.t(p.k) - p.t(j)
    if actor_id is None:
        return math.dist(p.camera_xy(j), p.camera_xy()) / dt
    a0, a1 = p.actor_pose(actor_id, j).position, p.actor_pose(actor_id, p.k).position
    return math.dist(a0[:2], a1[:2]) / dt


# -- surfaces and the props on them ------------------------------------------------------


def on_surface(obj: SceneObject, pos: tuple[float, float, float]) -> bool:
    (x0, y0, _), (x1, y1, z1) = obj.aabb()
    m = ON_MARGIN_M
    lo, hi = ON_HEIGHT_M
    return x0 - m <= pos[0] <= x1 + m and y0 - m <= pos[1] <= y1 + m and lo <= pos[2] - z1 <= hi


def props_on(p: Prefix, surface: int, i: int) -> dict[int, tuple[float, float, float]]:
    """Props present on the surface at prefix frame ``i``: actor id → position."""
    obj = p.obj(surface)
    out = {}
    for a in p.actors:
        if a.kind != "prop":
            continue
        pose = p.actor_pose(a.actor_id, i)
        if pose.present and on_surface(obj, pose.position):
            out[a.actor_id] = pose.position
    return out


def _ball_on(p: Prefix, surface: int, run: Run) -> bool:
    """A ball lay on, or rolled over, the surface (a rug) at some frame of the visit.  Balls
    are no props, yet something on the surface all the same: on seed 7272 a ball lay still on
    a rug through one visit, the question said nothing on the rug had changed, and the rules
    agent, seeing it there, rightly answered nothing."""
    obj = p.obj(surface)
    balls = [a.actor_id for a in p.actors if a.kind == "ball"]
    return any(
        (pose := p.actor_pose(b, i)).present and on_surface(obj, pose.position)
        for b in balls
        for i in range(run.start, run.end + 1)
    )


def visits(p: Prefix, instance_id: int) -> list[Run]:
    """Stretches the object was in view, gaps shorter than ``VISIT_GAP_S`` bridged."""
    gap = p.frames_back(VISIT_GAP_S)
    out: list[Run] = []
    for r in p.visible_runs(instance_id):
        if out and r.start - out[-1].end <= gap:
            out[-1] = Run(instance_id, out[-1].start, r.end)
        else:
            out.append(r)
    return out


def steady_props(
    p: Prefix, surface: int, run: Run
) -> tuple[dict[int, tuple[float, float, float]], set[int]] | None:
    """The props on the surface during a visit, and those of them never seen in it (hidden
    behind another, or under the pixel threshold); None if the set changed while in view."""
    a, b = props_on(p, surface, run.start), props_on(p, surface, run.end)
    if set(a) != set(b) or any(math.dist(a[i], b[i]) > 0.02 for i in a):
        return None
    shown = set().union(*(p.dynamic_seen(p.frames[i]) for i in range(run.start, run.end + 1)))
    return a, set(a) - shown


@dataclass(frozen=True)
class Change:
    """What happened to one prop category on a surface between two visits: the previous one
    and the one in view (the camera looked away in between)."""

    surface: int
    first: Run  # the previous visit
    last: Run  # the latest visit
    cls: str  # "added" | "removed" | "moved" | "unchanged"; "" when P changed in two ways
    category: str  # P, the prop category the options name
    added: int  # props of P that appeared
    removed: int  # props of P that disappeared

    @property
    def delta(self) -> int:
        return self.added - self.removed


def change_class(kinds: list[str]) -> str:
    """One category's change from its props' changes: one change, or all added or all removed
    (what "one or more appeared" says); ``""`` for two ways (a move and an add)."""
    if len(kinds) == 1 or (len(set(kinds)) == 1 and kinds[0] in ("added", "removed")):
        return kinds[0]
    return ""


def surface_changes(p: Prefix, surface: int) -> list[Change]:
    """What changed on a surface between its previous visit and its latest, per prop category.

    A category with exactly one change (added, removed or moved), or whose props were all
    added or all removed (two cups put down), gets that class whatever happened to other
    categories; when no prop changed at all, every category present gets ``unchanged``; a
    category that changed in two ways gets ``""`` (its counts still hold).  The visits must
    show it: the props on the surface stay put through each visit, and a category is left out
    when one of its props was not seen in both.  "Nothing changed" needs every prop seen;
    with one hidden, the others' categories get ``""`` (their own counts still hold).  A top
    shared by two glance-backs holds four to seven props, and one of them hidden behind another
    used to cost the whole top: re-asked on the sixteen 5-minute walks of seed 70913, OVO-S
    3.2.1 went from 23 questions to 37.
    """
    vs = visits(p, surface)
    if len(vs) < 2 or object_ref(p.house, p.obj(surface)) is None:
        return []
    first, last = vs[-2], vs[-1]
    if _ball_on(p, surface, first) or _ball_on(p, surface, last):
        return []  # a ball came or went too: "nothing changed" would be false, "a box" unclear
    ga, gb = steady_props(p, surface, first), steady_props(p, surface, last)
    if ga is None or gb is None:
        return []
    (a, hid_a), (b, hid_b) = ga, gb
    hidden = hid_a | hid_b
    if not (a or b):
        return []
    changed = {i: "added" for i in set(b) - set(a)}
    changed |= {i: "removed" for i in set(a) - set(b)}
    changed |= {i: "moved" for i in set(a) & set(b) if math.dist(a[i], b[i]) > MOVED_M}
    cat = {i: p.actor(i).category for i in {*a, *b}}
    out = []
    for c in sorted(set(cat.values()) - {cat[i] for i in hidden}):
        mine = [cls for i, cls in changed.items() if cat[i] == c]
        cls = change_class(mine) if mine else "unchanged" if not (changed or hidden) else ""
        out.append(Change(surface, first, last, cls, c, mine.count("added"), mine.count("removed")))
    return out


def surface_change(p: Prefix, surface: int) -> Change | None:
    """The surface's change when it names one class only (tests and simple callers)."""
    got = [c for c in surface_changes(p, surface) if c.cls]
    return got[0] if len({c.cls for c in got}) == 1 else None


def all_changes(p: Prefix) -> list[Change]:
    """Every surface's per-category changes by the prefix's last frame."""
    return [c for s in change_surfaces(p) for c in surface_changes(p, s)]


def change_surfaces(p: Prefix) -> list[int]:
    """Furniture seen so far that held a prop at some prefix frame (candidates to ask about)."""
    if not p.actors:
        return []
    out = set()
    for o in p.house.objects:
        if o.kind != "furniture" or o.instance_id not in p.first_seen:
            continue
        for i in (0, p.k):
            if props_on(p, o.instance_id, i):
                out.add(o.instance_id)
    for e in p.events(("added", "removed", "moved", "carried")):
        for key in ("surface", "from_surface", "to_surface"):
            v = (e.detail or {}).get(key)
            if isinstance(v, int) and v in p.first_seen:
                out.add(v)
    return sorted(out)


def nearest_surface(p: Prefix, pos: tuple[float, float, float]) -> int | None:
    """The seen, nameable furniture the position rests on."""
    for o in p.house.objects:
        seen = o.kind == "furniture" and o.instance_id in p.first_seen
        if seen and on_surface(o, pos) and object_ref(p.house, o) is not None:
            return o.instance_id
    return None
