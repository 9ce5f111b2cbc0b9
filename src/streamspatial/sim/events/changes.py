"""Glance-backs and metronomes: what changes on a furniture top while the camera looks away,
and what swings while it watches.

A glance-back looks at a furniture top with a few props on it (categories no static object of
the house uses), turns away, and looks again.  While it looks away, props are added, removed
or moved, or a category's count changes (OVO-S 3.2.1 Object-Level Change Detection, UCS
Quantity Change Tracking) — or, about a quarter of the time, nothing changes, recorded as an
``unchanged`` event so "nothing changed" is a real answer.  A metronome stands on a top in a
watched view and swings whole cycles only while the camera watches it (E2-Periodic).
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.schedule import Actor, Event, Swing, Waypoint
from streamspatial.scene.types import CameraPose
from streamspatial.sim.events.holds import Content, Ctx, _at
from streamspatial.sim.events.manoeuvres import Segment, glance_back
from streamspatial.sim.events.params import (
    AMPLITUDE,
    GLANCE_AWAY,
    GLANCE_CATEGORIES,
    GLANCE_DECK,
    GLANCE_OFFERS,
    GLANCE_OPEN,
    GLANCE_OPS,
    GLANCE_TURN,
    PENDULUM_SIZE,
    PERIOD,
    PROP_SIZE,
    PROP_SPACING,
    SURFACE_DIST,
)
from streamspatial.sim.events.scene import Surface
from streamspatial.sim.events.sightline import open_distance

WALL_Z = 1.5  # m: a wall pendulum clock hangs at about eye height
# m: a metronome swings only while no mover is this close to the line of sight to it (half a
# person's shoulders, 0.25 m, and the metronome's own half-width, with a margin): on twelve
# 3-minute walks a quarter of the cycles were seen only in part, the person in front.
PATH_CLEAR = 0.5
PATH_GAP = 0.3  # s kept clear either side of a moment a mover is in front
LOOK_PITCH = (math.radians(-35), math.radians(-5))  # looking down onto a top, within reason


def glance_target(
    ctx: Ctx, anchor: CameraPose, roomy: bool = False
) -> tuple[Surface, float, float] | None:
    """A free furniture top in the camera's room, in reach and in sight: (top, yaw, pitch).
    ``roomy``: one with three spots for props where the room has one (a change of two needs
    them).  Taking the top nearest the heading whatever its size, the sixteen 5-minute walks
    of seed 70913 planned 10 changes of two in 61 glance-backs, where the weights ask 18."""
    x, y, z = anchor.position
    room = ctx.room((x, y))
    cands = []
    for s in ctx.surfaces:
        d = math.dist((x, y), s.xy)
        sid = s.obj.instance_id
        if s.obj.room_id != room or len(open_spots(ctx, s)) < 2:
            continue
        if sid in ctx.reserved or (sid in ctx.used_surfaces and sid not in ctx.glance_spots):
            continue  # kept for a carry (carries are rarer), or a metronome's
        if not SURFACE_DIST[0] <= d <= SURFACE_DIST[1]:
            continue
        yaw = math.atan2(s.xy[1] - y, s.xy[0] - x)
        pitch = float(np.clip(math.atan2(s.top - z, d), *LOOK_PITCH))
        if ctx.seen(_at(anchor, yaw, pitch), [s.point(0.05)])[0]:
            cands.append((s, yaw, pitch))
    if not cands:
        return None
    if roomy and (big := [c for c in cands if len(_spaced(open_spots(ctx, c[0]))) >= 3]):
        cands = big
    # One of the two tops nearest the heading: a short turn into the glance-back.
    cands.sort(key=lambda c: abs(wrap_angle(c[1] - anchor.yaw)))
    return cands[int(ctx.rng.integers(min(2, len(cands))))]


def plan_glance(
    ctx: Ctx, anchor: CameraPose, start: int, next_id, *, open_only: bool = False
) -> tuple[Segment, Content] | None:
    """The manoeuvre and its changes; ``start`` is its first pose's index in the new walk.
    ``open_only``: None unless it can look away into open space (``GLANCE_OPEN``)."""
    rng, fps = ctx.rng, ctx.fps
    planned = list(GLANCE_OPS[wanted_outcome(ctx)])  # before the top: a change of two looks
    target = glance_target(ctx, anchor, roomy=len(planned) == 2)  # for room for it
    if target is None:
        return None
    surf, yaw, pitch = target
    drawn = float(rng.uniform(*GLANCE_TURN)) * (1 if rng.random() < 0.5 else -1)
    away_s = float(rng.uniform(*GLANCE_AWAY))
    if ctx.seen(_at(anchor, yaw, pitch), [surf.point(0.05)]).sum() == 0:
        return None
    spots = [(sx, sy, surf.top + 0.05) for sx, sy in surf.spots]
    for away in _away_turns(ctx, anchor, yaw, drawn, open_only):
        seg = glance_back(anchor.yaw, anchor.pitch, yaw, pitch, away, away_s, fps)
        # The surface is out of view from the first pose after look1 to the last before
        # look2: the changes happen (and the event spans) only inside the still part.
        a, b = seg.marks["away"]
        poses = [_at(anchor, h[0], h[1]) for h in seg.heads[a:b]]
        if not any(ctx.seen(p, spots).any() for p in poses):
            break
    else:
        return None
    t_away = ((start + a) / fps, (start + b - 1) / fps)
    ctx.used_surfaces.add(surf.obj.instance_id)
    return seg, _changes(ctx, surf, t_away, next_id, planned)


def _away_turns(
    ctx: Ctx, anchor: CameraPose, yaw: float, drawn: float, open_only: bool = False
) -> list[float]:
    """The turns a glance-back may look away by, best first: the drawn one when its view is
    open (``GLANCE_OPEN``), then the others on offer from the most open view down (only the
    open ones when ``open_only``)."""
    xy = anchor.position[:2]

    offers = [sign * m for sign in (1, -1) for m in np.linspace(*GLANCE_OFFERS)]
    # Each turn's openness once (three wall rays each); sorting and filtering read it.
    opens = {
        t: min(open_distance(ctx.rects, xy, yaw + t + off) for off in (-_SIDE, 0.0, _SIDE))
        for t in (drawn, *offers)
    }
    if opens[drawn] >= GLANCE_OPEN:
        turns = [drawn, *sorted(offers, key=opens.__getitem__, reverse=True)]
    else:
        turns = sorted([drawn, *offers], key=opens.__getitem__, reverse=True)
    return [t for t in turns if opens[t] >= GLANCE_OPEN] if open_only else turns


def open_spots(ctx: Ctx, surf: Surface) -> list[tuple[float, float]]:
    """The top's spots ``PROP_SPACING`` clear of every spot an earlier glance-back's props
    stand on.  Of 81 glance-backs chosen for the twelve 3-minute walks of seed 53171, 34 were
    placed when a top took one glance-back's props: the rooms' free tops ran out first."""
    taken = ctx.glance_spots.get(surf.obj.instance_id, ())
    return [s for s in surf.spots if all(math.dist(s, q) >= PROP_SPACING for q in taken)]


def wanted_outcome(ctx: Ctx) -> str:
    """What the next glance-back does (``GLANCE_DECK``): the outcome the walk has planned
    least so far, ties in the deck's order rotated by the walk's slot."""
    k = ctx.slot % len(GLANCE_DECK)
    order = GLANCE_DECK[k:] + GLANCE_DECK[:k]
    return min(order, key=lambda o: ctx.glance_outcomes[o])


def outcome_of(planned: list[str]) -> str:
    """The deck's name for a glance-back's planned changes (``GLANCE_OPS`` inverted)."""
    return next(o for o, ops in GLANCE_OPS.items() if list(ops) == planned)


def _spaced(spots: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The spots (in their drawn order) at least ``PROP_SPACING`` apart, where three or more
    are; else all of them.  Props a spot apart (16 cm) hide each other from a camera a few
    metres off, and a change counts only where every prop on the top is seen."""
    out: list[tuple[float, float]] = []
    for sp in spots:
        if all(math.dist(sp, q) >= PROP_SPACING for q in out):
            out.append(sp)
    return out if len(out) >= 3 else list(spots)


_SIDE = math.radians(20)  # rays either side of the view's centre that must run free too


def _changes(
    ctx: Ctx, surf: Surface, t_away: tuple[float, float], next_id, planned: list[str]
) -> Content:
    rng = ctx.rng
    cats = ctx.prop_categories
    spots = open_spots(ctx, surf)
    spots = [spots[int(i)] for i in rng.permutation(len(spots))]
    free = _spaced(spots)
    out = Content()
    sid, room = surf.obj.instance_id, surf.obj.room_id
    props: list[dict] = []  # id, category, color, states: [(time, spot, present)]

    def place(cat: str, t: float, present: bool) -> dict:
        spot = free.pop()
        color = ("red", "blue", "green", "yellow", "white")[int(rng.integers(5))]
        p = {"id": next_id(), "category": cat, "color": color, "states": [(0.0, spot, present)]}
        if t > 0:
            p["states"].append((t, spot, True))
        props.append(p)
        return p

    big = [c for c in GLANCE_CATEGORIES if c in cats] or cats
    main = big[int(rng.integers(len(big)))]
    # the changes were drawn first (used if something changes), so the top is laid for them:
    # props of the main kind to take away or move, free spots to put more on
    if len(planned) > 1 and len(free) < 3:
        planned = planned[:1]  # no room for a change of two: one of the same sign
    net = planned.count("added") - planned.count("removed")
    n_main = int(rng.integers(max(1, -net), min(3, len(free) - max(net, 1)) + 1))
    for _ in range(n_main):
        place(main, 0.0, True)
    if len(free) >= 2 + max(net, 1) and rng.random() < 0.5:
        place(cats[int(rng.integers(len(cats)))], 0.0, True)

    def count(cat: str) -> int:
        return sum(1 for p in props if p["category"] == cat and p["states"][-1][2])

    def xyz(spot, cat: str) -> list[float]:
        return [spot[0], spot[1], round(surf.top + PROP_SIZE[cat][2] / 2, 4)]

    ctx.glance_outcomes[outcome_of(planned)] += 1
    if not planned:
        detail = {"surface": sid, "count": sum(1 for p in props if p["states"][-1][2])}
        out.events.append(("surface", Event("unchanged", t_away[0], t_away[1], sid, room, detail)))
    else:  # the planned change of the main kind: its props only
        times = np.sort(rng.uniform(t_away[0] + 0.1, t_away[1] - 0.1, size=len(planned)))
        for op, t in zip(planned, times, strict=True):
            t = float(t)
            here = [p for p in props if p["states"][-1][2] and p["category"] == main]
            if op == "added":
                cat = main
                before = count(cat)
                p = place(cat, t, False)
                detail = {"from": None, "to": xyz(p["states"][0][1], cat)}
            else:
                p = here[int(rng.integers(len(here)))]
                cat, spot = p["category"], p["states"][-1][1]
                before = count(cat)
                if op == "removed":
                    p["states"].append((t, spot, False))
                    free.append(spot)
                    detail = {"from": xyz(spot, cat), "to": None}
                else:
                    new = max(free, key=lambda s: math.dist(s, spot))
                    free.remove(new)
                    free.append(spot)
                    p["states"].append((t, new, True))
                    detail = {"from": xyz(spot, cat), "to": xyz(new, cat)}
            detail.update(surface=sid, category=cat, before=before, after=count(cat))
            ev = Event(op, t_away[0], t_away[1], p["id"], room, detail)  # type: ignore[arg-type]
            out.events.append((f"prop{p['id']}", ev))
    ctx.glance_spots[sid] = (
        *ctx.glance_spots.get(sid, ()),
        *dict.fromkeys(spot for p in props for _t, spot, _on in p["states"]),
    )
    for p in props:
        cat = p["category"]
        track = []
        for i, (t, spot, present) in enumerate(p["states"]):
            if i and spot != p["states"][i - 1][1]:  # a jump: stand still up to it
                track.append(
                    Waypoint(round(t - 1e-3, 5), tuple(xyz(p["states"][i - 1][1], cat)), 0.0, True)
                )
            track.append(Waypoint(round(t, 5), tuple(xyz(spot, cat)), 0.0, present))
        out.props.append(
            {
                "id": p["id"],
                "category": cat,
                "size": PROP_SIZE[cat],
                "track": track,
                "color": p["color"],
            }
        )
    return out


def place_pendulum(
    ctx: Ctx, pose: CameraPose, t0: float, t1: float, actor_id: int, movers=None
) -> tuple[Actor, list[Event]] | None:
    """A metronome on a free top seen from the hold, swinging whole cycles inside it while
    no mover (``movers``: ``(t, x, y)`` samples) passes in front of it."""
    rng = ctx.rng
    period = float(rng.uniform(*PERIOD))
    lo, hi = t0 + float(rng.uniform(0.2, 0.8)), t1 - 0.1
    if hi - lo < period:
        return None
    spot = win = None
    for s in rng.permutation(len(ctx.surfaces)):
        surf = ctx.surfaces[int(s)]
        if surf.obj.instance_id in ctx.used_surfaces:
            continue
        pts = [(x, y, surf.top + PENDULUM_SIZE[2]) for x, y in surf.spots]
        low = [(x, y, surf.top + 0.02) for x, y in surf.spots]
        seen = np.flatnonzero(ctx.seen(pose, pts) & ctx.seen(pose, low))
        for j in rng.permutation(seen):
            x, y = surf.spots[int(j)]
            got = _clear_window(pose, (x, y), movers, lo, hi)
            if got[1] - got[0] >= period:
                ctx.used_surfaces.add(surf.obj.instance_id)
                spot, room = (x, y, round(surf.top + PENDULUM_SIZE[2] / 2, 4)), surf.obj.room_id
                win = got
                break
        if spot is not None:
            break
    if spot is None:  # no free top in view: a pendulum clock on the wall ahead
        spot = _on_wall(ctx, pose)
        if spot is None:
            return None
        win = _clear_window(pose, spot[:2], movers, lo, hi)
        if win[1] - win[0] < period:
            return None
        room = ctx.room(spot[:2]) if ctx.room(spot[:2]) is not None else ctx.room(pose.position)
    start = win[0]
    kmax = math.floor((win[1] - start) / period)
    k = int(rng.integers(min(2, kmax), kmax + 1))
    cx, cy, _ = pose.position
    yaw = math.atan2(cy - spot[1], cx - spot[0])  # its face to the camera: it swings across
    swing = Swing(round(start, 5), round(start + k * period, 5), round(period, 5), AMPLITUDE)
    track = (Waypoint(0.0, spot, yaw),)
    actor = Actor(actor_id, "pendulum", "metronome", "black", PENDULUM_SIZE, track, (swing,))
    events = [
        Event(
            "cycle",
            swing.start + j * swing.period,
            swing.start + (j + 1) * swing.period,
            actor_id,
            room,
            {"period": swing.period},
        )
        for j in range(k)
    ]
    return actor, events


def _clear_window(pose: CameraPose, spot, movers, lo: float, hi: float) -> tuple[float, float]:
    """The longest stretch of ``[lo, hi]`` in which no mover is within ``PATH_CLEAR`` of the
    line of sight to ``spot`` and nearer than it (plan view), ``PATH_GAP`` s kept either side
    of each moment one is."""
    if movers is None or not len(movers):
        return lo, hi
    c, q = np.asarray(pose.position[:2], float), np.asarray(spot[:2], float)
    d, xy = q - c, movers[:, 1:]
    u = np.clip((xy - c) @ d / max(float(d @ d), 1e-9), 0.0, None)
    front = (np.hypot(*(c + u[:, None] * d - xy).T) < PATH_CLEAR) & (u < 1.0)
    best, a = (lo, lo), lo
    for t in sorted(float(t) for t in movers[front, 0]):
        if t - PATH_GAP > a and min(t - PATH_GAP, hi) - a > best[1] - best[0]:
            best = (a, min(t - PATH_GAP, hi))
        a = max(a, t + PATH_GAP)
    if hi - a > best[1] - best[0]:
        best = (a, hi)
    return best


def _on_wall(ctx: Ctx, pose: CameraPose) -> tuple[float, float, float] | None:
    """A point just in front of the wall the camera looks at, at eye height, if seen."""
    yaw = pose.yaw + float(ctx.rng.uniform(-0.3, 0.3))
    d = np.array([math.cos(yaw), math.sin(yaw)])
    c = np.array(pose.position[:2])
    r = ctx.rects
    for t in np.arange(1.5, 7.0, 0.05):
        x, y = c + d * t
        if ((r[:, 0] <= x) & (x <= r[:, 2]) & (r[:, 1] <= y) & (y <= r[:, 3])).any():
            x, y = c + d * (t - 0.08)
            p = (round(float(x), 4), round(float(y), 4), WALL_Z)
            ok = ctx.seen(pose, [p])[0] and ctx.room((x, y)) is not None
            return p if ok and not _furniture_between(ctx, pose, p) else None
    return None


def _furniture_between(ctx: Ctx, pose: CameraPose, p: tuple[float, float, float]) -> bool:
    """Whether a piece of furniture stands in the line of sight to ``p`` (the sightline
    predictor sees walls only; a wardrobe in front of the wall hid the clocks it placed)."""
    a, b = np.array(pose.position, dtype=float), np.array(p, dtype=float)
    pts = a + np.linspace(0.05, 0.97, 40)[:, None] * (b - a)
    for o in ctx.house.objects:
        lo, hi = (np.array(v) for v in o.aabb())
        if ((pts >= lo) & (pts <= hi)).all(axis=1).any():
            return True
    return False


__all__ = ["glance_target", "place_pendulum", "plan_glance"]
