"""The rotating-camera probe: a camera turning in place (VCBench §4.3.2, identity persistence).

It stands at a room centre from which an object of a category unique in the house is in sight
range, so exactly one instance of that category keeps coming back into view, and turns at
:data:`SPIN_SPEED` for a whole number of turns.
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.core.errors import InputError
from streamspatial.scene import streams
from streamspatial.scene.types import CameraPose, House, Trajectory
from streamspatial.sim.house.occupancy import occupancy
from streamspatial.sim.walk.motion import EYE_HEIGHT, Motion
from streamspatial.sim.walk.nav import keypoints

SPIN_SPEED = math.radians(60)  # rad/s: 6 s per turn


def spin_frames(turns: int, fps: float) -> int:
    """How many poses :func:`spin_trajectory` makes for ``turns`` turns at ``fps``."""
    return math.ceil(turns * 2 * math.pi / (SPIN_SPEED / fps)) + 1


def spin_trajectory(house: House, *, turns: int, fps: float, seed: int) -> Trajectory:
    """A camera turning in place for ``turns`` full turns at the best room centre."""
    rng = np.random.default_rng([house.seed, seed, streams.SPIN])
    kps = [k for k in keypoints(house, occupancy(house), rng) if k.kind == "center"]
    counts: dict[str, int] = {}
    for o in house.objects:
        counts[o.category] = counts.get(o.category, 0) + 1
    best = None
    for k in kps:
        for o in house.objects:
            if counts[o.category] != 1 or o.kind != "furniture" or o.room_id != k.room_id:
                continue
            d = math.dist((k.x, k.y), o.position[:2])
            if d >= 1.0 and (best is None or d < best[0]):
                best = (d, k)
    if best is None:
        if not kps:
            raise InputError(f"house {house.house_id} has no walkable room centre to spin at")
        best = (0.0, kps[0])
    k = best[1]
    n = max(2, math.ceil(turns * 2 * math.pi / (SPIN_SPEED / fps)))
    yaw0 = float(rng.uniform(-math.pi, math.pi))
    pitch = Motion().pitch
    poses = tuple(
        CameraPose(
            time=round(i / fps, 5),
            position=(round(k.x, 4), round(k.y, 4), EYE_HEIGHT),
            yaw=round(math.remainder(yaw0 + SPIN_SPEED * i / fps, 2 * math.pi), 5),
            pitch=round(pitch, 5),
            motion="sweep",
            keypoint=0,
        )
        for i in range(n + 1)
    )
    return Trajectory(house.house_id, fps, poses, ((round(k.x, 4), round(k.y, 4)),))


__all__ = ["SPIN_SPEED", "spin_frames", "spin_trajectory"]
