"""Where the walls, doors and windows of a house go: pure geometry, no rendering.

A room's walls are its *faces*: the inner surfaces of the plan's wall boxes, half a thickness
in from the room polygon.  A face is cut into wall rectangles around its openings (doors,
windows).  Exterior walls also get their *outer* surface (the "skin"), so a window that looks
along the house — into the inside corner of an L — sees the other wing's wall, not into it.
A window looks onto a picture of an outside (the "backdrop") standing a little beyond the
wall; the backdrop reaches past the opening on both sides but never into the house, and a
window goes only where the wall has the outside behind it along its whole width.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from streamspatial.scene.types import House, Room

DOOR_HEIGHT = 2.1
WINDOW_SILL, WINDOW_TOP = 0.9, 2.15
OUTSIDE_GAP = 0.6  # the outside picture stands this far beyond an exterior wall
BACKDROP_REACH = 3.0  # and reaches this far past each side of the opening where it can
# (rays through an opening at a grazing angle land up to ~2 m to the side)
WINDOW_MARGIN = 0.35  # a window keeps this far from the ends of the outside behind its wall


@dataclass(frozen=True)
class Face:
    """One wall face of a room: from ``a`` to ``b`` (world xy), ``normal`` into the room.

    ``convex`` says whether the room's corner at ``a`` and at ``b`` is convex (90°) or reflex
    (270°); ``exterior`` whether the outside lies behind the face's midpoint.
    """

    room: int
    a: tuple[float, float]
    b: tuple[float, float]
    normal: tuple[float, float]
    exterior: bool
    convex: tuple[bool, bool] = (True, True)

    @property
    def length(self) -> float:
        return math.dist(self.a, self.b)

    @property
    def along(self) -> np.ndarray:
        return np.subtract(self.b, self.a) / max(self.length, 1e-9)

    def at(self, s: float) -> tuple[float, float]:
        t = s / max(self.length, 1e-9)
        return (self.a[0] + (self.b[0] - self.a[0]) * t, self.a[1] + (self.b[1] - self.a[1]) * t)


def thickness(house: House) -> float:
    return house.walls[0].thickness if house.walls else 0.1


def room_faces(house: House, room: Room) -> list[Face]:
    """The inner wall faces of a room, corners trimmed or extended by half a thickness."""
    t = thickness(house)
    poly = room.polygon
    n = len(poly)
    out = []
    for i in range(n):
        p0, p1 = np.array(poly[i]), np.array(poly[(i + 1) % n])
        d = (p1 - p0) / np.linalg.norm(p1 - p0)
        nrm = np.array([-d[1], d[0]])  # interior is on the left of a CCW polygon
        prev_d = np.array(poly[i]) - np.array(poly[i - 1])
        next_d = np.array(poly[(i + 2) % n]) - p1
        convex0 = bool(prev_d[0] * d[1] - prev_d[1] * d[0] > 0)
        convex1 = bool(d[0] * next_d[1] - d[1] * next_d[0] > 0)
        a = p0 + nrm * t / 2 + d * (t / 2 if convex0 else -t / 2)
        b = p1 + nrm * t / 2 - d * (t / 2 if convex1 else -t / 2)
        mid = (p0 + p1) / 2 - nrm * 0.05
        exterior = house.room_at(float(mid[0]), float(mid[1])) is None
        out.append(Face(room.room_id, tuple(a), tuple(b), tuple(nrm), exterior, (convex0, convex1)))
    return out


def exterior_spans(house: House, face: Face) -> list[tuple[float, float]]:
    """(s0, s1) stretches of a face with the outside behind the wall, cut at grid lines.

    Probed once per plan cell just beyond the wall; the stub a face reaches past a reflex
    corner of its room takes the verdict of the cell next to it.
    """
    t, cell = thickness(house), house.cell
    d, n = face.along, np.asarray(face.normal)
    ax = 0 if abs(d[0]) > 0.5 else 1
    sign = 1.0 if d[ax] > 0 else -1.0
    wa = face.a[ax]
    lo, hi = sorted((wa, face.b[ax]))
    cells = []
    for j in range(math.floor(lo / cell), math.ceil(hi / cell)):
        w0, w1 = max(lo, j * cell), min(hi, (j + 1) * cell)
        if w1 - w0 < 1e-9:
            continue
        p = np.asarray(face.at(((w0 + w1) / 2 - wa) * sign)) - n * (t + 0.05)
        cells.append([w0, w1, house.room_at(float(p[0]), float(p[1])) is None])
    for k in (0, -1):  # a stub past a reflex corner: behind it is the room's own notch
        if len(cells) > 1 and cells[k][1] - cells[k][0] < cell / 2:
            cells[k][2] = cells[1 if k == 0 else -2][2]
    spans: list[tuple[float, float]] = []
    for w0, w1, outside in cells:
        if not outside:
            continue
        s0, s1 = sorted(((w0 - wa) * sign, (w1 - wa) * sign))
        if spans and abs(spans[-1][1] - s0) < 1e-9:
            spans[-1] = (spans[-1][0], s1)
        elif spans and abs(spans[-1][0] - s1) < 1e-9:
            spans[-1] = (s0, spans[-1][1])
        else:
            spans.append((s0, s1))
    return sorted((max(0.0, a), min(face.length, b)) for a, b in spans)


def skin_spans(house: House, faces: list[Face], i: int) -> list[tuple[float, float]]:
    """(s0, s1) of face ``i``'s outer wall surface, in the face's own coordinate.

    The outer surface lies a thickness behind the face.  At a room corner whose neighbouring
    face is exterior too it runs to the house's outer corner (half a thickness past the corner
    point at a convex corner, short of it at a reflex one); where a neighbouring room's wall
    takes over it stops at the corner point.
    """
    t = thickness(house)
    f = faces[i]
    prev_f, next_f = faces[i - 1], faces[(i + 1) % len(faces)]
    out = []
    for s0, s1 in exterior_spans(house, f):
        if s0 < 1e-6:
            corner = -t / 2 if f.convex[0] else t / 2
            prev_spans = exterior_spans(house, prev_f)
            joined = bool(prev_spans) and prev_spans[-1][1] > prev_f.length - 1e-6
            s0 = corner + (-t / 2 if f.convex[0] else t / 2) * joined
        if s1 > f.length - 1e-6:
            corner = f.length + (t / 2 if f.convex[1] else -t / 2)
            next_spans = exterior_spans(house, next_f)
            joined = bool(next_spans) and next_spans[0][0] < 1e-6
            s1 = corner + (t / 2 if f.convex[1] else -t / 2) * joined
        out.append((s0, s1))
    return out


def openings(house: House, face: Face, windows: list[tuple[float, float]]):
    """(s0, s1, z0, z1) openings on a face: its doors and the windows chosen for it."""
    out = []
    d = face.along
    for door in house.doors:
        if face.room not in (door.room_a, door.room_b):
            continue
        rel = np.subtract(door.center, face.a)
        off = abs(rel[0] * d[1] - rel[1] * d[0])  # distance of the door centre from the face
        s = float(rel @ d)
        if off < 0.1 and 0 < s < face.length:
            out.append((s - door.width / 2, s + door.width / 2, 0.0, DOOR_HEIGHT))
    for s0, s1 in windows:
        out.append((s0, s1, WINDOW_SILL, WINDOW_TOP))
    return out


def split_wall(length: float, height: float, holes) -> list[tuple[float, float, float, float]]:
    """Rectangles (s0, s1, z0, z1) covering [0, length]×[0, height] minus the holes."""
    cuts = sorted({0.0, length, *(max(0.0, min(length, v)) for h in holes for v in h[:2])})
    rects = []
    for s0, s1 in itertools.pairwise(cuts):
        if s1 - s0 < 1e-6:
            continue
        mid = (s0 + s1) / 2
        zs = [(h[2], h[3]) for h in holes if h[0] <= mid <= h[1]]
        z = 0.0
        for z0, z1 in sorted(zs):
            if z0 > z:
                rects.append((s0, s1, z, z0))
            z = max(z, z1)
        if z < height:
            rects.append((s0, s1, z, height))
    return rects


def furniture_spans(house: House, face: Face, min_height: float = 0.95):
    """(s0, s1) spans of a face hidden by furniture taller than ``min_height`` against it."""
    out = []
    d = face.along
    for o in house.objects:
        if o.room_id != face.room or o.kind != "furniture" or o.size[2] < min_height:
            continue
        (x0, y0, _), (x1, y1, _) = o.aabb()
        corners = np.array([[x0, y0], [x1, y1], [x0, y1], [x1, y0]]) - np.array(face.a)
        if (corners @ np.array(face.normal)).min() > 0.8:  # not against this wall
            continue
        s = corners @ d
        out.append((float(s.min()) - 0.1, float(s.max()) + 0.1))
    return out


def backdrop_span(house: House, face: Face, s0: float, s1: float) -> tuple[float, float]:
    """How far (s) the outside picture of a window at [s0, s1] may reach along the face.

    Up to :data:`BACKDROP_REACH` past each side of the opening, stopping before it would come
    within half a wall thickness of any room (an inside corner of the house).
    """
    t = thickness(house)
    d, n = face.along, np.asarray(face.normal)
    ring = [d * t / 2, -d * t / 2, n * t / 2, -n * t / 2, np.zeros(2)]
    ring = [r * 1.2 for r in ring]

    def free(s: float) -> bool:
        p = np.asarray(face.at(s)) - n * (t + OUTSIDE_GAP)
        return all(house.room_at(float(q[0]), float(q[1])) is None for q in (p + r for r in ring))

    step = 0.02
    mid = (s0 + s1) / 2
    lo = hi = mid
    while lo - step >= s0 - BACKDROP_REACH and free(lo - step):
        lo -= step
    while hi + step <= s1 + BACKDROP_REACH and free(hi + step):
        hi += step
    return lo, hi


def choose_windows(rng, house: House, face: Face) -> list[tuple[float, float]]:
    """Up to two windows on an exterior face: the outside behind them and their picture,
    away from corners, doors and tall furniture."""
    spans = exterior_spans(house, face)
    if not spans or face.length < 1.6:
        return []
    blocked = [(h[0] - 0.3, h[1] + 0.3) for h in openings(house, face, [])]
    blocked += furniture_spans(house, face)
    out: list[tuple[float, float]] = []
    n = 1 if face.length < 4.0 else 2
    for k in range(n):
        w = float(rng.uniform(0.9, 1.4))
        lo = face.length * k / n + WINDOW_MARGIN
        hi = face.length * (k + 1) / n - WINDOW_MARGIN - w
        for _ in range(8):
            if hi <= lo:
                break
            s0 = float(rng.uniform(lo, hi))
            s1 = s0 + w
            if not all(s1 < b0 or s0 > b1 for b0, b1 in blocked):
                continue
            outside = any(
                a - 1e-6 <= s0 - (WINDOW_MARGIN if a > 1e-6 else 0.0)
                and s1 + (WINDOW_MARGIN if b < face.length - 1e-6 else 0.0) <= b + 1e-6
                for a, b in spans
            )
            if not outside:
                continue
            b0, b1 = backdrop_span(house, face, s0, s1)
            if b0 <= s0 - 0.1 and b1 >= s1 + 0.1:
                out.append((round(s0, 3), round(s1, 3)))
                break
    return out
