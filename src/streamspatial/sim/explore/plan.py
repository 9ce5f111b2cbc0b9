"""Planning exploration: the fewest ``Explore-v0`` actions that bring given objects into view.

Training examples of active exploration (S3-Bench §3: the pipeline "generates subsequent camera
movements … driven by the need to capture additional information", the movements serving as
action labels) need, for a question asked at t_q, the moves that show what the prefix lacks.
The planner searches action sequences from the pose at t_q, foreseeing each action's poses
with the environment's own motion (:func:`~.env.action_poses`: the same speeds, the same
collision stop) and each view's visible pixels with the question generators' ray caster over
the boxes the renderer draws (:func:`~streamspatial.sim.qa.sweep.view_pixels`), so no GL
context is needed to plan; the caller confirms a plan by executing it in the environment.

A plan is valid when every object to reveal covers at least ``reach`` pixels in one of its
views, no object to keep out of view (another room's object of an asked category) covers
``avoid_pixels`` in any, no move is stopped by an obstacle, and the camera stays in the room it
stood in at t_q (a question about "the room you are in now" must not change rooms under it).
Valid plans come out in order of preference, the same for the same inputs:

1. fewest actions (each costs a model turn at evaluation);
2. fewest moves (the explorable questions promise their evidence from where the camera stands);
3. least exploration time (a 45° turn, 1 s, before a scan, 3.6 s, before a sweep, 7.2 s);
4. the action space's order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.types import CameraPose, House, Intrinsics
from streamspatial.sim.explore.actions import ACTIONS, MOVES, Action
from streamspatial.sim.explore.env import action_poses
from streamspatial.sim.house.occupancy import Occupancy, occupancy
from streamspatial.sim.qa.sweep import view_pixels
from streamspatial.sim.walk.nav import Motion

MAX_ACTIONS = 3  # as many as `--explore-steps 3`, the documented setting, offers
MOVE_DISTANCES = (0.5, 1.0, 2.0)  # metres a planned move may walk
# Every single action a plan is built from, in the action space's order.
CANDIDATES: tuple[Action, ...] = tuple(
    a
    for name in ACTIONS
    for a in ([Action(name, d) for d in MOVE_DISTANCES] if name in MOVES else [Action(name)])
)


@dataclass(frozen=True)
class Plan:
    """Actions, the views they produce (in order, times in seconds since t_q), and the most
    pixels each object to reveal covers in one of them (ray cast)."""

    actions: tuple[Action, ...]
    views: tuple[tuple[CameraPose, ...], ...]  # per action
    pixels: dict[int, int]

    @property
    def elapsed(self) -> float:
        return self.views[-1][-1].time


@dataclass(frozen=True)
class _Partial:
    actions: tuple[Action, ...]
    views: tuple[tuple[CameraPose, ...], ...]
    pixels: tuple[tuple[int, int], ...]  # (object, most pixels so far), sorted by object
    # (until its last action's views are looked at, the pixels before it)

    def cost(self) -> tuple:
        moves = sum(a.name in MOVES for a in self.actions)
        order = tuple((a.index, a.distance) for a in self.actions)
        return (moves, round(self.views[-1][-1].time, 6), order)


@lru_cache(maxsize=8)
def _occupancy(house: House) -> Occupancy:
    return occupancy(house)


def start_pose(pose: CameraPose) -> CameraPose:
    """``pose`` as the environment restores it (time 0, rounded as its poses are)."""
    x, y, z = pose.position
    return CameraPose(
        time=0.0,
        position=(round(float(x), 4), round(float(y), 4), z),
        yaw=round(wrap_angle(float(pose.yaw)), 5),
        pitch=pose.pitch,
        motion="still",
    )


def plans(
    house: House,
    intrinsics: Intrinsics,
    pose: CameraPose,
    reveal: Iterable[int],
    *,
    reach: int,
    avoid: Iterable[int] = (),
    avoid_pixels: int = 1,
    max_actions: int = MAX_ACTIONS,
    candidates: Sequence[Action] = CANDIDATES,
) -> Iterator[Plan]:
    """Valid plans that show every object of ``reveal`` from ``pose``, in order of preference
    (see the module); nothing when no plan of ``max_actions`` or fewer does."""
    reveal = tuple(sorted(set(reveal)))
    avoid = tuple(sorted(set(avoid) - set(reveal)))
    if not reveal:
        return
    occ = _occupancy(house)
    motion = Motion(pitch=pose.pitch, eye_height=pose.position[2])
    start = start_pose(pose)
    room = house.room_at(start.position[0], start.position[1])
    memo: dict[tuple, dict[int, int]] = {}

    def seen(view: CameraPose) -> dict[int, int]:
        key = (view.position, view.yaw, view.pitch)
        if key not in memo:
            memo[key] = view_pixels(house, intrinsics, view, reveal + avoid)
        return memo[key]

    level = [_Partial((), ((start,),), tuple((i, 0) for i in reveal))]
    for _ in range(max_actions):
        grown: list[_Partial] = []
        for partial in level:
            here = partial.views[-1][-1]
            for act in candidates:
                poses, collided = action_poses(here, act, occ, motion)
                if collided or any(house.room_at(p.position[0], p.position[1]) != room
                                   for p in poses):  # fmt: skip
                    continue
                views = (*partial.views, tuple(poses))
                grown.append(_Partial((*partial.actions, act), views, partial.pixels))
        grown.sort(key=_Partial.cost)  # then look, cheapest first, only as far as asked
        unfinished = []
        for partial in grown:
            counts = [seen(p) for p in partial.views[-1]]
            if any(c[i] >= avoid_pixels for c in counts for i in avoid):
                continue
            best = tuple((i, max(n, *(c[i] for c in counts))) for i, n in partial.pixels)
            partial = replace(partial, pixels=best)
            if all(n >= reach for _, n in best):
                yield Plan(partial.actions, partial.views[1:], dict(best))
            else:  # a valid plan is never extended: one more action would be a wasted turn
                unfinished.append(partial)
        level = _distinct(unfinished, reach)


def _distinct(partials: list[_Partial], reach: int) -> list[_Partial]:
    """The cheapest partial plan per (end pose, objects it has shown): the others lead nowhere
    the cheapest does not."""
    kept: dict[tuple, _Partial] = {}
    for p in partials:  # already sorted cheapest first
        end = p.views[-1][-1]
        shown = tuple(i for i, n in p.pixels if n >= reach)
        kept.setdefault((end.position, round(math.degrees(end.yaw)) % 360, shown), p)
    return list(kept.values())


__all__ = ["CANDIDATES", "MAX_ACTIONS", "MOVE_DISTANCES", "Plan", "plans", "start_pose"]
