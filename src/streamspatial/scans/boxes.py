"""Gravity-aligned object boxes: fitted to an instance's points, or read from a dataset's OBB.

The question generators take a box per object as the simulator keeps it: a centre, extents
along the object's own axes and a yaw about ``z``.  ScanNet ships no boxes, so the box is
fitted to the instance's vertices: the smallest-area rectangle around their floor projection
(one side lies along an edge of their convex hull) and their height range.  ARKitScenes and
ScanNet++ ship oriented boxes (``centroid``, ``axesLengths``, ``normalizedAxes``, the three
unit axes one after another); a box already upright is taken as it is, a tilted one is fitted
like points, through its eight corners.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from .types import Box

UPRIGHT = 1e-3  # |axis·z| of a box's most vertical axis above 1 − this: upright


def fit_box(points: np.ndarray) -> Box:
    """The gravity-aligned box of least footprint around ``points`` (N, 3)."""
    pts = np.asarray(points, dtype=np.float64)
    z0, z1 = float(pts[:, 2].min()), float(pts[:, 2].max())
    xy = pts[:, :2]
    try:
        hull = xy[ConvexHull(xy).vertices]
    except (QhullError, ValueError):  # collinear or too few points: the axis-aligned box
        hull = xy
    best: tuple[float, float, float, float, float, float] | None = None
    edges = np.roll(hull, -1, axis=0) - hull
    angles = np.unique(np.round(np.mod(np.arctan2(edges[:, 1], edges[:, 0]), math.pi / 2), 9))
    for a in angles if len(angles) else [0.0]:
        c, s = math.cos(a), math.sin(a)
        u = hull @ np.array([c, s])
        v = hull @ np.array([-s, c])
        area = (u.max() - u.min()) * (v.max() - v.min())
        if best is None or area < best[0] - 1e-12:
            best = (area, a, u.min(), u.max(), v.min(), v.max())
    assert best is not None
    _, a, u0, u1, v0, v1 = best
    c, s = math.cos(a), math.sin(a)
    cu, cv = (u0 + u1) / 2, (v0 + v1) / 2
    center = (cu * c - cv * s, cu * s + cv * c, (z0 + z1) / 2)
    return Box(center, (u1 - u0, v1 - v0, z1 - z0), _wrap(a))


def obb_box(centroid, axes_lengths, normalized_axes) -> Box:
    """A dataset's oriented box as a gravity-aligned one."""
    c = np.asarray(centroid, dtype=np.float64).reshape(3)
    ext = np.asarray(axes_lengths, dtype=np.float64).reshape(3)
    axes = np.asarray(normalized_axes, dtype=np.float64).reshape(3, 3)  # rows: the axes
    up = int(np.argmax(np.abs(axes[:, 2])))
    if abs(axes[up, 2]) >= 1 - UPRIGHT:
        first = next(i for i in range(3) if i != up)
        second = next(i for i in range(3) if i not in (up, first))
        yaw = math.atan2(axes[first, 1], axes[first, 0])
        return Box(tuple(map(float, c)), (ext[first], ext[second], ext[up]), _wrap(yaw))
    return fit_box(obb_corners(c, ext, axes))


def obb_corners(center: np.ndarray, extents: np.ndarray, axes: np.ndarray) -> np.ndarray:
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return center + (signs * extents / 2) @ axes


def inside_box(points: np.ndarray, box: Box, margin: float = 0.0) -> np.ndarray:
    """Which of ``points`` (N, 3) lie in the box grown by ``margin`` on every side."""
    d = np.asarray(points, dtype=np.float64) - np.asarray(box.center)
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    u = d[:, 0] * c + d[:, 1] * s
    v = -d[:, 0] * s + d[:, 1] * c
    hx, hy, hz = (e / 2 + margin for e in box.size)
    return (np.abs(u) <= hx) & (np.abs(v) <= hy) & (np.abs(d[:, 2]) <= hz)


def _wrap(a: float) -> float:
    return math.atan2(math.sin(a), math.cos(a))
