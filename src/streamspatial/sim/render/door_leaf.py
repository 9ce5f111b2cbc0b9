"""The house's own door leaves: each doorway's leaf, standing open flat against a wall.

:func:`house_leaf` builds the leaf (and its knob) into the scene with the structure; its size
and the convention of a leaf that swings on a schedule are :mod:`streamspatial.scene.doors`'s,
which the event planner writes and :mod:`.actors` draws.  While a door-leaf actor hangs in a
door, the renderer leaves out the house's own leaf of that door.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from streamspatial.scene import streams
from streamspatial.scene.doors import HOUSE_LEAF_HEIGHT, LEAF_INSET, LEAF_THICKNESS
from streamspatial.scene.types import House
from streamspatial.sim.house import materials as mat
from streamspatial.sim.house.occupancy import FLAT
from streamspatial.sim.render.meshes import box_mesh, frame_box

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.sim.house.assets.mjcf import SceneBuilder


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


__all__ = ["house_leaf"]
