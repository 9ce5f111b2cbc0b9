"""The scan's room: its floor level, floor outline and area as VSI-Bench computes it.

ScanNet and ARKitScenes scans are single rooms, and so is each scan here.  VSI-Bench's room
size (VLM-3R's ``common_utils.calculate_room_area``) is the area of the alpha shape
(``alpha = 5``: Delaunay triangles of circumradius under 0.2 m) of 10,000 floor-plane points
sampled from the scan.  Here the points are sampled on the floor's triangles, area-weighted
(labelled floor, or, in a scan without floor labels, the upward-facing triangles within
:data:`FLOOR_BAND` of the floor level), with a seeded generator so a scan has one area.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull, Delaunay, QhullError

from .types import ScanMesh

ALPHA = 5.0  # VLM-3R's calculate_room_area
SAMPLES = 10_000  # points sampled, as there
FLOOR_BAND = 0.10  # m above the floor level that unlabelled floor triangles may lie
FLOOR_PERCENTILE = 2.0  # floor level without labels: this percentile of the vertices' z


def floor_level(mesh: ScanMesh) -> float:
    """The floor's height: the median of labelled floor vertices, else a low percentile."""
    if mesh.floor.any():
        # the floor's upward-facing surface (a floor modelled as a slab has a bottom too)
        idx = np.flatnonzero(mesh.floor[mesh.faces].all(axis=1)) if len(mesh.faces) else []
        tri = mesh.vertices[mesh.faces[idx]] if len(idx) else np.zeros((0, 3, 3))
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]) if len(tri) else tri[:, 0]
        up = n[:, 2] > 0.9 * (np.linalg.norm(n, axis=1) + 1e-12) if len(tri) else []
        if np.any(up):
            return float(np.median(tri[up][:, :, 2]))
        return float(np.median(mesh.vertices[mesh.floor, 2]))
    if len(mesh.vertices) == 0:
        return 0.0
    return float(np.percentile(mesh.vertices[:, 2], FLOOR_PERCENTILE))


def floor_faces(mesh: ScanMesh, level: float) -> np.ndarray:
    """Indices of the floor's triangles."""
    f = mesh.faces
    if len(f) == 0:
        return np.zeros(0, dtype=np.int64)
    if mesh.floor.any():
        return np.flatnonzero(mesh.floor[f].all(axis=1))
    tri = mesh.vertices[f]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    norm = np.linalg.norm(n, axis=1) + 1e-12
    up = np.abs(n[:, 2]) / norm > 0.9
    low = (np.abs(tri[:, :, 2] - level) <= FLOOR_BAND).all(axis=1)
    return np.flatnonzero(up & low)


def floor_points(mesh: ScanMesh, level: float, n: int = SAMPLES, seed: int = 0) -> np.ndarray:
    """``n`` points (x, y) on the floor's triangles, area-weighted."""
    idx = floor_faces(mesh, level)
    if len(idx) == 0:
        return np.zeros((0, 2))
    tri = mesh.vertices[mesh.faces[idx]][:, :, :2]
    a = 0.5 * np.abs(
        (tri[:, 1, 0] - tri[:, 0, 0]) * (tri[:, 2, 1] - tri[:, 0, 1])
        - (tri[:, 2, 0] - tri[:, 0, 0]) * (tri[:, 1, 1] - tri[:, 0, 1])
    )
    if a.sum() <= 0:
        return np.zeros((0, 2))
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(idx), size=n, p=a / a.sum())
    r1, r2 = rng.random(n), rng.random(n)
    s = np.sqrt(r1)
    t = tri[pick]
    return (
        (1 - s)[:, None] * t[:, 0] + (s * (1 - r2))[:, None] * t[:, 1] + (s * r2)[:, None] * t[:, 2]
    )


def alpha_area(points: np.ndarray, alpha: float = ALPHA) -> float:
    """Area of the 2D alpha shape of ``points``: the Delaunay triangles whose circumradius is
    below ``1 / alpha`` (the ``alphashape`` package's definition), summed."""
    if len(points) < 3:
        return 0.0
    try:
        tri = points[Delaunay(points).simplices]
    except QhullError:
        return 0.0
    a = np.linalg.norm(tri[:, 1] - tri[:, 0], axis=1)
    b = np.linalg.norm(tri[:, 2] - tri[:, 1], axis=1)
    c = np.linalg.norm(tri[:, 0] - tri[:, 2], axis=1)
    area = 0.5 * np.abs(
        (tri[:, 1, 0] - tri[:, 0, 0]) * (tri[:, 2, 1] - tri[:, 0, 1])
        - (tri[:, 2, 0] - tri[:, 0, 0]) * (tri[:, 1, 1] - tri[:, 0, 1])
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        radius = a * b * c / (4 * area)
    return float(area[np.isfinite(radius) & (radius < 1 / alpha)].sum())


def outline(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The floor's outline as a counter-clockwise polygon (the points' convex hull)."""
    try:
        hull = points[ConvexHull(points).vertices]
    except (QhullError, ValueError):
        (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
        hull = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return tuple((round(float(x), 4), round(float(y), 4)) for x, y in hull)
