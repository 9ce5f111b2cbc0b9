"""Seeded procedural houses: floor plan, doors, walls, then furniture and small objects.

``generate_house(seed)`` is a pure function of its arguments: the same seed gives the same
house, byte for byte, on every machine (NumPy's PCG64 stream, no set iteration order, no
floating-point reductions whose order could change).  The plan (:mod:`.floorplan`), the doors
and the walls are laid out here; furnishing (:mod:`.furnish`) follows on the same random
stream, so the order of the steps is the house's determinism.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np

from streamspatial.core.errors import InputError
from streamspatial.scene import catalog, streams
from streamspatial.scene.types import Door, House, Room, SceneObject, WallSegment
from streamspatial.sim.house.floorplan import (
    WALL_HEIGHT,
    WALL_THICKNESS,
    Plan,
    PlanRejected,
    grow_plan,
    trace_loops,
)
from streamspatial.sim.house.furnish import furnish

DOOR_CELLS = 2  # doors are two grid cells (1.0 m) wide
# Extra doors between adjacent rooms the door tree left unjoined, by how many of the two are
# public: open-plan living, dining and kitchen areas and hallways usually connect more than
# one way, a bedroom or study off the living room sometimes does, a bathroom never.  A tree
# leaves one way between any two rooms, so OVO-S-Bench's Obstacle-Aware Rerouting (3.3.2)
# had "there is no other way" as the answer of 1,190 of 1,190 drafts on twelve houses.
LOOP_DOOR_PROB = {1: 0.5, 2: 0.85}


FURNITURE = ("catalog", "boxes")


def generate_house(
    seed: int, *, n_rooms: int | None = None, cell: float = 0.5, furniture: str = "catalog"
) -> House:
    """A house with ``n_rooms`` rooms (2–12; 4–12 drawn from the seed when ``None``).

    ``furniture="catalog"`` furnishes it with textured catalogue models (the default; needs the
    furniture libraries, see :mod:`streamspatial.sim.house.assets.sh3f`); ``"boxes"`` with flat
    coloured boxes, the old box world, for tests that want none of that.
    """
    if n_rooms is not None and n_rooms not in catalog.PROGRAMS:
        raise InputError(f"n_rooms must be one of {sorted(catalog.PROGRAMS)}, got {n_rooms}")
    if furniture not in FURNITURE:
        raise InputError(f"furniture must be one of {FURNITURE}, got {furniture!r}")
    if furniture == "catalog":
        from streamspatial.sim.house.assets.sh3f import library_paths

        library_paths()  # one clear line when the libraries are not installed
    rng = np.random.default_rng([seed, streams.HOUSE])
    lo, hi = catalog.DEFAULT_ROOMS
    n = int(n_rooms) if n_rooms is not None else int(rng.integers(lo, hi + 1))
    programs = catalog.PROGRAMS[n]
    program = programs[int(rng.integers(len(programs)))]
    types = [t for t, _ in program]
    weights = [w for _, w in program]
    for _attempt in range(500):
        try:
            plan = grow_plan(rng, weights, cell)
            loop_rng = np.random.default_rng([seed, streams.LOOP_DOORS])
            doors = _place_doors(rng, plan, types, loop_rng)
        except PlanRejected:
            continue
        rooms = _rooms(plan, types)
        walls = _walls(plan, doors)
        shell = House(
            house_id=f"house-{seed}",
            seed=seed,
            rooms=rooms,
            doors=doors,
            walls=walls,
            objects=(),
            wall_height=WALL_HEIGHT,
            cell=cell,
        )
        clear_rng = np.random.default_rng([seed, streams.CLEARED_TOPS])
        objects = furnish(rng, clear_rng, shell, plan, furniture)
        style = "textured" if furniture == "catalog" else "boxes"
        return replace(shell, objects=objects, style=style)
    raise RuntimeError(f"no floor plan found for seed {seed}")  # pragma: no cover


# ----------------------------------------------------------------------------- rooms and doors


def _rooms(plan: Plan, types: list[str]) -> tuple[Room, ...]:
    counts = Counter(types)
    seen: Counter[str] = Counter()
    out = []
    for k, t in enumerate(types):
        seen[t] += 1
        label = catalog.ROOM_LABELS[t]
        name = f"{label} {seen[t]}" if counts[t] > 1 else label
        (loop,) = trace_loops(plan.grid == k)
        poly = tuple((c * plan.cell, r * plan.cell) for c, r in loop)
        area = float((plan.grid == k).sum()) * plan.cell * plan.cell
        out.append(Room(room_id=k, room_type=t, name=name, polygon=poly, area=area))
    return tuple(out)


def _shared_runs(plan: Plan) -> dict[tuple[int, int], list[tuple[str, int, int, int]]]:
    """Contiguous runs of wall between two rooms: (axis, line, start, length) per room pair.

    ``axis == "x"``: a wall along x on the horizontal grid line ``y = line``, covering columns
    ``start .. start+length-1``; ``axis == "y"``: along y on ``x = line``, covering rows.
    """
    g = plan.grid
    runs: dict[tuple[int, int], list[tuple[str, int, int, int]]] = {}

    def emit(axis, line, pair, start, length):
        if pair is not None:
            runs.setdefault(pair, []).append((axis, line, start, length))

    rows, cols = g.shape
    for r in range(1, rows):  # horizontal line between row r-1 and r
        cur, start = None, 0
        for c in range(cols + 1):
            a, b = (int(g[r - 1, c]), int(g[r, c])) if c < cols else (-9, -9)
            pair = (min(a, b), max(a, b)) if a >= 0 and b >= 0 and a != b else None
            if pair != cur:
                if cur is not None:
                    emit("x", r, cur, start, c - start)
                cur, start = pair, c
    for c in range(1, cols):
        cur, start = None, 0
        for r in range(rows + 1):
            a, b = (int(g[r, c - 1]), int(g[r, c])) if r < rows else (-9, -9)
            pair = (min(a, b), max(a, b)) if a >= 0 and b >= 0 and a != b else None
            if pair != cur:
                if cur is not None:
                    emit("y", c, cur, start, r - start)
                cur, start = pair, r
    return runs


def _loop_door_prob(a: str, b: str) -> float:
    """Chance of a second way between two adjacent rooms the door tree did not join."""
    public = (a in catalog.PUBLIC_ROOMS) + (b in catalog.PUBLIC_ROOMS)
    if "bathroom" in (a, b) or public == 0:
        return 0.0
    return LOOP_DOOR_PROB[public]


def _place_doors(
    rng: np.random.Generator, plan: Plan, types: list[str], loops: np.random.Generator
) -> tuple[Door, ...]:
    """A spanning tree of doors grown from the hub room, public rooms preferred as parents,
    then the extra doors that close loops (``LOOP_DOOR_PROB``), drawn from their own stream
    ``loops`` so that they leave the house's other draws as they were."""
    runs = {p: [x for x in v if x[3] >= DOOR_CELLS + 1] for p, v in _shared_runs(plan).items()}
    runs = {p: v for p, v in runs.items() if v}
    n = len(types)
    in_tree = {0}
    chosen: list[tuple[int, int]] = []
    while len(in_tree) < n:
        best, best_score = None, -math.inf
        for (a, b), v in sorted(runs.items()):
            if (a in in_tree) == (b in in_tree):
                continue
            parent = a if a in in_tree else b
            score = (
                2.0 * (types[parent] in catalog.PUBLIC_ROOMS)
                + 0.1 * max(x[3] for x in v)
                + rng.uniform(0, 1.0)
            )
            if score > best_score:
                best, best_score = (a, b), score
        if best is None:
            raise PlanRejected("rooms not connectable")
        chosen.append(best)
        in_tree |= set(best)
    for (a, b), _v in sorted(runs.items()):  # extra doors close loops
        if (a, b) not in chosen and loops.random() < _loop_door_prob(types[a], types[b]):
            chosen.append((a, b))
    doors = []
    for i, (a, b) in enumerate(chosen):
        axis, line, start, length = max(runs[(a, b)], key=lambda x: (x[3], x[1], x[2]))
        s = start + (length - DOOR_CELLS) // 2
        mid = (s + DOOR_CELLS / 2) * plan.cell
        center = (mid, line * plan.cell) if axis == "x" else (line * plan.cell, mid)
        doors.append(
            Door(
                door_id=i,
                room_a=a,
                room_b=b,
                center=center,
                width=DOOR_CELLS * plan.cell,
                axis=axis,
            )
        )
    return tuple(doors)


def _walls(plan: Plan, doors: tuple[Door, ...]) -> tuple[WallSegment, ...]:
    """Every grid edge between two different regions is wall, except door openings."""
    g = np.pad(plan.grid, 1, constant_values=-2)
    cell = plan.cell
    door_edges: set[tuple[str, int, int]] = set()
    for d in doors:
        if d.axis == "x":
            line = round(d.center[1] / cell)
            s = round((d.center[0] - d.width / 2) / cell)
        else:
            line = round(d.center[0] / cell)
            s = round((d.center[1] - d.width / 2) / cell)
        for j in range(round(d.width / cell)):
            door_edges.add((d.axis, line, s + j))
    rows, cols = plan.grid.shape
    walls: list[WallSegment] = []
    t = WALL_THICKNESS

    def flush(axis, line, start, end):
        # Extend by half a thickness at ends that do not border a door, to close corners.
        e0 = 0.0 if (axis, line, start - 1) in door_edges else t / 2
        e1 = 0.0 if (axis, line, end) in door_edges else t / 2
        if axis == "x":
            p0, p1 = (start * cell - e0, line * cell), (end * cell + e1, line * cell)
        else:
            p0, p1 = (line * cell, start * cell - e0), (line * cell, end * cell + e1)
        walls.append(WallSegment(p0=p0, p1=p1, thickness=t, height=WALL_HEIGHT))

    # Horizontal lines y = r (between padded rows r and r+1), then vertical lines x = c: the
    # same scan over the grid and over its transpose.
    for axis, grid, lines, n in (("x", g, rows, cols), ("y", g.T, cols, rows)):
        for line in range(lines + 1):
            start = None
            for pos in range(n + 1):
                on = (
                    pos < n
                    and grid[line, pos + 1] != grid[line + 1, pos + 1]
                    and max(grid[line, pos + 1], grid[line + 1, pos + 1]) >= 0
                    and (axis, line, pos) not in door_edges
                )
                if on and start is None:
                    start = pos
                elif not on and start is not None:
                    flush(axis, line, start, pos)
                    start = None
    return tuple(walls)


def room_mask_area(house: House, room_id: int) -> float:
    """Floor area of a room from its polygon (shoelace); equals ``Room.area`` by construction."""
    poly = house.room(room_id).polygon
    a = 0.0
    for i in range(len(poly)):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % len(poly)]
        a += x0 * y1 - x1 * y0
    return abs(a) / 2


__all__ = ["generate_house", "room_mask_area", "single_room_house"]


def single_room_house(
    width: float,
    depth: float,
    objects: tuple[SceneObject, ...] = (),
    *,
    extra_walls: tuple[WallSegment, ...] = (),
    room_type: str = "living_room",
    house_id: str = "single-room",
) -> House:
    """A closed ``width`` × ``depth`` room with its corner at the origin, for hand-made scenes.

    Probes (one object and a rotating camera), unit tests and examples need a scene whose
    every coordinate is known; ``extra_walls`` adds free-standing walls inside it.
    """
    t, h = WALL_THICKNESS, WALL_HEIGHT
    poly = ((0.0, 0.0), (width, 0.0), (width, depth), (0.0, depth))
    walls = (
        WallSegment((-t / 2, 0.0), (width + t / 2, 0.0), t, h),
        WallSegment((-t / 2, depth), (width + t / 2, depth), t, h),
        WallSegment((0.0, -t / 2), (0.0, depth + t / 2), t, h),
        WallSegment((width, -t / 2), (width, depth + t / 2), t, h),
        *extra_walls,
    )
    room = Room(0, room_type, catalog.ROOM_LABELS.get(room_type, room_type), poly, width * depth)
    return House(
        house_id=house_id,
        seed=0,
        rooms=(room,),
        doors=(),
        walls=walls,
        objects=tuple(objects),
        wall_height=h,
    )
