"""What a ``sweep_around`` from a recorded pose would show, computed without a GL context.

Explorable questions promise that exploring can answer them, so the generator must know, at
generation time, which objects the exploration environment's ``sweep_around`` (eight views, 45°
apart, turning in place at the pose of t_q: see
:class:`~streamspatial.sim.explore.env.ExploreEnv`) would put on screen.  It casts rays with the
pure-NumPy reference caster (:mod:`streamspatial.sim.render.raycast`) over the very boxes the
renderer draws, so occlusion by walls and furniture is exact, and it casts only the pixels each
target's box can project to: a full 320×240 frame costs about half a second, a target's
footprint a few milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from streamspatial.sim.render.raycast import cast
from streamspatial.sim.render.scene import Box, camera_axes, scene_boxes
from streamspatial.sim.types import CameraPose, House, Intrinsics

SWEEP_VIEWS = 8  # sweep_around: eight views, one every 45°, ending at the starting heading


def sweep_poses(pose: CameraPose) -> list[CameraPose]:
    """The views ``sweep_around`` renders from ``pose`` (the env's order, time left at 0)."""
    return [
        CameraPose(
            time=0.0,
            position=pose.position,
            yaw=pose.yaw + k * 2 * math.pi / SWEEP_VIEWS,
            pitch=pose.pitch,
            motion="sweep",
        )
        for k in range(1, SWEEP_VIEWS + 1)
    ]


@lru_cache(maxsize=8)
def _boxes(house: House) -> tuple[list[Box], dict[int, Box]]:
    boxes = scene_boxes(house)
    return boxes, {b.instance_id: b for b in boxes if b.instance_id}


def boxes_of(house: House) -> list[Box]:
    """The boxes the renderer draws for ``house`` (walls have instance id 0), cached."""
    return _boxes(house)[0]


def _corners(b: Box) -> np.ndarray:
    c, s = math.cos(b.yaw), math.sin(b.yaw)
    out = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                lx, ly, lz = sx * b.half[0], sy * b.half[1], sz * b.half[2]
                out.append(
                    (b.center[0] + c * lx - s * ly, b.center[1] + s * lx + c * ly, b.center[2] + lz)
                )
    return np.array(out)


def _footprint(b: Box, pose: CameraPose, intr: Intrinsics) -> np.ndarray | None:
    """(N, 2) pixel (row, col) pairs the box may cover in the view; None if behind the camera."""
    right, up, forward = camera_axes(pose)
    rel = _corners(b) - np.asarray(pose.position)
    z = rel @ forward
    if (z <= 1e-6).all():
        return None
    if (z <= 1e-6).any():  # straddles the image plane: its projection is unbounded
        r0, r1, c0, c1 = 0, intr.height, 0, intr.width
    else:
        u = rel @ right / z * intr.fx + intr.cx - 0.5
        v = -(rel @ up) / z * intr.fy + intr.cy - 0.5
        c0, c1 = max(0, math.floor(u.min())), min(intr.width, math.ceil(u.max()) + 1)
        r0, r1 = max(0, math.floor(v.min())), min(intr.height, math.ceil(v.max()) + 1)
        if c0 >= c1 or r0 >= r1:
            return None
    rows, cols = np.mgrid[r0:r1, c0:c1]
    return np.stack([rows.ravel(), cols.ravel()], axis=1)


def view_pixels(
    house: House, intr: Intrinsics, view: CameraPose, instance_ids: Iterable[int]
) -> dict[int, int]:
    """Pixels each object covers in the one view from ``view`` (0 = out of sight), cast over
    its box's footprint only: what the renderer's id buffer would count, without a GL context."""
    boxes, by_id = _boxes(house)
    out: dict[int, int] = {}
    for oid in instance_ids:
        pix = _footprint(by_id[oid], view, intr)
        if pix is None:
            out[oid] = 0
            continue
        _, ids, _ = cast(boxes, view, intr, pixels=pix)
        out[oid] = int((ids == oid).sum())
    return out


_MEMO: dict[tuple, int] = {}
_MEMO_MAX = 50_000  # (house, pose, object) results; generators revisit the same query frames


def sweep_pixels(
    house: House, intr: Intrinsics, pose: CameraPose, instance_ids: Iterable[int]
) -> dict[int, int]:
    """Most pixels each object covers in any one view of a sweep from ``pose`` (0 = never)."""
    out: dict[int, int] = {}
    for oid in instance_ids:
        key = (house, intr, pose.position, pose.yaw, pose.pitch, oid)
        if key in _MEMO:
            out[oid] = _MEMO[key]
            continue
        best = max(view_pixels(house, intr, view, (oid,))[oid] for view in sweep_poses(pose))
        out[oid] = best
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = best
    return out
