"""Floor plans on a grid: rooms grow from seeds to their target area ratios (ProcTHOR-style).

The house outline (a rectangle, sometimes with one corner cut off to make an L) is a grid of
``cell``-sized squares.  Each room starts as one seed cell and grows as a rectangle, one full
row or column at a time, the room furthest below its target area growing first; leftover
pockets then join the neighbouring room furthest below its target, which is how L-shaped
rooms appear.  Plans with slivers narrower than ``min_width`` cells, holes or rooms that
touch only at a corner are rejected; the caller retries with the next random draw, so a seed
always yields the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from streamspatial.core.errors import AttemptFailed

WALL_THICKNESS = 0.1  # m, every wall of the plan
WALL_HEIGHT = 2.6  # m

OUTSIDE = -2
FREE = -1
_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # (drow, dcol): north, south, east, west


class PlanRejected(AttemptFailed):
    """This random draw gave an unusable plan; draw again."""


@dataclass(frozen=True)
class Plan:
    grid: np.ndarray  # (rows, cols) int: room index or OUTSIDE; row r spans y ∈ [r, r+1)·cell
    cell: float

    def room_cells(self, k: int) -> np.ndarray:
        return self.grid == k


def grow_plan(
    rng: np.random.Generator, weights: list[float], cell: float, m2_per_weight: float = 6.5
) -> Plan:
    """One draw of a floor plan whose room areas follow ``weights``; may raise PlanRejected."""
    n = len(weights)
    total_cells = sum(weights) * m2_per_weight / (cell * cell)
    aspect = rng.uniform(1.0, 1.6)
    cut = n >= 3 and rng.random() < 0.4
    if cut:
        total_cells /= 0.85
    rows = max(4, round(np.sqrt(total_cells / aspect)))
    cols = max(4, round(total_cells / rows))
    if rng.random() < 0.5:
        rows, cols = cols, rows
    grid = np.full((rows, cols), FREE, dtype=np.int32)
    if cut:  # make an L by removing one corner block
        cr, cc = max(2, round(rows * rng.uniform(0.3, 0.4))), max(2, round(cols * 0.35))
        r0 = 0 if rng.random() < 0.5 else rows - cr
        c0 = 0 if rng.random() < 0.5 else cols - cc
        grid[r0 : r0 + cr, c0 : c0 + cc] = OUTSIDE
    inside = int((grid == FREE).sum())
    targets = np.array(weights) / sum(weights) * inside

    # Seeds: random free cells, kept apart so rooms do not start on top of each other.
    free_cells = np.argwhere(grid == FREE)
    rects: list[list[int]] = []
    min_sep = max(2.0, np.sqrt(inside / n) * 0.6)
    for _ in range(n):
        for _attempt in range(200):
            r, c = free_cells[rng.integers(len(free_cells))]
            if all(abs(r - q[0]) + abs(c - q[1]) >= min_sep for q in rects):
                break
        else:
            raise PlanRejected("no room for seeds")
        if grid[r, c] != FREE:
            raise PlanRejected("seed collision")
        grid[r, c] = len(rects)
        rects.append([int(r), int(c), int(r), int(c)])  # r0, c0, r1, c1 inclusive

    # Rectangular growth, the room with the largest deficit first.
    active = set(range(n))
    while active:
        sizes = np.array([(q[2] - q[0] + 1) * (q[3] - q[1] + 1) for q in rects], dtype=float)
        deficit = np.clip(targets - sizes, 0.05, None)
        ks = sorted(active)
        p = deficit[ks] / deficit[ks].sum()
        k = ks[int(rng.choice(len(ks), p=p))]
        grew = False
        for d in rng.permutation(4):
            dr, dc = _DIRS[d]
            r0, c0, r1, c1 = rects[k]
            if dr == 1:
                strip = (slice(r1 + 1, r1 + 2), slice(c0, c1 + 1))
            elif dr == -1:
                strip = (slice(r0 - 1, r0), slice(c0, c1 + 1))
            elif dc == 1:
                strip = (slice(r0, r1 + 1), slice(c1 + 1, c1 + 2))
            else:
                strip = (slice(r0, r1 + 1), slice(c0 - 1, c0))
            if min(strip[0].start, strip[1].start) < 0:
                continue
            block = grid[strip]
            if block.size == 0 or block.shape != (
                strip[0].stop - strip[0].start,
                strip[1].stop - strip[1].start,
            ):
                continue
            if not (block == FREE).all():
                continue
            # Stop a room that has reached its target, unless nothing else can take the space.
            if sizes[k] + block.size > targets[k] * 1.15 and len(active) > 1:
                continue
            grid[strip] = k
            rects[k] = [
                min(r0, strip[0].start),
                min(c0, strip[1].start),
                max(r1, strip[0].stop - 1),
                max(c1, strip[1].stop - 1),
            ]
            grew = True
            break
        if not grew:
            active.discard(k)

    # Leftover pockets join the neighbour furthest below its target (sharing some wall).
    labels, count = ndimage.label(grid == FREE)
    for comp in range(1, count + 1):
        mask = labels == comp
        ring = ndimage.binary_dilation(mask) & ~mask
        neigh = grid[ring]
        neigh = neigh[neigh >= 0]
        if neigh.size == 0:
            raise PlanRejected("isolated pocket")
        shared = np.bincount(neigh, minlength=n)
        sizes = np.bincount(grid[grid >= 0], minlength=n)
        deficit = targets - sizes
        cands = [k for k in range(n) if shared[k] >= 2] or [int(shared.argmax())]
        grid[mask] = max(cands, key=lambda k: (deficit[k], shared[k]))
    _check(grid, n)
    return Plan(grid=grid, cell=cell)


def _check(grid: np.ndarray, n: int, min_width: int = 3) -> None:
    st = np.ones((min_width, min_width), dtype=bool)
    for k in range(n):
        m = grid == k
        if m.sum() < min_width * min_width:
            raise PlanRejected("tiny room")
        if ndimage.label(m)[1] != 1:
            raise PlanRejected("split room")
        opened = ndimage.binary_opening(np.pad(m, 1), structure=st)[1:-1, 1:-1]
        if not np.array_equal(opened, m):
            raise PlanRejected("sliver")
        if len(trace_loops(m)) != 1:
            raise PlanRejected("hole or pinch")


def trace_loops(mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """Boundary loops of a cell set as (col, row) lattice vertices, counter-clockwise.

    Collinear vertices are dropped.  A pinch (two cells touching only at a corner) raises
    PlanRejected because the boundary would not be a simple polygon.
    """
    m = np.pad(mask, 1)
    nxt: dict[tuple[int, int], tuple[int, int]] = {}

    def add(a: tuple[int, int], b: tuple[int, int]) -> None:
        if a in nxt:
            raise PlanRejected("pinch")
        nxt[a] = b

    for r, c in np.argwhere(mask):
        r, c = int(r), int(c)
        if not m[r, c + 1]:  # south neighbour (row r-1) outside: bottom edge, going east
            add((c, r), (c + 1, r))
        if not m[r + 1, c + 2]:  # east
            add((c + 1, r), (c + 1, r + 1))
        if not m[r + 2, c + 1]:  # north
            add((c + 1, r + 1), (c, r + 1))
        if not m[r + 1, c]:  # west
            add((c, r + 1), (c, r))
    loops = []
    seen: set[tuple[int, int]] = set()
    for start in sorted(nxt):
        if start in seen:
            continue
        loop = [start]
        seen.add(start)
        v = nxt[start]
        while v != start:
            loop.append(v)
            seen.add(v)
            v = nxt[v]
        loops.append(_simplify(loop))
    return loops


def _simplify(loop: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    n = len(loop)
    for i in range(n):
        a, b, c = loop[i - 1], loop[i], loop[(i + 1) % n]
        if (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) != 0:
            out.append(b)
    # Start at the lowest-leftmost vertex so the polygon is canonical.
    i = min(range(len(out)), key=lambda j: (out[j][1], out[j][0]))
    return out[i:] + out[:i]
