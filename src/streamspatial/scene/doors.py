"""The door-leaf convention: what the numbers of a swinging door leaf's track mean.

The event planner (:mod:`streamspatial.sim.events.lights_doors`) writes door-leaf actors; the
renderer (:mod:`streamspatial.sim.render.door_leaf`, :mod:`streamspatial.sim.render.actors`)
draws them and the house's own always-open leaves; both read the leaf's size and hinge from
here.  Every leaf is :data:`LEAF_THICKNESS` thick and ``door.width − 2·LEAF_INSET`` wide.

A door-leaf :class:`~streamspatial.scene.schedule.Actor`: the track's ``position`` is the
*hinge*, on the vertical hinge axis at the leaf's mid height (:data:`LEAF_HEIGHT`/2 above the
floor), just inside one jamb; the leaf runs from the hinge in the direction ``yaw + angle``
(counter-clockwise seen from above).  ``angle = 0`` is shut (``yaw`` points from the hinge jamb
to the other jamb, the leaf fills the opening); ``angle = DOOR_OPEN = π/2`` stands square to
the wall, open into the room on the left of ``yaw``; angles up to π fold it back flat against
that room's wall.  ``size`` is ``(leaf width, LEAF_THICKNESS, LEAF_HEIGHT)``.  Which jamb
carries the hinge follows from the room the door opens into (:func:`door_hinge`).  While a
door-leaf actor hangs in a door, the renderer leaves out the house's own leaf of that door.
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.scene.schedule import Actor, Waypoint
from streamspatial.scene.types import Door, House

# an actor's leaf (m); the opening (facade.DOOR_HEIGHT) is a little taller, the house's own
# leaf (HOUSE_LEAF_HEIGHT) a little taller than this one
LEAF_HEIGHT = 2.0
HOUSE_LEAF_HEIGHT = 2.04
LEAF_THICKNESS = 0.04  # every leaf, the house's own and the actors'
LEAF_INSET = 0.04  # hinge this far inside the opening's half width (the jamb lining)
DOOR_OPEN = math.pi / 2  # the angle of an open leaf (square to the wall)


def door_leaf_actor(
    door: Door,
    actor_id: int,
    *,
    house: House | None = None,
    into_room: int | None = None,
    color: str = "white",
    track: tuple[Waypoint, ...] | None = None,
) -> Actor:
    """A door-leaf actor hung in ``door``, opening (positive angles) into ``into_room``.

    ``into_room`` is ``door.room_a`` or ``door.room_b`` (default ``room_a``); the hinge goes on
    the jamb that makes a positive angle swing into it (``house`` tells which side of the wall
    that room is on; without it ``room_a`` is taken to lie on the −across side).  ``track``
    defaults to shut forever; build one with :func:`door_leaf_track` from :func:`door_hinge`.
    """
    hinge, yaw = door_hinge(door, into_room, house)
    leaf = door.width - 2 * LEAF_INSET
    if track is None:
        track = (Waypoint(0.0, hinge, yaw, True, 0.0),)
    return Actor(
        actor_id=actor_id,
        kind="door_leaf",
        category="door",
        color=color,
        size=(leaf, LEAF_THICKNESS, LEAF_HEIGHT),
        track=track,
        door_id=door.door_id,
    )


def door_hinge(
    door: Door, into_room: int | None = None, house: House | None = None
) -> tuple[tuple[float, float, float], float]:
    """(hinge position, yaw) of a leaf in ``door`` whose positive angles open into ``into_room``."""
    side = door_side(door, door.room_a if into_room is None else into_room, house)
    across = np.array([0.0, 1.0]) if door.axis == "x" else np.array([1.0, 0.0])
    # At +π/2 the leaf points along d rotated a quarter turn CCW, which must be across·side:
    # rot90(d) = a  ⇔  d = (a_y, −a_x).
    a = across * side
    d = np.array([a[1], -a[0]])
    hinge = np.array(door.center) - d * (door.width / 2 - LEAF_INSET)
    return (float(hinge[0]), float(hinge[1]), LEAF_HEIGHT / 2), math.atan2(d[1], d[0])


def door_side(door: Door, room: int, house: House | None = None) -> int:
    """+1 when ``room`` lies on the +across side of the door's wall (+y for an x wall), else −1."""
    if house is not None:
        cx, cy = door.center
        for s in (1, -1):
            p = (cx, cy + 0.3 * s) if door.axis == "x" else (cx + 0.3 * s, cy)
            if house.room_at(*p) == room:
                return s
    return -1 if room == door.room_a else 1


def door_leaf_track(
    hinge: tuple[float, float, float],
    yaw: float,
    swings: list[tuple[float, float, float, float]],
    *,
    start_angle: float = 0.0,
) -> tuple[Waypoint, ...]:
    """Waypoints of a leaf that turns from ``a0`` to ``a1`` between ``t0`` and ``t1`` for each
    ``(t0, t1, a0, a1)`` of ``swings`` (sorted, non-overlapping), holding still in between."""
    out = [Waypoint(0.0, hinge, yaw, True, start_angle)]
    for t0, t1, a0, a1 in swings:
        out.append(Waypoint(t0, hinge, yaw, True, a0))
        out.append(Waypoint(t1, hinge, yaw, True, a1))
    return tuple(sorted(out, key=lambda w: w.time))


__all__ = [
    "DOOR_OPEN",
    "HOUSE_LEAF_HEIGHT",
    "LEAF_HEIGHT",
    "LEAF_INSET",
    "LEAF_THICKNESS",
    "door_hinge",
    "door_leaf_actor",
    "door_leaf_track",
    "door_side",
]
