"""A pure-NumPy ray–box caster: the reference the GL renderer is tested against.

It draws the same :func:`~streamspatial.sim.render.scene.scene_boxes` with exact slab intersection,
so its depth and instance ids are ground truth up to floating point.  It is also usable as
a renderer of last resort where no GL is available (about as fast as MuJoCo at 320×240 for
small scenes, with no shading: the RGB is flat box colour).
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.sim.render.scene import Box, pixel_rays
from streamspatial.sim.types import CameraPose, Intrinsics


def cast(
    boxes: list[Box], pose: CameraPose, intr: Intrinsics, pixels: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Depth (m, along the optical axis; ``inf`` for no hit), instance ids and flat RGB.

    ``pixels`` optionally restricts casting to an (N, 2) array of (row, col); the outputs then
    have shape (N,) and (N, 3) instead of (H, W) and (H, W, 3).
    """
    rays = pixel_rays(pose, intr)
    if pixels is not None:
        rays = rays[pixels[:, 0], pixels[:, 1]]
    shape = rays.shape[:-1]
    d_all = rays.reshape(-1, 3)
    o = np.asarray(pose.position, dtype=float)
    n = d_all.shape[0]
    best = np.full(n, np.inf)
    ids = np.zeros(n, dtype=np.int32)
    rgb = np.zeros((n, 3), dtype=float)
    length = np.linalg.norm(d_all, axis=1)
    unit = d_all / length[:, None]
    # Nearest boxes first, each tested only on the rays inside its bounding cone and only if
    # it could be nearer than what those rays already hit: a house has hundreds of boxes,
    # most of them behind the walls of the room the camera stands in.  The result is exactly
    # that of testing every ray against every box.
    spheres = [(float(np.linalg.norm(b.half)), np.asarray(b.center, dtype=float)) for b in boxes]
    order = sorted(
        range(len(boxes)), key=lambda i: np.linalg.norm(spheres[i][1] - o) - spheres[i][0]
    )
    for i in order:
        b = boxes[i]
        radius, centre = spheres[i]
        to_c = centre - o
        dist = float(np.linalg.norm(to_c))
        if dist > radius * 1.0001:
            cos_cone = math.sqrt(max(0.0, 1.0 - (radius / dist) ** 2))
            sel = np.flatnonzero(unit @ (to_c / dist) >= cos_cone - 1e-9)
            if sel.size == 0:
                continue
            if np.all((dist - radius) / length[sel] > best[sel]):
                continue  # hidden behind what these rays already hit
        else:
            sel = np.arange(n)
        d = d_all[sel]
        c, s = math.cos(-b.yaw), math.sin(-b.yaw)
        rel = o - centre
        lo = np.array([c * rel[0] - s * rel[1], s * rel[0] + c * rel[1], rel[2]])
        ld = np.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1], d[:, 2]], axis=1)
        half = np.asarray(b.half)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / ld
            t1 = (-half - lo) * inv
            t2 = (half - lo) * inv
        tmin = np.nanmax(np.minimum(t1, t2), axis=1)
        tmax = np.nanmin(np.maximum(t1, t2), axis=1)
        # A ray parallel to a slab it starts outside of never hits.
        outside = (np.abs(lo) > half) & (ld == 0)
        hit = (tmax >= np.maximum(tmin, 0.0)) & ~outside.any(axis=1)
        t = np.where(tmin > 0, tmin, tmax)
        closer = hit & (t < best[sel]) & (t > 0)
        idx = sel[closer]
        best[idx] = t[closer]
        ids[idx] = b.instance_id
        rgb[idx] = b.rgb
    return best.reshape(shape), ids.reshape(shape), rgb.reshape((*shape, 3))
