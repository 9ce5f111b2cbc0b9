"""Can the camera see a point?  A fast geometric prediction, made before anything is rendered.

The event planner must put happenings where the camera will look, so it needs visibility for
thousands of (pose, point) pairs in well under a second.  Two tests, vectorised over poses and
points: the point lies in the camera's view frustum (vertical field of view and aspect of the
renderer, a margin at the border), and the floor-plan segment from the camera to the point
crosses no wall (walls are full height; door gaps are already cut out of ``House.walls``).
Furniture is ignored: it occludes only low things, and the planner lifts what it checks to
about 1 m.  ``tests/sim/test_sim_events_plan.py`` holds it against the ray–box reference
:mod:`~streamspatial.sim.render.raycast`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from streamspatial.scene.types import CameraPose, House
from streamspatial.sim.events.params import ASPECT, EDGE_MARGIN, NEAR, VFOV_DEG


def _pose_arrays(poses: Sequence[CameraPose]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cam = np.array([p.position for p in poses], dtype=float).reshape(-1, 3)
    yaw = np.array([p.yaw for p in poses], dtype=float)
    pitch = np.array([p.pitch for p in poses], dtype=float)
    return cam, yaw, pitch


def in_frustum(
    cam: np.ndarray,
    yaw: np.ndarray,
    pitch: np.ndarray,
    points: np.ndarray,
    *,
    vfov_deg: float = VFOV_DEG,
    aspect: float = ASPECT,
    margin: float = EDGE_MARGIN,
) -> np.ndarray:
    """(P, N) bool: point n inside the view frustum of pose p (no occlusion)."""
    tv = math.tan(math.radians(vfov_deg) / 2) * margin
    th = math.tan(math.radians(vfov_deg) / 2) * aspect * margin
    cy, sy, cp, sp = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch)
    fwd = np.stack([cp * cy, cp * sy, sp], axis=1)
    right = np.stack([sy, -cy, np.zeros_like(cy)], axis=1)
    up = np.stack([-sp * cy, -sp * sy, cp], axis=1)
    d = points[None, :, :] - cam[:, None, :]
    z = np.einsum("pnk,pk->pn", d, fwd)
    x = np.einsum("pnk,pk->pn", d, right)
    y = np.einsum("pnk,pk->pn", d, up)
    return (z > NEAR) & (np.abs(x) <= z * th) & (np.abs(y) <= z * tv)


def wall_rects(house: House, shrink: float = 1e-3) -> np.ndarray:
    """(W, 4) floor rectangles ``x0, y0, x1, y1`` of the walls (slightly shrunk: a point on a
    wall's face still counts as seen)."""
    out = []
    for w in house.walls:
        (cx, cy, _), (sx, sy, _) = w.box()
        out.append(
            (cx - sx / 2 + shrink, cy - sy / 2 + shrink, cx + sx / 2 - shrink, cy + sy / 2 - shrink)
        )
    return np.array(out, dtype=float).reshape(-1, 4)


def line_of_sight(rects: np.ndarray, cam_xy: np.ndarray, points_xy: np.ndarray) -> np.ndarray:
    """(P, N) bool: the floor segment camera p → point n crosses no rectangle (slab test)."""
    o = cam_xy[:, None, None, :]  # P,1,1,2
    d = points_xy[None, :, None, :] - o  # P,N,1,2
    lo = rects[None, None, :, :2]
    hi = rects[None, None, :, 2:]
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        t1 = (lo - o) * inv
        t2 = (hi - o) * inv
    t1 = np.nan_to_num(t1, nan=-np.inf)
    t2 = np.nan_to_num(t2, nan=np.inf)
    tmin = np.minimum(t1, t2).max(axis=-1)
    tmax = np.maximum(t1, t2).min(axis=-1)
    # Parallel to an axis and outside that slab: never hits.
    par_out = ((d == 0) & ((o < lo) | (o > hi))).any(axis=-1)
    hit = (tmax >= np.maximum(tmin, 0.0)) & (tmin <= 1.0) & ~par_out
    return ~hit.any(axis=-1)


def open_distance(
    rects: np.ndarray, xy: Sequence[float], yaw: float, *, far: float = 6.0, step: float = 0.1
) -> float:
    """How far (m, up to ``far``) the floor ray from ``xy`` along ``yaw`` runs before a wall."""
    d = np.arange(step, far + step / 2, step)
    pts = np.stack([xy[0] + d * math.cos(yaw), xy[1] + d * math.sin(yaw)], axis=1)
    clear = line_of_sight(rects, np.asarray(xy[:2], float)[None], pts)[0]
    return float(far if clear.all() else d[int(np.argmin(clear))] - step)


def visible_many(
    house: House,
    poses: Sequence[CameraPose],
    points: np.ndarray,
    *,
    aspect: float = ASPECT,
    rects: np.ndarray | None = None,
) -> np.ndarray:
    """(P, N) bool: point n predicted visible from pose p (frustum and walls)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    if not poses or not len(pts):
        return np.zeros((len(poses), len(pts)), dtype=bool)
    cam, yaw, pitch = _pose_arrays(poses)
    out = in_frustum(cam, yaw, pitch, pts, aspect=aspect)
    if out.any():
        rects = wall_rects(house) if rects is None else rects
        p_idx = np.flatnonzero(out.any(axis=1))
        out[p_idx] &= line_of_sight(rects, cam[p_idx, :2], pts[:, :2])
    return out


def visible(
    house: House,
    poses: Sequence[CameraPose],
    point: Sequence[float],
    *,
    aspect: float = ASPECT,
    rects: np.ndarray | None = None,
) -> np.ndarray:
    """(P,) bool: ``point`` (x, y, z) predicted visible from each pose."""
    return visible_many(house, poses, np.asarray(point, float)[None], aspect=aspect, rects=rects)[
        :, 0
    ]


__all__ = ["in_frustum", "line_of_sight", "open_distance", "visible", "visible_many", "wall_rects"]
