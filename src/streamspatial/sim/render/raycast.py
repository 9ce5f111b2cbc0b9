"""A pure-NumPy ray–box caster: the reference the GL renderer is tested against.

It draws the same :func:`~streamspatial.sim.render.scene.scene_boxes` with exact slab intersection,
so its depth and instance ids are ground truth up to floating point.  It is also usable as
a renderer of last resort where no GL is available (no shading: the RGB is flat box colour).

Every ray is decided on its own: its result is that of testing it against every box, whichever
other rays are cast with it.  The culling only skips work that cannot change a ray: boxes are
visited nearest first, and each is tested only on the rays through the pixel rectangle it
projects to (the box clipped to the space in front of the camera, so a wall behind the camera
costs only the rays beside it), inside its bounding cone, and only if it could be nearer than
what those rays already hit.  A house has hundreds of boxes, most of them behind the walls of
the room the camera stands in, and the walls and floor around the camera, which a bounding
sphere alone would test against every ray, each cover a part of the frame.
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.scene.types import CameraPose, Intrinsics
from streamspatial.sim.render.scene import Box, camera_axes, pixel_rays

# Depth (m) at which boxes are clipped before projecting them.  A ray through a pixel of the
# frame reaches depth z at a distance of at most z·√(1 + tan²(hfov/2) + tan²(vfov/2)) from the
# camera, so hits nearer than this come only from a box within NEAR_BOX of the camera, and such
# a box is tested on every ray.
NEAR_CLIP = 1e-3
NEAR_BOX = 0.05
RECT_MARGIN = 1  # pixels added around a projected rectangle: rounding never loses a ray
# The twelve edges of a box, as pairs of corner indexes (corner bits: x, y, z half signs).
_EDGES = np.array([(a, a | bit) for a in range(8) for bit in (1, 2, 4) if not a & bit])
_SIGNS = np.array([[(1 if a & bit else -1) for bit in (4, 2, 1)] for a in range(8)], dtype=float)


def cast(
    boxes: list[Box],
    pose: CameraPose,
    intr: Intrinsics,
    pixels: np.ndarray | None = None,
    *,
    rects: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Depth (m, along the optical axis; ``inf`` for no hit), instance ids and flat RGB.

    ``pixels`` optionally restricts casting to an (N, 2) array of (row, col); the outputs then
    have shape (N,) and (N, 3) instead of (H, W) and (H, W, 3).  ``rects``: the boxes'
    :func:`screen_rects` for this view, when the caller has them already.
    """
    h, w = intr.height, intr.width
    if pixels is None:
        cells = np.arange(h * w)
        d_all = pixel_rays(pose, intr).reshape(-1, 3)
        window = (0, h, 0, w)
    else:
        pixels = np.asarray(pixels)
        cells, back = np.unique(pixels[:, 0] * w + pixels[:, 1], return_inverse=True)
        rows, cols = cells // w, cells % w
        d_all = _rays(pose, intr, rows, cols)
        window = (0, 0, 0, 0)
        if cells.size:  # no box is tested outside the cast pixels' bounding rectangle
            window = (rows[0], rows[-1] + 1, int(cols.min()), int(cols.max()) + 1)
    # index[r, c]: the position of pixel (r, c) among the cast rays, -1 where not cast
    index = np.full(h * w, -1, dtype=np.int64)
    index[cells] = np.arange(cells.size)
    index = index.reshape(h, w)
    o = np.asarray(pose.position, dtype=float)
    n = d_all.shape[0]
    best = np.full(n, np.inf)
    ids = np.zeros(n, dtype=np.int32)
    rgb = np.zeros((n, 3), dtype=float)
    length = np.linalg.norm(d_all, axis=1)
    unit = d_all / length[:, None]
    rects = screen_rects(boxes, pose, intr) if rects is None else rects
    centres = [np.asarray(b.center, dtype=float) for b in boxes]
    radii = [float(np.linalg.norm(b.half)) for b in boxes]
    dists = [float(np.linalg.norm(c - o)) for c in centres]
    # nearest first (by the nearest point of each bounding sphere)
    for i in sorted(range(len(boxes)), key=lambda i: dists[i] - radii[i]):
        r0, r1, c0, c1 = rects[i]
        r0, r1 = max(r0, window[0]), min(r1, window[1])
        c0, c1 = max(c0, window[2]), min(c1, window[3])
        if r0 >= r1 or c0 >= c1:
            continue  # nowhere on screen, or not where rays are cast
        sel = index[r0:r1, c0:c1].ravel()
        if pixels is not None:
            sel = sel[sel >= 0]
        if sel.size == 0:
            continue
        b, radius, dist = boxes[i], radii[i], dists[i]
        to_c = centres[i] - o
        if dist > radius * 1.0001:
            cos_cone = math.sqrt(max(0.0, 1.0 - (radius / dist) ** 2))
            sel = sel[unit[sel] @ (to_c / dist) >= cos_cone - 1e-9]
            if sel.size == 0:
                continue
            if np.all((dist - radius) / length[sel] > best[sel]):
                continue  # hidden behind what these rays already hit
        t, hit = _slab(b, o - centres[i], d_all[sel])
        closer = hit & (t < best[sel]) & (t > 0)
        idx = sel[closer]
        best[idx] = t[closer]
        ids[idx] = b.instance_id
        rgb[idx] = b.rgb
    if pixels is None:
        return best.reshape(h, w), ids.reshape(h, w), rgb.reshape(h, w, 3)
    return best[back], ids[back], rgb[back]


def _rays(pose: CameraPose, intr: Intrinsics, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(N, 3) the rays of :func:`~streamspatial.sim.render.scene.pixel_rays` through the given
    pixels, computed alone (the same arithmetic, so the very same numbers)."""
    right, up, forward = camera_axes(pose)
    u = (cols + 0.5 - intr.cx) / intr.fx
    v = (rows + 0.5 - intr.cy) / intr.fy
    return u[:, None] * right + (-v)[:, None] * up + forward


def _slab(b: Box, rel: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ray parameter of the first hit of each ray ``rel + t·d`` (box-centred origin, world
    axes) on the box ``b``, and whether it hits at all: the slab test, axis by axis."""
    c, s = math.cos(-b.yaw), math.sin(-b.yaw)
    lo = (c * rel[0] - s * rel[1], s * rel[0] + c * rel[1], rel[2])
    ld = (c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1], d[:, 2])
    tmin = tmax = None
    parallel_outside = np.zeros(len(d), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(3):
            inv = 1.0 / ld[k]
            t1 = (-b.half[k] - lo[k]) * inv
            t2 = (b.half[k] - lo[k]) * inv
            near, far = np.minimum(t1, t2), np.maximum(t1, t2)
            # fmax/fmin skip NaN (0·inf on a slab's plane) as nanmax/nanmin over the axes do
            tmin = near if tmin is None else np.fmax(tmin, near)
            tmax = far if tmax is None else np.fmin(tmax, far)
            if abs(lo[k]) > b.half[k]:  # a ray parallel to a slab it starts outside of
                parallel_outside |= ld[k] == 0
    hit = (tmax >= np.maximum(tmin, 0.0)) & ~parallel_outside
    return np.where(tmin > 0, tmin, tmax), hit


def screen_rects(boxes: list[Box], pose: CameraPose, intr: Intrinsics) -> np.ndarray:
    """(B, 4) pixel rectangles ``r0, r1, c0, c1`` (ends excluded, clamped to the frame) that
    hold every pixel whose ray can hit each box; empty where none can, the whole frame for a
    box within ``NEAR_BOX`` of the camera."""
    h, w = intr.height, intr.width
    full = np.array([0, h, 0, w])
    if not boxes:
        return np.zeros((0, 4), dtype=int)
    centre = np.array([b.center for b in boxes], dtype=float)
    half = np.array([b.half for b in boxes], dtype=float)
    yaw = np.array([b.yaw for b in boxes], dtype=float)
    cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    local = _SIGNS[None] * half[:, None, :]  # (B, 8, 3)
    corners = np.stack(
        [
            centre[:, None, 0] + cos * local[..., 0] - sin * local[..., 1],
            centre[:, None, 1] + sin * local[..., 0] + cos * local[..., 1],
            centre[:, None, 2] + local[..., 2],
        ],
        axis=-1,
    )
    right, up, forward = camera_axes(pose)
    rel = corners - np.asarray(pose.position, dtype=float)
    x, y, z = rel @ right, rel @ up, rel @ forward  # (B, 8) camera coordinates
    # The box clipped to z ≥ NEAR_CLIP: its corners in front, and where its edges cross.
    za, zb = z[:, _EDGES[:, 0]], z[:, _EDGES[:, 1]]
    crosses = (za - NEAR_CLIP) * (zb - NEAR_CLIP) < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(crosses, (NEAR_CLIP - za) / (zb - za), 0.0)
    ex = x[:, _EDGES[:, 0]] + f * (x[:, _EDGES[:, 1]] - x[:, _EDGES[:, 0]])
    ey = y[:, _EDGES[:, 0]] + f * (y[:, _EDGES[:, 1]] - y[:, _EDGES[:, 0]])
    px = np.concatenate([x, ex], axis=1)
    py = np.concatenate([y, ey], axis=1)
    pz = np.concatenate([z, np.full_like(ex, NEAR_CLIP)], axis=1)
    valid = np.concatenate([z >= NEAR_CLIP, crosses], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(valid, px / pz * intr.fx + intr.cx - 0.5, np.nan)
        v = np.where(valid, -py / pz * intr.fy + intr.cy - 0.5, np.nan)
    out = np.zeros((len(boxes), 4), dtype=int)  # empty by default
    seen = valid.any(axis=1)
    if seen.any():
        umin, umax = np.nanmin(u[seen], axis=1), np.nanmax(u[seen], axis=1)
        vmin, vmax = np.nanmin(v[seen], axis=1), np.nanmax(v[seen], axis=1)
        big = float(max(h, w)) * 1e3  # keep far-off projections finite before rounding
        c0 = np.floor(np.clip(umin, -big, big)) - RECT_MARGIN
        c1 = np.ceil(np.clip(umax, -big, big)) + 1 + RECT_MARGIN
        r0 = np.floor(np.clip(vmin, -big, big)) - RECT_MARGIN
        r1 = np.ceil(np.clip(vmax, -big, big)) + 1 + RECT_MARGIN
        out[seen] = np.stack(
            [np.clip(r0, 0, h), np.clip(r1, 0, h), np.clip(c0, 0, w), np.clip(c1, 0, w)], axis=1
        ).astype(int)
    # A box the camera (nearly) touches can be hit nearer than NEAR_CLIP: every ray.
    rel_c = np.asarray(pose.position, dtype=float) - centre
    lx = cos[:, 0] * rel_c[:, 0] + sin[:, 0] * rel_c[:, 1]
    ly = -sin[:, 0] * rel_c[:, 0] + cos[:, 0] * rel_c[:, 1]
    gap = np.maximum(np.abs(np.stack([lx, ly, rel_c[:, 2]], axis=1)) - half, 0.0)
    out[np.linalg.norm(gap, axis=1) < NEAR_BOX] = full
    return out
