"""Carries: the person takes props from one place in view to another (UCS Object Trajectory).

A carry goes between two furniture tops in view, or between one top and a spot on the floor
in view (the paper's own options include "to the floor in the center of the living room"),
so most views with one top qualify.  The person stands at the first place from the
manoeuvre's first pose (out of the walk's view) and walks straight on free floor between the
two.  Where both places lie off the view's centre line, the carries go both ways in turn (a
prop from A to B, another from B to A, ...): each sets down on the other side of the view,
so a hold's carries balance UCS Object Trajectory's two answers by themselves, and no walk
back empty-handed takes the hold's time.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.schedule import Event, Waypoint
from streamspatial.scene.types import CameraPose
from streamspatial.sim.events.holds import PERSON_Z, Content, Ctx, _at
from streamspatial.sim.events.params import (
    CARRIES,
    CARRY_CATEGORIES,
    CARRY_PITCHES,
    CARRY_SPEED,
    CARRY_TIME,
    FLOOR_CARRY,
    FLOOR_SPOT_SIDE,
    HAND_Z,
    LIFT,
    PROP_SIZE,
    STAND_OFF,
    WATCH_PITCH,
)
from streamspatial.sim.events.scene import Surface, free_at, line_free, stand_points

HAND_SIDE = 0.28  # m: the prop is carried at the person's right hand
# UCS Object Trajectory asks on which side of the view the prop was set down (8° or more off
# the centre line, sim.qa.changes): a carry whose set-down place lies nearer the centre than
# this is not planned.  And a person standing in the line of sight to a prop hides it before
# the lift or after the set-down, when the question needs it seen resting: half a body
# width (0.25 m) plus a prop's half-width.
SIDE_CLEAR_DEG = 12.0
# A view whose two places both lie off the centre line is taken at once, turned so that its
# first carry sets down on the side wanted (its carries then go both ways in turn); else the
# side wanted is the one the walk's carries set down on less so far (either when even), and
# up to this many views are tried for a view of either kind before one carrying one way to
# the side wanted, or else to the other, is taken.  Carrying one way, the holds between two
# tops of twenty-four one-minute walks set 22 props down on the right and 13 on the left.
# (Drawn at random per view, before the side was wanted, the sixteen 5-minute walks of seed
# 70913 set 21 askable carries down on the left and 7 on the right, and Object Trajectory,
# balanced over the two, stopped at 17 items: a floor spot lies right of its top.)
SIDE_SEARCH = 12
# Floor carries tried per top: stands by it, and headings across the view from each (either
# way).  Three by three found a carry at a view that has one four times in ten draws.
FLOOR_STANDS = 6
FLOOR_HEADINGS = 6
# The prop rests in view a while before the first lift and after the last set-down (UCS
# Object Trajectory needs it seen resting in two frames at both ends; 0.2 s left one frame
# at 10 fps): s from the hold's start, and s kept before its end.
FIRST_LIFT = (0.6, 1.0)
REST_AFTER = 0.8
BODY_CLEAR = 0.35  # m


@dataclass(frozen=True)
class End:
    """One place of a carry: a furniture top (``surface`` its instance id) or the floor
    (``surface`` None, ``top`` 0), the spots props stand on there, and the room."""

    surface: int | None
    room: int | None
    top: float
    spots: tuple[tuple[float, float], ...]
    centre: tuple[float, float] | None = None  # a top's: where questions place it

    @staticmethod
    def of(s: Surface) -> End:
        return End(s.obj.instance_id, s.obj.room_id, s.top, tuple(s.spots), s.xy)

    def places(self, stand) -> list[tuple[float, float]]:
        """Where a question locates a prop set down here: the top's centre, or on the floor
        each spot a carry from ``stand`` uses."""
        return [self.centre] if self.centre is not None else _nearest(self, stand)


def carry_view(ctx: Ctx, anchor: CameraPose):
    """Where the camera watches a carry from, and its two ends with where to stand:
    ``(pose, ((end, stand), (end, stand)))``, or None.  Two tops where the view has them,
    else (or, now and then, anyway) a top and a floor spot."""
    xy = anchor.position[:2]
    tops = [
        s
        for s in ctx.surfaces
        if s.obj.instance_id not in ctx.used_surfaces and math.dist(xy, s.xy) <= 6.0
    ]
    floor_first = ctx.rng.random() < FLOOR_CARRY
    tries = [_floor_pairs, _top_pairs] if floor_first else [_top_pairs, _floor_pairs]
    want = wanted_side(ctx)
    same, other, left = None, None, SIDE_SEARCH
    for pairs in tries:
        for cand in pairs(ctx, anchor, tops):
            got = _watchable(ctx, anchor, *cand)
            if got is None:
                continue
            pose, ((a, pa), (b, pb)) = got
            if _side_of(pose, a, pa) is not None:  # both ways: the first set-down as wanted
                return got if _set_down_side(*got) == want else (pose, ((b, pb), (a, pa)))
            if _set_down_side(*got) == want:
                same = same or got
            else:
                other = other or got
            left -= 1
            if left <= 0:
                break
        if left <= 0:
            break
    return same or other


def wanted_side(ctx: Ctx) -> int:
    """The side of the view the next carry should set down on: left (+1) or right (-1),
    whichever the walk's carries so far set down on less, either at random when even."""
    n_left, n_right = ctx.carry_sides[1], ctx.carry_sides[-1]
    if n_left == n_right:
        return 1 if ctx.rng.random() < 0.5 else -1
    return 1 if n_left < n_right else -1


def _set_down_side(pose: CameraPose, pair) -> int:
    """The side of the view from ``pose`` a carry between ``pair``'s ends sets down on."""
    _, (b, pb) = pair
    return 1 if wrap_angle(_bearing(pose, b.places(pb)[0]) - pose.yaw) > 0 else -1


def _side_of(pose: CameraPose, end: End, stand) -> int | None:
    """The side of the view from ``pose`` (left +1, right -1) a place lies on, None where one
    of its spots lies within ``SIDE_CLEAR_DEG`` of the centre line or the spots straddle it."""
    offs = [math.degrees(wrap_angle(_bearing(pose, q) - pose.yaw)) for q in end.places(stand)]
    if min(map(abs, offs)) < SIDE_CLEAR_DEG or min(offs) * max(offs) < 0:
        return None
    return 1 if offs[0] > 0 else -1


def _top_pairs(ctx: Ctx, anchor: CameraPose, tops):
    pairs = [
        (a, b) for a, b in itertools.permutations(tops, 2) if 1.0 <= math.dist(a.xy, b.xy) <= 5.0
    ]
    for k in ctx.rng.permutation(len(pairs)):
        a, b = pairs[int(k)]
        walk = _carry_walk(ctx, a, b)
        if walk is not None:
            yield (End.of(a), walk[0]), (End.of(b), walk[1])


def _floor_pairs(ctx: Ctx, anchor: CameraPose, tops):
    """A top in the camera's room and a floor spot 1.2–3 m walk away across the view (so
    both stay in it), either way round."""
    room = ctx.room(anchor.position)
    c = np.array(anchor.position[:2])
    for k in ctx.rng.permutation(len(tops)):
        s = tops[int(k)]
        if s.obj.room_id != room:
            continue
        stands = stand_points(ctx.occ, s, STAND_OFF, k=6)
        if not stands:
            continue
        ahead = np.array(s.xy) - c
        side = math.atan2(ahead[1], ahead[0]) + math.pi / 2  # across the view
        for j in ctx.rng.permutation(len(stands))[:FLOOR_STANDS]:
            pa = np.array(stands[int(j)])
            turns = ctx.rng.uniform(-0.8, 0.8, size=FLOOR_HEADINGS)
            for ang in side + turns + ctx.rng.integers(2, size=FLOOR_HEADINGS) * math.pi:
                u = np.array([math.cos(ang), math.sin(ang)])
                pb = pa + u * float(ctx.rng.uniform(1.2, 3.0))
                right = np.array([u[1], -u[0]])
                spots = [pb + right * FLOOR_SPOT_SIDE + u * d for d in (0.0, 0.25)]
                if ctx.room(pb) != room or not free_at(ctx.occ, [pb, *spots]).all():
                    continue
                if not line_free(ctx.occ, pa, pb):
                    continue
                spot = tuple((round(float(q[0]), 4), round(float(q[1]), 4)) for q in spots)
                floor = End(None, room, 0.0, spot)
                top, far = (End.of(s), tuple(pa)), (floor, tuple(pb))
                yield (top, far) if ctx.rng.random() < 0.5 else (far, top)


def _watchable(ctx: Ctx, anchor: CameraPose, ea, eb):
    """The heading that sees both ends and both stands (the walk's own view sees neither
    stand: the person is there from the manoeuvre's first pose)."""
    (a, pa), (b, pb) = ea, eb
    ca, cb = _centre(a), _centre(b)
    mid = ((ca[0] + cb[0]) / 2 - anchor.position[0], (ca[1] + cb[1]) / 2 - anchor.position[1])
    # Look down enough to see both places (they lie lower than the eye).
    low = min(a.top, b.top) - anchor.position[2]
    pitch = float(np.clip(math.atan2(low, math.hypot(*mid)) * 0.6, -0.5, WATCH_PITCH))
    pts = [(*sp, e.top + 0.05) for e, p in ((a, pa), (b, pb)) for sp in _nearest(e, p)]
    stands = [(*pa, 1.0), (*pb, 1.0)]
    if ctx.seen(anchor, stands).any():
        return None
    heading = math.atan2(mid[1], mid[0])
    if _side_of(_at(anchor, heading, pitch), b, pb) is None:
        return None  # the set-down place straight ahead: left or right would be a guess
    xy = anchor.position[:2]
    if any(_blocks(xy, p, sp) for e, p in ((a, pa), (b, pb)) for sp in _nearest(e, p)):
        return None
    for pt in (pitch, *CARRY_PITCHES):  # a floor spot may need a steeper look down
        pose = _at(anchor, heading, pt)
        if ctx.seen(pose, pts + stands).all():
            return pose, ((a, pa), (b, pb))
    return None


def _bearing(anchor: CameraPose, xy) -> float:
    return math.atan2(xy[1] - anchor.position[1], xy[0] - anchor.position[0])


def _blocks(cam, stand, spot) -> bool:
    """The person standing at ``stand`` hides ``spot`` from the camera: the stand lies nearer
    than the spot, within ``BODY_CLEAR`` of the line of sight to it (plan view)."""
    c, s, q = (np.asarray(v, float)[:2] for v in (cam, stand, spot))
    d = q - c
    u = float(np.dot(s - c, d) / max(float(np.dot(d, d)), 1e-9))
    return 0.0 < u < 1.0 and float(np.hypot(*(c + u * d - s))) < BODY_CLEAR


def carry_spots(content: Content) -> list[tuple[int, tuple[float, float]]]:
    """(top, spot) for every furniture top spot the carried props stand on, before or after."""
    out = []
    for _, e in content.events:
        for end in ("from", "to"):
            if e.kind == "carried" and e.detail[f"{end}_surface"] is not None:
                out.append((e.detail[f"{end}_surface"], tuple(e.detail[end][:2])))
    return out


def _nearest(e: End, stand) -> list[tuple[float, float]]:
    """The spots a carry from or to ``stand`` uses (plan_carries takes the nearest first)."""
    return sorted(e.spots, key=lambda s: math.dist(s, stand))[: CARRIES[1]]


def _centre(e: End) -> tuple[float, float]:
    return tuple(np.mean(np.array(e.spots[:2]), axis=0))


def _carry_walk(ctx: Ctx, a: Surface, b: Surface):
    """Where to stand at each top so the walk between is straight on free floor (cached)."""
    key = ("walk", a.obj.instance_id, b.obj.instance_id)
    if key not in ctx.cache:
        best = None
        for pa in stand_points(ctx.occ, a, STAND_OFF):
            for pb in stand_points(ctx.occ, b, STAND_OFF):
                d = math.dist(pa, pb)
                if 1.0 <= d <= 4.5 and (best is None or d < best[0]) and line_free(ctx.occ, pa, pb):
                    best = (d, pa, pb)
        ctx.cache[key] = None if best is None else best[1:]
    return ctx.cache[key]


def _stocked(alternate: bool, want: int, n_a: int, n_b: int) -> tuple[int, int]:
    """How many props stand at A and at B when the hold starts: one way, a prop at A per
    carry; both ways, A's for the carries from A and B's for those from B, with one of B's
    spots left free for the first set-down."""
    if not alternate:
        n = min(want, n_a, n_b)
        return n, 0
    from_a, from_b = (want + 1) // 2, want // 2
    return min(from_a, n_a), max(0, min(from_b, n_b - 1))


def plan_carries(
    ctx: Ctx, pose: CameraPose, window, t0: float, t1: float, person: int, pair, next_id
) -> Content | None:
    """The person carries 2–3 props between places A and B, both in view: A to B, then B to A
    and so on where both places lie off the centre line (else each from A to B, walking back
    between)."""
    (sa, pa), (sb, pb) = pair
    rng = ctx.rng
    out = Content(visits={"person": []})
    want = int(rng.integers(CARRIES[0], CARRIES[1] + 1))
    ends = ((sa, np.asarray(pa)), (sb, np.asarray(pb)))
    sides = (_side_of(pose, sa, pa), _side_of(pose, sb, pb))
    alternate = None not in sides
    spots = (_nearest(sa, pa), _nearest(sb, pb))
    stock_a, stock_b = _stocked(alternate, want, len(spots[0]), len(spots[1]))
    # Spot indices whose prop has not been carried yet, at each end (B's on its far spots),
    # and the spot indices a prop stands on now.
    stock = [set(range(stock_a)), set(range(len(spots[1]) - stock_b, len(spots[1])))]
    full = [set(stock[0]), set(stock[1])]
    length = float(np.hypot(*(ends[1][1] - ends[0][1])))
    P = lambda q: (round(float(q[0]), 4), round(float(q[1]), 4), PERSON_Z)  # noqa: E731
    yaw_ab = math.atan2(*(ends[1][1] - ends[0][1])[::-1])
    wps = [Waypoint(window[0], P(ends[0][1]), yaw_ab)]
    t = t0 + float(rng.uniform(*FIRST_LIFT))
    at = 0  # the end the person stands at
    for k in range(want):
        src = k % 2 if alternate else 0
        dst = 1 - src
        free = [i for i in range(len(spots[dst])) if i not in full[dst]]
        if not stock[src] or not free:
            break
        walk = float(np.clip(length / rng.uniform(*CARRY_SPEED), *CARRY_TIME))
        back = length / CARRY_SPEED[1] if at != src else 0.0
        if t + back + walk + 2 * LIFT > t1 - REST_AFTER:
            break
        (e_src, p_src), (e_dst, p_dst) = ends[src], ends[dst]
        u = (p_dst - p_src) / length
        right = np.array([u[1], -u[0]])
        yaw = math.atan2(u[1], u[0])
        if back:  # empty-handed to where the next prop stands
            wps += [
                Waypoint(t, P(p_dst), yaw + math.pi),
                Waypoint(t + back, P(p_src), yaw + math.pi),
            ]
            t += back
        big = [c for c in CARRY_CATEGORIES if c in ctx.prop_categories]
        pool = big or ctx.prop_categories
        cat = pool[int(rng.integers(len(pool)))]
        size = PROP_SIZE[cat]
        i_src, i_dst = min(stock[src]), free[0]
        stock[src].discard(i_src)
        full[src].discard(i_src)
        full[dst].add(i_dst)
        q_src, q_dst = spots[src][i_src], spots[dst][i_dst]
        fa = (q_src[0], q_src[1], round(e_src.top + size[2] / 2, 4))
        fb = (q_dst[0], q_dst[1], round(e_dst.top + size[2] / 2, 4))
        ha, hb = p_src + HAND_SIDE * right, p_dst + HAND_SIDE * right
        track = [
            Waypoint(0.0, fa, yaw),
            Waypoint(t, fa, yaw),
            Waypoint(t + LIFT, (round(float(ha[0]), 4), round(float(ha[1]), 4), HAND_Z), yaw),
            Waypoint(
                t + LIFT + walk, (round(float(hb[0]), 4), round(float(hb[1]), 4), HAND_Z), yaw
            ),
            Waypoint(t + 2 * LIFT + walk, fb, yaw),
        ]
        wps += [Waypoint(t, P(p_src), yaw), Waypoint(t + LIFT, P(p_src), yaw)]
        wps += [
            Waypoint(t + LIFT + walk, P(p_dst), yaw),
            Waypoint(t + 2 * LIFT + walk, P(p_dst), yaw),
        ]
        pid = next_id()
        out.props.append({"id": pid, "category": cat, "size": size, "track": track})
        detail = {
            "from_surface": e_src.surface,
            "to_surface": e_dst.surface,
            "from": list(fa),
            "to": list(fb),
            "category": cat,
        }
        out.events.append(
            (f"prop{pid}", Event("carried", t, t + 2 * LIFT + walk, pid, e_src.room, detail))
        )
        ctx.carry_sides[sides[dst] if alternate else _set_down_side(pose, pair)] += 1
        at = dst
        t += 2 * LIFT + walk + float(rng.uniform(0.2, 0.6))
    if not out.events:
        return None
    last = wps[-1]
    wps.append(Waypoint(window[1], last.position, last.yaw))
    out.visits["person"].append(wps)
    return out


__all__ = ["End", "carry_spots", "carry_view", "plan_carries", "wanted_side"]
