"""Where dynamic things can be in a house: furniture tops, free floor, door leaves, tracks.

Helpers of the event planner (:mod:`.plan`): the furniture tops props and metronomes stand
on (only free spots, away from the house's own small objects), straight legs on free floor
(the walk's occupancy grid, so a person or a ball never walks through furniture or walls),
and actor tracks with gaps.  Door leaves follow :mod:`~streamspatial.scene.doors`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from streamspatial.scene import catalog
from streamspatial.scene.schedule import Waypoint
from streamspatial.scene.types import House, SceneObject
from streamspatial.sim.events.params import PROP_GAP, SURFACE_TOP
from streamspatial.sim.house.occupancy import Occupancy

SPOT_STEP = 0.16  # m between candidate prop spots on a top: room for a 0.1 m prop and a gap


@dataclass(frozen=True)
class Surface:
    """A furniture top and the free spots on it (world x, y)."""

    obj: SceneObject
    top: float  # z of the top
    spots: tuple[tuple[float, float], ...]

    @property
    def xy(self) -> tuple[float, float]:
        return (self.obj.position[0], self.obj.position[1])

    def point(self, lift: float = 0.1) -> tuple[float, float, float]:
        return (self.obj.position[0], self.obj.position[1], self.top + lift)


def surfaces(house: House) -> list[Surface]:
    """Supporting furniture tops at a height the camera looks onto, with free spots."""
    support = {c.name for cats in catalog.FURNITURE.values() for c in cats if c.support}
    smalls: dict[int, list[SceneObject]] = {}
    for o in house.objects:
        if o.kind == "small":
            smalls.setdefault(o.support_id, []).append(o)
    out = []
    for o in house.objects:
        top = o.position[2] + o.size[2] / 2
        if o.kind != "furniture" or o.category not in support:
            continue
        if not SURFACE_TOP[0] <= top <= SURFACE_TOP[1]:
            continue
        hx, hy = o.size[0] / 2 - PROP_GAP - 0.05, o.size[1] / 2 - PROP_GAP - 0.05
        if hx < 0 or hy < 0:
            continue
        lx = np.arange(-hx, hx + 1e-6, SPOT_STEP) if hx >= SPOT_STEP / 2 else np.zeros(1)
        ly = np.arange(-hy, hy + 1e-6, SPOT_STEP) if hy >= SPOT_STEP / 2 else np.zeros(1)
        lx, ly = lx - (lx.mean() if lx.size else 0), ly - (ly.mean() if ly.size else 0)
        c, s = math.cos(o.yaw), math.sin(o.yaw)
        spots = []
        for a in lx:
            for b in ly:
                x = o.position[0] + c * a - s * b
                y = o.position[1] + s * a + c * b
                if not any(
                    _near_box(x, y, sm, PROP_GAP + 0.06) for sm in smalls.get(o.instance_id, [])
                ):
                    spots.append((round(float(x), 4), round(float(y), 4)))
        if spots:
            out.append(Surface(o, top, tuple(spots)))
    return out


def _near_box(x: float, y: float, o: SceneObject, pad: float) -> bool:
    (ax, ay, _), (bx, by, _) = o.aabb()
    return ax - pad <= x <= bx + pad and ay - pad <= y <= by + pad


def free_at(occ: Occupancy, pts: np.ndarray) -> np.ndarray:
    """(N,) bool: each floor point (x, y) on a free cell of the grid."""
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    c = np.floor((pts[:, 0] - occ.origin[0]) / occ.resolution).astype(int)
    r = np.floor((pts[:, 1] - occ.origin[1]) / occ.resolution).astype(int)
    rows, cols = occ.free.shape
    ok = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    out = np.zeros(len(pts), dtype=bool)
    out[ok] = occ.free[r[ok], c[ok]]
    return out


def line_points(a, b, step: float = 0.1) -> np.ndarray:
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = max(1, math.ceil(float(np.hypot(*(b - a))) / step))
    return a + (b - a) * np.linspace(0.0, 1.0, n + 1)[:, None]


def line_free(occ: Occupancy, a, b) -> bool:
    """Every point of the floor segment a → b (every 0.1 m) is free."""
    return bool(free_at(occ, line_points(a, b)).all())


def _free_cells_from_edge(occ: Occupancy, surf: Surface):
    """Every free cell (rows, columns, world x, world y) and its floor distance to the
    surface's footprint."""
    (ax, ay, _), (bx, by, _) = surf.obj.aabb()
    rr, cc = np.nonzero(occ.free)
    wx = occ.origin[0] + (cc + 0.5) * occ.resolution
    wy = occ.origin[1] + (rr + 0.5) * occ.resolution
    dx = np.maximum(np.maximum(ax - wx, wx - bx), 0.0)
    dy = np.maximum(np.maximum(ay - wy, wy - by), 0.0)
    return rr, cc, wx, wy, np.hypot(dx, dy)


def stand_points(
    occ: Occupancy, surf: Surface, reach: float, k: int = 10
) -> list[tuple[float, float]]:
    """Up to ``k`` free floor points within ``reach`` of the surface's edge, nearest first,
    spread around it (where a person stands to put something on it or take it)."""
    _, _, wx, wy, edge = _free_cells_from_edge(occ, surf)
    idx = np.flatnonzero(edge <= reach)
    idx = idx[np.argsort(edge[idx], kind="stable")]
    step = max(1, len(idx) // k)
    return [(float(wx[i]), float(wy[i])) for i in idx[::step][:k]]


def stand_point(occ: Occupancy, surf: Surface, reach: float) -> tuple[float, float] | None:
    """The free floor point nearest the surface's centre, within ``reach`` of its edge."""
    rr, cc, wx, wy, edge = _free_cells_from_edge(occ, surf)
    ok = (edge <= reach) & (occ.room[rr, cc] == surf.obj.room_id)
    if not ok.any():
        return None
    d = np.where(ok, np.hypot(wx - surf.xy[0], wy - surf.xy[1]), np.inf)
    i = int(np.argmin(d))
    return (float(wx[i]), float(wy[i]))


# ----------------------------------------------------------------------------- tracks


def gapped_track(visits: list[list[Waypoint]], z: float) -> tuple[Waypoint, ...]:
    """One track from visits (each a list of present waypoints): absent before, between and
    after them, standing where it was last seen while absent."""
    if not visits:
        return (Waypoint(0.0, (0.0, 0.0, z), 0.0, False),)
    first = visits[0][0]
    out = [Waypoint(0.0, first.position, first.yaw, False)]
    for v in visits:
        if v[0].time <= out[-1].time:  # a visit from time 0: no absent prelude
            out.pop()
        last = v[-1]
        out.extend(v[:-1])
        out.append(Waypoint(last.time, last.position, last.yaw, False))
    return tuple(out)


__all__ = [
    "Surface",
    "free_at",
    "gapped_track",
    "line_free",
    "line_points",
    "stand_point",
    "surfaces",
]
