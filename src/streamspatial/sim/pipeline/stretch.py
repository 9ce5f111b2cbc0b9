"""Walks lengthened where the walk asked for shows too little of the house or its events.

* **Rooms.**  OVO-S Optimal Path Reasoning (3.3.1), Obstacle-Aware Rerouting (3.3.2) and
  Topological Structure Reasoning (4.2.1) ask about the rooms walked through: a route through
  one room to another, a doorway blocked and another way round, a room's neighbours — each
  needs four rooms entered (the room asked from, the target, the way through, one more for an
  option).  A one-minute walk spends most of its time on the events' manoeuvres (holds,
  glance-backs: ``sim.events.params.MANOEUVRE_BUDGET``) and entered 2-4 rooms on the twenty
  houses of seed 6161; the seven that entered four gave those three families all their
  questions (19, 33 and 29 of the 240 asked).
* **Glance-backs.**  UCS Quantity Change Tracking and OVO-S Object-Level Change Detection ask
  about props changed on a top while the camera looked away, their answers balanced over
  fixed outcomes, and a content word of the question (the top, the kind of prop) may not
  predict the answer either (``sim.qa.balance.WORD_SLACK``), so each glance-back gives a few
  questions.  One-minute walks planned 0-2 (seed 8181); twenty of them, ten lengthened for
  rooms, planned 42 and Quantity Change Tracking made 33 questions.  Wanting two a walk was
  still too few: on seed 61001 thirteen of twenty walks stopped at two, the twenty planned 53,
  and Quantity Change Tracking kept 30 questions (38 drafted); wanting three, those thirteen
  plan 43 instead of 26.  Three was still too few for Change Detection, whose four answers
  are balanced and whose "moved" comes from one glance-back outcome in six
  (``sim.events.params.GLANCE_DECK``): on seed 61002 the twenty walks planned 64, 7 of them
  moved, and the family kept 39 questions.  Wanting four, the same walks plan 77 (10 moved)
  for 15 % more video (46 to 53 minutes).  A walk (with events) planning fewer than
  ``GLANCES_WANTED`` is lengthened too.

:func:`stretched` is what :func:`~.jobs.plan_walk` plans: the walk at the length asked, or the
first of the longer lengths in ``STRETCH`` that enters ``ROOMS_WANTED`` rooms (every room of a
smaller house) and plans ``GLANCES_WANTED`` glance-backs (the one coming closest when none
does).  A pure function of the house and the seed, like every plan, so ``--resume`` and Ray
actors plan the same walk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from streamspatial.scene.types import House, Trajectory
from streamspatial.sim.pipeline.forecast import glance_outcomes

if TYPE_CHECKING:  # pragma: no cover - the events step (SciPy) loads when a walk is planned
    from streamspatial.sim.events.plan import EventPlan

ROOMS_WANTED = 4  # rooms a walk enters for the room-graph families (see above)
GLANCES_WANTED = 4  # glance-backs a walk with events plans for the change families
STRETCH = (1, 2, 3)  # multiples of the walk length asked for, tried in turn


def rooms_entered(house: House, traj: Trajectory) -> int:
    """How many of the house's rooms the camera stood in."""
    rooms = {house.room_at(p.position[0], p.position[1]) for p in traj.poses}
    return len(rooms - {None})


def reach(house: House, planned: EventPlan) -> tuple[int, int]:
    """What the planned walk shows of what the families need, each capped at the need:
    (rooms entered, glance-backs planned; a walk without events needs none)."""
    traj, schedule = planned
    rooms = min(rooms_entered(house, traj), ROOMS_WANTED, len(house.rooms))
    glances = GLANCES_WANTED if schedule is None else len(glance_outcomes(schedule))
    return rooms, min(glances, GLANCES_WANTED)


def stretched(
    house: House, plan: Callable[[float], EventPlan], *, stretch: bool = True
) -> tuple[EventPlan, float]:
    """``plan(multiple)`` (a walk and its events) for the first multiple of ``STRETCH`` whose
    walk reaches what the families need, else the one coming closest (the shortest of
    those); with that multiple."""
    want = (min(ROOMS_WANTED, len(house.rooms)), GLANCES_WANTED)
    best: tuple[tuple[int, int], float, EventPlan] | None = None
    for multiple in STRETCH if stretch else STRETCH[:1]:
        got = plan(multiple)
        score = reach(house, got)
        if score == want:
            return got, multiple
        if best is None or score > best[0]:
            best = (score, multiple, got)
    assert best is not None
    return best[2], best[1]


__all__ = ["GLANCES_WANTED", "ROOMS_WANTED", "STRETCH", "reach", "rooms_entered", "stretched"]
