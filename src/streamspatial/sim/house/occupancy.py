"""Where a walking camera can stand: a metric occupancy grid of a house.

A cell is *free* when its centre is inside a room and at least ``radius`` metres from every
wall and piece of furniture (small objects stand on furniture, so they never block; rugs are
walked over).  House
generation uses it to keep the house walkable, trajectories stay on it, and the exploration
environment uses it for collisions, so "walkable" means one thing everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from streamspatial.scene.types import House

RESOLUTION = 0.1
RADIUS = 0.25
FLAT = 0.08  # furniture lower than this (rugs, mats) does not block walking


@dataclass(frozen=True)
class Occupancy:
    origin: tuple[float, float]  # world (x, y) of the corner of cell (0, 0)
    resolution: float
    radius: float
    room: np.ndarray  # (rows, cols) int32: room id under the cell centre, -1 outside
    clearance: np.ndarray  # (rows, cols) float: metres from the cell centre to any obstacle
    free: np.ndarray  # (rows, cols) bool: room >= 0 and clearance >= radius

    @property
    def shape(self) -> tuple[int, int]:
        return self.free.shape  # type: ignore[return-value]

    def to_cell(self, x: float, y: float) -> tuple[int, int]:
        """(row, col) of the cell containing the point (may be outside the grid)."""
        return (
            math.floor((y - self.origin[1]) / self.resolution),
            math.floor((x - self.origin[0]) / self.resolution),
        )

    def to_world(self, r: float, c: float) -> tuple[float, float]:
        """World (x, y) of the centre of cell (r, c)."""
        return (
            float(self.origin[0] + (c + 0.5) * self.resolution),
            float(self.origin[1] + (r + 0.5) * self.resolution),
        )

    def is_free(self, x: float, y: float) -> bool:
        r, c = self.to_cell(x, y)
        rows, cols = self.free.shape
        return 0 <= r < rows and 0 <= c < cols and bool(self.free[r, c])

    def main_component(self) -> np.ndarray:
        """The largest connected (8-neighbour) region of free cells."""
        labels, n = ndimage.label(self.free, structure=np.ones((3, 3), dtype=bool))
        if n == 0:
            return np.zeros_like(self.free)
        counts = np.bincount(labels.ravel())
        counts[0] = 0
        return labels == int(counts.argmax())


def occupancy(house: House, resolution: float = RESOLUTION, radius: float = RADIUS) -> Occupancy:
    (x0, y0), (x1, y1) = house.bounds
    pad = 2 * resolution
    origin = (x0 - pad, y0 - pad)
    cols = math.ceil((x1 - x0 + 2 * pad) / resolution)
    rows = math.ceil((y1 - y0 + 2 * pad) / resolution)
    xs = origin[0] + (np.arange(cols) + 0.5) * resolution
    ys = origin[1] + (np.arange(rows) + 0.5) * resolution
    gx, gy = np.meshgrid(xs, ys)

    room = np.full((rows, cols), -1, dtype=np.int32)
    for r in house.rooms:
        room[_in_polygon(gx, gy, r.polygon) & (room < 0)] = r.room_id

    blocked = room < 0
    for w in house.walls:
        (cx, cy, _), (sx, sy, _) = w.box()
        blocked |= _in_rect(gx, gy, cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2)
    for o in house.objects:
        if o.kind != "furniture" or o.size[2] < FLAT:  # rugs are walked over
            continue
        (ax, ay, _), (bx, by, _) = o.aabb()
        blocked |= _in_rect(gx, gy, ax, ay, bx, by)
    # Distance from cell centres to the nearest blocked cell centre, minus half a cell: a
    # conservative distance to the obstacle's edge.
    clearance = ndimage.distance_transform_edt(~blocked) * resolution - resolution / 2
    clearance = np.where(blocked, 0.0, clearance)
    free = (room >= 0) & (clearance >= radius)
    return Occupancy(origin, resolution, radius, room, clearance, free)


def _in_rect(gx, gy, ax, ay, bx, by) -> np.ndarray:
    return (gx >= ax) & (gx <= bx) & (gy >= ay) & (gy <= by)


def _in_polygon(gx: np.ndarray, gy: np.ndarray, poly) -> np.ndarray:
    inside = np.zeros(gx.shape, dtype=bool)
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        if y0 == y1:
            continue
        cond = (y0 > gy) != (y1 > gy)
        xi = x0 + (gy - y0) * (x1 - x0) / (y1 - y0)
        inside ^= cond & (gx < xi)
    return inside
