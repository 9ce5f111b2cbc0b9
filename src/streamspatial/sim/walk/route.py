"""Legs of a walk on the occupancy grid: A* between two cells, smoothed where that stays free.

Each leg is the shortest 8-connected path over free cells (:func:`astar`); a B-spline through
every third cell replaces it (:func:`smooth_path`) only if every centimetre of the smoothed
line stays on free cells, otherwise the A* polyline is walked.
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
from scipy import interpolate

from streamspatial.sim.house.occupancy import Occupancy

_NEIGH = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]


def astar(free: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[int, int]]:
    """Shortest 8-connected path over free cells; diagonals may not cut a blocked corner.

    Returns the list of cells from start to goal, or ``[]`` when the goal is unreachable.
    """
    rows, cols = free.shape
    if not (free[start] and free[goal]):
        return []
    g = {start: 0.0}
    came: dict[tuple[int, int], tuple[int, int]] = {}
    heap = [(0.0, 0, start)]
    tie = 0
    closed = set()
    while heap:
        _, _, cur = heapq.heappop(heap)
        if cur == goal:
            path = [cur]
            while cur in came:
                cur = came[cur]
                path.append(cur)
            return path[::-1]
        if cur in closed:
            continue
        closed.add(cur)
        r, c = cur
        for dr, dc in _NEIGH:
            nr, nc = r + dr, c + dc
            if not (0 <= nr < rows and 0 <= nc < cols) or not free[nr, nc]:
                continue
            if dr and dc and not (free[r + dr, c] and free[r, c + dc]):
                continue
            ng = g[cur] + (math.sqrt(2) if dr and dc else 1.0)
            if ng < g.get((nr, nc), math.inf):
                g[(nr, nc)] = ng
                came[(nr, nc)] = cur
                h = math.hypot(goal[0] - nr, goal[1] - nc)
                tie += 1
                heapq.heappush(heap, (ng + h, tie, (nr, nc)))
    return []


def path_free(occ: Occupancy, pts: np.ndarray, step: float) -> bool:
    """All points, and points every ``step`` metres between consecutive ones, are free."""
    for a, b in itertools.pairwise(pts):
        n = max(1, math.ceil(float(np.hypot(*(b - a))) / step))
        for t in np.linspace(0.0, 1.0, n + 1):
            p = a + (b - a) * t
            if not occ.is_free(float(p[0]), float(p[1])):
                return False
    return True


def smooth_path(occ: Occupancy, cells: list[tuple[int, int]]) -> np.ndarray:
    """World-space polyline (N, 2) for an A* cell path, B-spline smoothed when that stays free."""
    pts = np.array([occ.to_world(r, c) for r, c in cells], dtype=float)
    if len(pts) < 5:
        return pts
    ctrl = pts[::3]
    if not np.array_equal(ctrl[-1], pts[-1]):
        ctrl = np.vstack([ctrl, pts[-1]])
    if len(ctrl) >= 4:
        try:
            tck, _ = interpolate.splprep([ctrl[:, 0], ctrl[:, 1]], s=len(ctrl) * 0.01, k=3)
            length = float(np.sum(np.hypot(*np.diff(pts, axis=0).T)))
            u = np.linspace(0.0, 1.0, max(8, math.ceil(length / 0.05)))
            sx, sy = interpolate.splev(u, tck)
            smooth = np.stack([sx, sy], axis=1)
            smooth[0], smooth[-1] = pts[0], pts[-1]
            # Checked every centimetre: the walk samples its own points on the chords between
            # the spline's, and a chord can clip the corner of a blocked cell.
            if path_free(occ, smooth, occ.resolution / 10):
                return smooth
        except (ValueError, TypeError):  # degenerate control points: fall back
            pass
    return pts


__all__ = ["astar", "path_free", "smooth_path"]
