"""A z-buffer rasteriser for scan meshes, in NumPy: which triangle is nearest at each pixel.

Visibility (:mod:`.visibility`) needs, per frame, the nearest surface of the mesh at every
pixel and which triangle it belongs to.  Scan meshes are rendered from hundreds of poses each,
on machines without a GPU, so this is a vectorised rasteriser rather than a GL context per
scan: triangles are clipped at the near plane, projected, expanded to the pixel centres inside
their screen boxes (in chunks, so memory stays bounded), tested with edge functions, and the
nearest depth per pixel kept with ``np.minimum.at``.  Depth is interpolated perspective-
correctly (``1/z`` is linear on the screen).  Pixel centres follow OpenCV (``(j, i)`` for row
``i``, column ``j``), as the datasets' intrinsics do.
"""

from __future__ import annotations

import numpy as np

from .types import Camera

NEAR = 0.02  # m: triangles are clipped here
CHUNK = 1 << 21  # candidate pixels per pass (≈ 2 M: about 200 MB of temporaries at most)


def to_camera(vertices: np.ndarray, camera_to_world: np.ndarray) -> np.ndarray:
    """World points (N, 3) in the camera's frame."""
    rot = camera_to_world[:3, :3]
    return (vertices - camera_to_world[:3, 3]) @ rot


def _clip(tri: np.ndarray, src: np.ndarray, near: float) -> tuple[np.ndarray, np.ndarray]:
    """Triangles (T, 3, 3) in camera coordinates cut at ``z = near``: those wholly in front
    kept, those wholly behind dropped, the others cut into one or two triangles."""
    behind = tri[:, :, 2] < near
    nb = behind.sum(axis=1)
    out = [tri[nb == 0]]
    ids = [src[nb == 0]]
    for count in (1, 2):
        sel = nb == count
        if not sel.any():
            continue
        t, s, b = tri[sel], src[sel], behind[sel]
        # roll each triangle so that its odd vertex (the one behind, or the one in front) is first
        odd = np.argmax(b if count == 1 else ~b, axis=1)
        order = (odd[:, None] + np.arange(3)[None, :]) % 3
        t = np.take_along_axis(t, order[:, :, None], axis=1)
        a, p, q = t[:, 0], t[:, 1], t[:, 2]

        def cut(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            k = ((near - x[:, 2]) / (y[:, 2] - x[:, 2]))[:, None]
            return x + k * (y - x)

        if count == 1:  # a behind: quad p, q, q→a, p→a
            qa, pa = cut(q, a), cut(p, a)
            out += [np.stack([p, q, qa], axis=1), np.stack([p, qa, pa], axis=1)]
            ids += [s, s]
        else:  # only a in front
            out.append(np.stack([a, cut(a, p), cut(a, q)], axis=1))
            ids.append(s)
    return np.concatenate(out), np.concatenate(ids)


def rasterize(
    points_cam: np.ndarray, faces: np.ndarray, camera: Camera, near: float = NEAR
) -> tuple[np.ndarray, np.ndarray]:
    """(depth (H, W) float32, inf where nothing; face index (H, W) int64, −1 where nothing)
    of the mesh ``points_cam[faces]`` seen by ``camera``."""
    w, h = camera.width, camera.height
    zbuf = np.full(w * h, np.inf)
    fbuf = np.full(w * h, -1, dtype=np.int64)
    if len(faces) == 0:
        return zbuf.reshape(h, w).astype(np.float32), fbuf.reshape(h, w)
    tri = points_cam[faces]
    src = np.arange(len(faces))
    front = (tri[:, :, 2] >= near).any(axis=1)
    tri, src = _clip(tri[front], src[front], near)
    z = tri[:, :, 2]
    u = camera.fx * tri[:, :, 0] / z + camera.cx
    v = camera.fy * tri[:, :, 1] / z + camera.cy
    i0 = np.clip(np.ceil(v.min(axis=1)), 0, h).astype(np.int64)
    i1 = np.clip(np.floor(v.max(axis=1)), -1, h - 1).astype(np.int64)
    inside_x = (u.max(axis=1) >= 0) & (u.min(axis=1) <= w - 1)
    area = (u[:, 1] - u[:, 0]) * (v[:, 2] - v[:, 0]) - (u[:, 2] - u[:, 0]) * (v[:, 1] - v[:, 0])
    keep = (i1 >= i0) & inside_x & (np.abs(area) > 1e-12)
    u, v, z, src, area, i0 = u[keep], v[keep], z[keep], src[keep], area[keep], i0[keep]
    rows = (i1[keep] - i0 + 1).astype(np.int64)
    if len(rows) == 0:
        return zbuf.reshape(h, w).astype(np.float32), fbuf.reshape(h, w)
    # one (triangle, row) pair per pixel row a triangle spans; its covered columns follow
    # from where the row's centre line crosses the triangle's edges
    t = np.repeat(np.arange(len(rows)), rows)
    py = i0[t] + (np.arange(int(rows.sum())) - np.repeat(np.cumsum(rows) - rows, rows))
    lo = np.full(len(t), np.inf)
    hi = np.full(len(t), -np.inf)
    for a, b in ((0, 1), (1, 2), (2, 0)):
        ya, yb = v[t, a], v[t, b]
        cross = (np.minimum(ya, yb) <= py) & (py <= np.maximum(ya, yb)) & (ya != yb)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = u[t, a] + (py - ya) * (u[t, b] - u[t, a]) / (yb - ya)
        lo = np.where(cross, np.minimum(lo, x), lo)
        hi = np.where(cross, np.maximum(hi, x), hi)
    j0 = np.clip(np.ceil(lo - 1e-9), 0, w).astype(np.int64)
    j1 = np.clip(np.floor(hi + 1e-9), -1, w - 1).astype(np.int64)
    count = np.where(np.isfinite(lo) & (j1 >= j0), j1 - j0 + 1, 0)
    ends = np.cumsum(count)
    start = 0
    while start < len(count):
        # row spans [start, stop) hold at most CHUNK pixels (one span at least)
        base = ends[start] - count[start]
        stop = max(start + 1, int(np.searchsorted(ends, base + CHUNK, side="right")))
        sl = slice(start, stop)
        _fill(zbuf, fbuf, w, t[sl], py[sl], j0[sl], count[sl], u, v, z, src, area)
        start = stop
    return zbuf.reshape(h, w).astype(np.float32), fbuf.reshape(h, w)


def _fill(zbuf, fbuf, w, rows_t, rows_y, rows_j0, count, u, v, z, src, area) -> None:
    """Depth-test the pixels of the given row spans into the buffers."""
    n = int(count.sum())
    if n == 0:
        return
    t = np.repeat(rows_t, count)
    py = np.repeat(rows_y, count)
    px = np.repeat(rows_j0, count) + (np.arange(n) - np.repeat(np.cumsum(count) - count, count))
    u0, u1, u2 = u[t, 0], u[t, 1], u[t, 2]
    v0, v1, v2 = v[t, 0], v[t, 1], v[t, 2]
    inv = 1.0 / area[t]
    w0 = np.clip(((u1 - px) * (v2 - py) - (u2 - px) * (v1 - py)) * inv, 0, 1)
    w1 = np.clip(((u2 - px) * (v0 - py) - (u0 - px) * (v2 - py)) * inv, 0, 1)
    w2 = np.clip(1.0 - w0 - w1, 0, 1)
    depth = 1.0 / (w0 / z[t, 0] + w1 / z[t, 1] + w2 / z[t, 2])
    flat = py * w + px
    np.minimum.at(zbuf, flat, depth)
    win = depth <= zbuf[flat]
    fbuf[flat[win]] = src[t[win]]
