"""Door leaves: the house's own (always open) leaf of a doorway, and a leaf that swings.

The house's own leaf (:func:`house_leaf`) stands open flat against the wall of one of the
door's rooms, built into the scene with the structure.  A *door-leaf actor*
(:func:`door_leaf_actor`) is a leaf that swings shut and open on a schedule.  Both are
:data:`LEAF_THICKNESS` thick and ``door.width − 2·LEAF_INSET`` wide.

Convention (what the numbers of a door-leaf :class:`~streamspatial.sim.schedule.Actor` mean):
the track's ``position`` is the *hinge*, on the vertical hinge axis at the leaf's mid height
(:data:`LEAF_HEIGHT`/2 above the floor), just inside one jamb; the leaf runs from the hinge in
the direction ``yaw + angle`` (counter-clockwise seen from above).  ``angle = 0`` is shut
(``yaw`` points from the hinge jamb to the other jamb, the leaf fills the opening);
``angle = DOOR_OPEN = π/2`` stands square to the wall, open into the room on the left of
``yaw``; angles up to π fold it back flat against that room's wall.  ``size`` is
``(leaf width, LEAF_THICKNESS, LEAF_HEIGHT)``, the leaf ``door.width − 2·LEAF_INSET`` wide.
Which jamb carries the hinge follows from the room the door opens into
(:func:`door_hinge`).  While a door-leaf actor hangs in a door, the renderer leaves out the
house's own (always open) leaf of that door.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from streamspatial.sim import streams
from streamspatial.sim.house import materials as mat
from streamspatial.sim.house.occupancy import FLAT
from streamspatial.sim.render.meshes import box_mesh, frame_box
from streamspatial.sim.schedule import Actor, Waypoint
from streamspatial.sim.types import Door, House

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.sim.render.mjcf import SceneBuilder

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


def house_leaf(b: SceneBuilder, house: House, door, grain) -> None:
    """The door itself, opened flat against the wall of one of its rooms.

    Of the four ways it can hang (either room, either jamb) the first whose swing is all
    inside that room and clear of furniture and of other doorways is used; a door with no such
    way is left off (an opening without a leaf, as many homes have).
    """
    t = 0.1
    along = np.array([1.0, 0.0]) if door.axis == "x" else np.array([0.0, 1.0])
    across = np.array([0.0, 1.0]) if door.axis == "x" else np.array([1.0, 0.0])
    centre = np.array(door.center)
    hw = door.width / 2
    leaf = door.width - 2 * LEAF_INSET
    rng = np.random.default_rng([house.seed, streams.DOOR_LEAF, door.door_id])
    options = [(a, s) for a in (1, -1) for s in (1, -1)]
    rng.shuffle(options)
    for side_across, side_along in options:
        off = t / 2 + 0.012 + LEAF_THICKNESS / 2
        mid = centre + along * side_along * (hw + leaf / 2) + across * side_across * off
        room = house.room_at(*(mid + across * side_across * 0.1))
        if room is None or room not in (door.room_a, door.room_b):
            continue
        probe = [
            centre + along * side_along * (hw + k) + across * side_across * 0.15
            for k in np.linspace(0.05, leaf + 0.05, 8)
        ]
        if any(house.room_at(*p) != room for p in probe):
            continue  # a corner or another room within the swing
        lo = np.minimum(mid - along * leaf / 2, mid + along * leaf / 2) - 0.05
        hi = np.maximum(mid - along * leaf / 2, mid + along * leaf / 2) + 0.05
        lo = np.minimum(lo, mid - across * 0.1)
        hi = np.maximum(hi, mid + across * 0.1)
        clash = False
        for o in house.objects:
            if o.kind != "furniture" or o.size[2] < FLAT:
                continue
            (ax, ay, _), (bx, by, _) = o.aabb()
            if ax < hi[0] and bx > lo[0] and ay < hi[1] and by > lo[1]:
                clash = True
                break
        for other in house.doors:
            if other.door_id != door.door_id and np.all(np.abs(np.array(other.center) - mid) < 1.0):
                clash = True
        if clash:
            continue
        yaw = 0.0 if door.axis == "x" else math.pi / 2
        wood = door.door_id % 3 == 0
        rgb = (0.55, 0.38, 0.24) if wood else (0.93, 0.92, 0.88)
        half = (leaf / 2, LEAF_THICKNESS / 2, HOUSE_LEAF_HEIGHT / 2)
        v, n, f = box_mesh((0, 0, 0), half)
        uv = np.stack([(v[:, 0] + half[0]) / (2 * half[0]), (v[:, 2] + half[2]) / (2 * half[2])], 1)
        sides = np.abs(n[:, 1]) < 0.5  # the leaf's edges: plain grain
        uv[sides] = np.stack([v[sides, 1] * 8, v[sides, 2] * 2], 1)
        tex = b.texture(f"door{door.door_id}", mat.to_u8(mat.door_panels(rng, rgb, wood)))
        b.mesh_geom(
            f"d_{door.door_id}_leaf",
            v,
            n,
            f,
            uv.astype(np.float32),
            (1, 1, 1, 1),
            tex,
            pos=(*mid, HOUSE_LEAF_HEIGHT / 2),
            yaw=yaw,
        )
        knob = mid + along * side_along * (leaf / 2 - 0.07) + across * side_across * 0.035
        frame_box(
            b,
            f"d_{door.door_id}_knob",
            (*knob, 1.0),
            (0.05, 0.012, 0.012),
            yaw,
            (0.7, 0.68, 0.6),
            grain,
        )
        return


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
    "house_leaf",
]
