"""The event planner: dynamic happenings placed where the camera will look.

``plan_events(house, trajectory, seed)`` edits a planned walk and returns it with a
:class:`~streamspatial.scene.schedule.Schedule`.  An event is only countable if it is seen, so:

1. Manoeuvres are inserted into the walk (:mod:`.manoeuvres`) at places that suit them: a
   *crossing* hold (the camera watches a stretch of free floor a person walks across, 1–3
   times: E2-Episode), an *action* hold (the person carries props from one furniture top to
   another, or the person and a ball move along straight legs: UCS Object Trajectory, OVO-S
   1.3.3–1.3.5), and *glance-backs* (props change on a top while the camera looks away:
   OVO-S 3.2.1, UCS Quantity Change).  A metronome swings whole cycles in a watched view
   (E2-Periodic).  At most :data:`~.params.MANOEUVRE_BUDGET` of the walk goes to them.
2. On the edited walk, lights go off and on while the camera is in the room (E1-Transit) and
   door leaves swing while seen and while nobody goes through (E1-Action) (:mod:`.lights_doors`).

Visibility is predicted by :mod:`.sightline`; counts are drawn per walk from wide ranges
(:mod:`.params`).  Everything is a pure function of (house, trajectory, seed).
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from streamspatial.scene import streams
from streamspatial.scene.schedule import ACTOR_ID_BASE, Actor, Event, Schedule
from streamspatial.scene.types import CameraPose, House, Trajectory
from streamspatial.sim.events.carries import carry_spots, carry_view, plan_carries
from streamspatial.sim.events.changes import place_pendulum, plan_glance
from streamspatial.sim.events.holds import (
    Content,
    Ctx,
    _at,
    crossing_lines,
    paired_speed,
    plan_crossings,
    plan_movers,
)
from streamspatial.sim.events.lights_doors import plan_doors, plan_lights
from streamspatial.sim.events.manoeuvres import Segment, choose, splice, watch
from streamspatial.sim.events.params import (
    ASPECT,
    BALL_SIZE,
    CARRY_HOLD,
    CROSS_BALL_PROB,
    CROSS_HOLD,
    EXTRA_KINDS,
    MIN_WALK_GAP,
    MINUTE_KINDS,
    PENDULUMS,
    PERSON_SIZE,
    PROP_CATEGORIES,
    PROP_COLORS,
    WATCH_HOLD,
    WATCH_PITCH,
)
from streamspatial.sim.events.scene import free_at, gapped_track, surfaces
from streamspatial.sim.events.sightline import wall_rects
from streamspatial.sim.house.occupancy import occupancy

YAWS = 12  # headings tried for a watch hold
# Draws of a manoeuvre's content at its chosen place: a watch hold keeps the richest, a
# glance-back the first that fits (one draw placed 1-3 of 6-8 chosen glance-backs a walk).
DRAWS = 3
GLANCE_FALLBACKS = 8  # other surveyed places tried for a glance-back whose top was taken
# Draws of a carry view at an action hold's place before it watches movers instead.  A view
# drawn once in the survey came back at the hold itself in 3 draws of 16 (floor spots and the
# set-down side are drawn), so walks with carry views still ended without a carry.
CARRY_VIEW_DRAWS = 4
SURVEY_STEP = 1.5  # s of walk between the places a manoeuvre is tried at


def _yaws(anchor: CameraPose, rng: np.random.Generator) -> list[float]:
    base = float(rng.uniform(0, 2 * math.pi / YAWS))
    return [anchor.yaw + base + 2 * math.pi * k / YAWS for k in range(YAWS)]


def _cross(
    ctx: Ctx, anchor: CameraPose, start: int, ids
) -> tuple[Segment, Content, CameraPose, tuple] | None:
    best = None
    for yaw in _yaws(anchor, ctx.rng):
        pose = _at(anchor, yaw, WATCH_PITCH)
        n = len(crossing_lines(ctx, pose))
        if n and (best is None or n > best[0]):
            best = (n, yaw)
    if best is None:
        return None
    seg = watch(
        anchor.yaw, anchor.pitch, best[1], WATCH_PITCH, float(ctx.rng.uniform(*CROSS_HOLD)), ctx.fps
    )
    pose = _at(anchor, best[1], WATCH_PITCH)
    h0, h1 = (start + m for m in seg.marks["hold"])
    t0, t1 = h0 / ctx.fps, (h1 - 1) / ctx.fps
    content = plan_crossings(ctx, pose, t0, t1, ids["person"])
    if content is None:
        return None
    if ctx.rng.random() < CROSS_BALL_PROB:  # a ball moves too, clear of the person's paths
        window = (start / ctx.fps, (start + len(seg) - 1) / ctx.fps)
        speed = paired_speed(ctx.rng, content.speed)
        ball = plan_movers(
            ctx, pose, anchor, window, {"ball": ids["ball"]}, t0, t1,
            clear=content.lines, speeds=[speed],
        )  # fmt: skip
        if ball is not None:
            for k, v in ball.visits.items():
                content.visits.setdefault(k, []).extend(v)
            content.events += ball.events
    return seg, content, pose, (t0, t1)


def _action(ctx: Ctx, anchor: CameraPose, start: int, ids) -> tuple | None:
    rng, fps = ctx.rng, ctx.fps
    carry = None  # a carry where its ends are in view, else movers
    for _ in range(CARRY_VIEW_DRAWS):
        if (carry := carry_view(ctx, anchor)) is not None:
            break
    hold = float(rng.uniform(*(WATCH_HOLD if carry is None else CARRY_HOLD)))
    if carry is not None:
        pose = carry[0]
    else:  # the heading that sees the most free floor
        grid = np.argwhere(ctx.occ.free & (ctx.occ.room == (ctx.room(anchor.position) or -2)))
        xy = np.array([ctx.occ.to_world(r, c) for r, c in grid[:: max(1, len(grid) // 300)]])
        if not len(xy):
            return None
        pts = np.hstack([xy, np.ones((len(xy), 1))])
        # Movers appear and vanish out of the walk's own view: count floor it does not see.
        far = np.hypot(*(xy - np.array(anchor.position[:2])).T) > 1.4
        far &= ~ctx.seen(anchor, pts)
        score = [
            (int((ctx.seen(_at(anchor, y, WATCH_PITCH), pts) & far).sum()), y)
            for y in _yaws(anchor, rng)
        ]
        pose = _at(anchor, max(score)[1], WATCH_PITCH)
    seg = watch(anchor.yaw, anchor.pitch, pose.yaw, pose.pitch, hold, fps)
    h0, h1 = (start + m for m in seg.marks["hold"])
    t0, t1 = h0 / fps, (h1 - 1) / fps
    window = (start / fps, (start + len(seg) - 1) / fps)
    content = Content()
    avoid = None
    if carry is not None:
        got = plan_carries(ctx, pose, window, t0, t1, ids["person"], carry[1], ids["next"])
        if got is None:
            return None
        content = got
        avoid = [(np.array(carry[1][0][1]), np.array(carry[1][1][1]))]
        # A later glance-back may use the carry's tops, away from every spot its props take:
        # kept from glance-backs for good, a carry's or a metronome's tops were all that 159
        # of 402 glance-back draws on six 5-minute walks (seed 5151) found in their room.
        ctx.used_surfaces.update(e.surface for e, _ in carry[1] if e.surface is not None)
        for sid, spot in carry_spots(content):
            ctx.glance_spots[sid] = (*ctx.glance_spots.get(sid, ()), spot)
        movers = {"ball": ids["ball"]}
    else:
        movers = {"person": ids["person"], "ball": ids["ball"]}
        if rng.random() < 0.2:
            movers.pop("person" if rng.random() < 0.5 else "ball")
    legs = plan_movers(ctx, pose, anchor, window, movers, t0, t1, avoid)
    if legs is not None:
        for k, v in legs.visits.items():
            content.visits.setdefault(k, []).extend(v)
        content.events += legs.events
    if not content.events:
        return None
    return seg, content, pose, (t0, t1)


def _paths(c: Content) -> np.ndarray:
    """(N, 3) samples ``(t, x, y)`` every 0.1 s of every mover of the hold (a person or a
    ball passing in front of a metronome hides its swings: a cycle seen in part stops
    E2-Periodic's questions, so the metronome swings only while no one passes in front)."""
    out = [np.zeros((0, 3))]
    for visits in c.visits.values():
        for wps in visits:
            ts = np.arange(wps[0].time, wps[-1].time + 1e-9, 0.1)
            xs = np.interp(ts, [w.time for w in wps], [w.position[0] for w in wps])
            ys = np.interp(ts, [w.time for w in wps], [w.position[1] for w in wps])
            out.append(np.column_stack([ts, xs, ys]))
    return np.vstack(out)


def _richness(c: Content) -> tuple[bool, int]:
    """A draw with a carry beats one without (carries are the rarest), then more events."""
    return any(e.kind == "carried" for _, e in c.events), len(c.events)


def _anchors(survey, kind: str, i0: int, lo: int, hi: int) -> list[int]:
    """The chosen anchor, then for a glance-back up to ``GLANCE_FALLBACKS`` other surveyed
    places strictly between ``lo`` and ``hi``, nearest first (where it can look away into open
    space: a fallback must not stare at a wall).  The survey tried every place
    with every top free; by the real draw, earlier manoeuvres have taken some (a top holds one
    glance-back's props), and that left 5 of 6 chosen glance-backs unplaced."""
    if kind != "glance":
        return [i0]
    near = sorted((abs(s[0] - i0), s[0]) for s in survey.get(kind, ()) if lo < s[0] < hi)
    return [i0, *[i for _, i in near if i != i0][:GLANCE_FALLBACKS]]


def _draw(ctx: Ctx, kind: str, anchor: CameraPose, start: int, ids, n: int, *, open_only=False):
    """A manoeuvre's content at its place: a watch hold's richest of ``DRAWS`` draws, a
    glance-back's first that fits ("nothing changed" must not lose to a change); None when
    none fits.  The tops taken (``Ctx.keep``) end as the kept draw left them."""
    res, used_after, before = None, None, ctx.keep()
    for _ in range(DRAWS):
        ctx.restore(before)
        got = _plan(ctx, kind, anchor, start, ids, open_only=open_only)
        fits = got is not None and start + len(got[0]) < n
        if fits and (res is None or _richness(got[1]) > _richness(res[1])):
            res, used_after = got, ctx.keep()
        if res is not None and kind == "glance":
            break
    ctx.restore(before if res is None else used_after)
    return res


def _plan(ctx: Ctx, kind: str, anchor: CameraPose, start: int, ids, *, open_only: bool = False):
    """One manoeuvre of ``kind`` at ``anchor``, its first pose at ``start`` in the new walk:
    (segment, content, hold pose or None, hold window or None), or None where it does not fit.
    ``open_only``: a glance-back only where it can look away into open space."""
    if kind == "glance":
        got = plan_glance(ctx, anchor, start, ids["next"], open_only=open_only)
        return None if got is None else (*got, None, None)
    if kind == "cross":
        return _cross(ctx, anchor, start, ids)
    return _action(ctx, anchor, start, ids)


def _survey(
    ctx: Ctx, traj: Trajectory, kinds: set[str], ids
) -> dict[str, list[tuple[int, int, bool]]]:
    """Per kind, the walk's poses a manoeuvre of that kind fits at: (index, length, carries)."""
    out: dict[str, list[tuple[int, int, bool]]] = {k: [] for k in kinds}
    dummy = {**ids, "next": lambda: 0}
    step = max(1, round(SURVEY_STEP * traj.fps))
    for i in range(step, len(traj.poses), step):
        p = traj.poses[i]
        if ctx.room(p.position) is None or not free_at(ctx.occ, [p.position[:2]])[0]:
            continue
        for kind in sorted(kinds):
            snapshot = ctx.keep()
            res = _plan(ctx, kind, p, i, dummy)
            ctx.restore(snapshot)
            if res is not None:
                carries = any(e.kind == "carried" for _, e in res[1].events)
                out[kind].append((i, len(res[0]), carries, len(res[1].events)))
    return out


class EventPlan(NamedTuple):
    """Step 3's output: the walk (edited with watch holds and glance-backs) and its schedule of
    what moves and switches; ``schedule`` is None for a walk planned without events."""

    trajectory: Trajectory
    schedule: Schedule | None


def plan_events(
    house: House,
    trajectory: Trajectory,
    seed: int = 0,
    *,
    aspect: float = ASPECT,
    report: dict | None = None,
    slot: int | None = None,
) -> EventPlan:
    """The walk with watch holds and glance-backs inserted, and what happens around it.

    The trajectory keeps its number of poses and times ``i / fps``.  ``report``, when given,
    receives the manoeuvres placed (kind, first pose, length) and the frames they took.
    ``slot``: the walk's place among a benchmark's walks (the house seed when None), where
    its glance-backs start dealing their outcomes (:data:`~.params.GLANCE_DECK`), so the
    walks of one benchmark share them out evenly.
    """
    rng = np.random.default_rng([house.seed, seed, streams.EVENTS])
    fps, n = trajectory.fps, len(trajectory.poses)
    used = {o.category for o in house.objects}
    ctx = Ctx(
        house,
        occupancy(house),
        wall_rects(house),
        aspect,
        fps,
        rng,
        surfaces(house),
        [c for c in PROP_CATEGORIES if c not in used],
    )
    ctx.slot = house.seed if slot is None else slot
    counter = itertools.count(ACTOR_ID_BASE)
    ids = {"person": next(counter), "ball": next(counter), "next": lambda: next(counter)}
    scale = max(1.0, n / fps / 60.0)

    # 1. Manoeuvres: where each kind would fit, then one anchor per kind, spread over the walk.
    # (choose tries every order of a minute's kinds; the queue's order is the budget's.)
    queue = [k for _ in range(math.ceil(scale)) for k in (*MINUTE_KINDS, *EXTRA_KINDS)]
    survey = _survey(ctx, trajectory, set(queue), ids)
    chosen = choose(queue, survey, n, fps)
    inserts: list[tuple[int, Segment]] = []
    placed: list[tuple[str, int, int]] = []
    contents: list[Content] = []
    holds: list[tuple[CameraPose, tuple[float, float], np.ndarray]] = []
    shift = 0
    # Tops an action hold can carry between are kept from the glance-backs before it (both
    # want them); once the hold is drawn, its carry's tops are taken and the rest free again.
    # Kept for the whole walk, they were what 171 of 423 glance-back draws on the walks of
    # seed 53171 found in their room and could not use.
    keeps: dict[int, set[int]] = {}
    for i, kind in chosen:
        for _ in range(DRAWS if kind == "action" else 0):  # the draws the hold will make
            if (view := carry_view(ctx, trajectory.poses[i])) is not None:
                keeps[i] = {e.surface for e, _ in view[1] if e.surface is not None}
                break
    ctx.reserved = set().union(*keeps.values())
    gap = round(MIN_WALK_GAP * fps)
    prev = -gap
    for j, (i0, kind) in enumerate(chosen):
        # The content is drawn again with the real times.  A glance-back whose top an earlier
        # manoeuvre took (or a carry keeps) moves to the nearest surveyed place in between.
        nxt = chosen[j + 1][0] if j + 1 < len(chosen) else n
        res = None
        for i in _anchors(survey, kind, i0, prev + gap, nxt - gap):
            pose = trajectory.poses[i]
            if (res := _draw(ctx, kind, pose, i + shift, ids, n, open_only=i != i0)) is not None:
                break
        keeps.pop(i0, None)
        ctx.reserved = set().union(*keeps.values())
        if res is None:
            continue
        seg, content, pose, window = res
        inserts.append((i, seg))
        placed.append((kind, i + shift, len(seg)))
        contents.append(content)
        if pose is not None:
            holds.append((pose, window, _paths(content)))
        shift += len(seg)
        prev = i
    used_frames = shift
    traj, _starts = splice(trajectory, inserts)
    if report is not None:
        report.update(manoeuvres=placed, frames=used_frames, queue=list(queue))

    # 2. Actors from the manoeuvres.
    actors: list[Actor] = []
    events: list[Event] = []
    visits: dict[str, list] = {"person": [], "ball": []}
    # A prop without a colour of its own (a carried one) takes one no other prop of its kind
    # has: UCS Object Trajectory names it ("the red box") and drops it when the name is
    # ambiguous.  Carried props draw first, among the colours no glance-back prop of the kind
    # has where one is left; a glance-back prop that still shares a carried one's colour takes
    # another (its questions never name its colour).  Glance-back props took their colours
    # first, and in one house of seed 61907 four of five carried boxes went unnamed.
    props = [p for c in contents for p in c.props]
    glance = {(p["category"], p["color"]) for p in props if p.get("color")}
    carried: dict[int, str] = {}
    kept: set[tuple[str, str]] = set()  # (kind, colour) of the carried props so far
    for p in props:
        if p.get("color") is None:
            free = [x for x in PROP_COLORS if (p["category"], x) not in kept]
            free = [x for x in free if (p["category"], x) not in glance] or free or PROP_COLORS
            carried[p["id"]] = free[int(rng.integers(len(free)))]
            kept.add((p["category"], carried[p["id"]]))
    for c in contents:
        for k, v in c.visits.items():
            visits[k].extend(v)
        events += [e for _, e in c.events]
        for p in c.props:
            color = carried.get(p["id"]) or p["color"]
            if p["id"] not in carried and (p["category"], color) in kept:
                color = next((x for x in PROP_COLORS if (p["category"], x) not in kept), color)
            actors.append(
                Actor(p["id"], "prop", p["category"], color, p["size"], tuple(p["track"]))
            )
    for key, kind, cat, size in (
        ("person", "person", "person", PERSON_SIZE),
        ("ball", "ball", "ball", (BALL_SIZE,) * 3),
    ):
        if visits[key]:
            vs = sorted(visits[key], key=lambda v: v[0].time)
            color = PROP_COLORS[int(rng.integers(len(PROP_COLORS)))]
            actors.append(Actor(ids[key], kind, cat, color, size, gapped_track(vs, size[2] / 2)))
    # 3. Metronomes in watched views.
    minutes = math.ceil(scale)
    want = sum(int(rng.integers(PENDULUMS[0], PENDULUMS[1] + 1)) for _ in range(minutes))
    for j in [*rng.permutation(len(holds)), *rng.permutation(len(holds))]:  # two may share one
        if want <= 0:
            break
        pose, (t0, t1), paths = holds[int(j)]
        got = place_pendulum(ctx, pose, t0, t1, ids["next"](), paths)
        if got is not None:
            actors.append(got[0])
            events += got[1]
            want -= 1
    # 4. Lights and doors on the edited walk.
    switches, light_events = plan_lights(house, traj, rng, scale)
    busy = [
        (v[0].time, v[-1].time, np.array([w.position[:2] for w in v])) for v in visits["person"]
    ]
    leaves, door_events = plan_doors(house, traj, rng, scale, ids["next"], busy, aspect)
    actors += leaves
    events += light_events + door_events
    events.sort(key=lambda e: (e.end, e.start, e.kind, e.subject))
    actors.sort(key=lambda a: a.actor_id)
    return EventPlan(traj, Schedule(tuple(actors), tuple(switches), tuple(events)))


def manoeuvre_share(traj: Trajectory) -> float:
    """The share of the walk's poses spent watching or glancing (turns into them excluded)."""
    return sum(p.motion in ("watch", "glance") for p in traj.poses) / max(1, len(traj.poses))


__all__ = ["EventPlan", "manoeuvre_share", "plan_events"]
