"""Walks lengthened where the house has rooms the walk did not reach.

OVO-S Optimal Path Reasoning (3.3.1), Obstacle-Aware Rerouting (3.3.2) and Topological
Structure Reasoning (4.2.1) ask about the rooms walked through: a route through one room to
another, a doorway blocked and another way round, a room's neighbours — each needs four rooms
entered (the room asked from, the target, the way through, and one more for an option).  A
one-minute walk spends most of its time on the events' manoeuvres (holds, glance-backs:
``sim.events.params.MANOEUVRE_BUDGET``) and entered 2-4 rooms on the twenty houses of seed
6161; the seven that entered four gave those three families all their questions (19, 33 and 29
of the 240 asked).

:func:`stretched` is what :func:`~.jobs.plan_walk` plans: the walk at the length asked, or, when
it enters fewer than ``ROOMS_WANTED`` of the house's rooms, the first of the longer lengths in
``STRETCH`` that does (the one entering the most rooms when none does).  A pure function of the
house and the seed, like every plan, so ``--resume`` and Ray actors plan the same walk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from streamspatial.sim.types import House, Trajectory

ROOMS_WANTED = 4  # rooms a walk enters for the room-graph families (see above)
STRETCH = (1, 2, 3)  # multiples of the walk length asked for, tried in turn

T = TypeVar("T")


def rooms_entered(house: House, traj: Trajectory) -> int:
    """How many of the house's rooms the camera stood in."""
    rooms = {house.room_at(p.position[0], p.position[1]) for p in traj.poses}
    return len(rooms - {None})


def stretched(
    house: House, plan: Callable[[float], tuple[Trajectory, T]], *, stretch: bool = True
) -> tuple[tuple[Trajectory, T], float]:
    """``plan(multiple)`` (a walk and what comes with it) for the first multiple of
    ``STRETCH`` whose walk enters ``ROOMS_WANTED`` rooms (every room of a smaller house),
    else the one entering the most; with that multiple."""
    want = min(ROOMS_WANTED, len(house.rooms))
    best: tuple[int, float, tuple[Trajectory, T]] | None = None
    for multiple in STRETCH if stretch else STRETCH[:1]:
        got = plan(multiple)
        rooms = rooms_entered(house, got[0])
        if rooms >= want:
            return got, multiple
        if best is None or rooms > best[0]:
            best = (rooms, multiple, got)
    assert best is not None
    return best[2], best[1]


__all__ = ["ROOMS_WANTED", "STRETCH", "rooms_entered", "stretched"]
