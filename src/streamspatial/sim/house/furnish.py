"""Furnishing a house: furniture against walls or free-standing, small objects on the tops.

Furniture goes either back-to-wall facing into the room or free-standing, always axis-aligned
(yaw a multiple of 90°) so the ground-truth boxes are exact; small objects stand on furniture
tops, and a share of the supporting tops is left clear.  A piece of furniture is kept only if
the house stays walkable: every room and both sides of every door remain on one connected free
region for a camera of radius 0.25 m.  How an object looks — a catalogue model and a tint whose
*measured* colour keeps instances of a category apart — is :class:`_Looks`.  Draws come from
the layout's stream (:mod:`.layout`), the cleared tops from their own.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np

from streamspatial.scene import catalog
from streamspatial.scene.types import House, SceneObject
from streamspatial.sim.house.floorplan import WALL_THICKNESS, Plan
from streamspatial.sim.house.occupancy import occupancy

DOOR_CLEARANCE = 1.0  # metres kept free on both sides of a door
_GAP = 0.03  # between furniture and walls / other furniture
MAX_COLOR_SHARE = 0.10  # no measured colour names more than this share of a house's objects
# A share of the supporting tops is left clear (a dining table laid for no one, a bare
# nightstand): with 2-5 objects on every top, the tops of seed 4242's first houses kept
# free spots on 8 of 13 and 2 of 5, mostly one to three, and the dynamic scenes' glance-backs
# and carries (which need free spots) found a top for 0.75 of the 3 glance-backs a minute
# asked and 0.5 carries a minute (sim.events.params).  Drawn from a stream of its own, after
# the objects, so every top not cleared keeps exactly the objects it had.
CLEAR_TOP = 0.4


def _door_zones(house: House) -> list[tuple[float, float, float, float]]:
    zones = []
    for d in house.doors:
        cx, cy = d.center
        half = d.width / 2 + 0.1
        if d.axis == "x":
            zones.append((cx - half, cy - DOOR_CLEARANCE, cx + half, cy + DOOR_CLEARANCE))
        else:
            zones.append((cx - DOOR_CLEARANCE, cy - half, cx + DOOR_CLEARANCE, cy + half))
    return zones


def _overlaps(a, b, gap: float = 0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _rect_in_room(plan: Plan, k: int, rect, margin: float) -> bool:
    cell = plan.cell
    c0 = math.floor((rect[0] - margin) / cell)
    r0 = math.floor((rect[1] - margin) / cell)
    c1 = math.ceil((rect[2] + margin) / cell)
    r1 = math.ceil((rect[3] + margin) / cell)
    rows, cols = plan.grid.shape
    if r0 < 0 or c0 < 0 or r1 > rows or c1 > cols:
        return False
    return bool((plan.grid[r0:r1, c0:c1] == k).all())


def _footprint(cx: float, cy: float, size, yaw_q: int) -> tuple[float, float, float, float]:
    sx, sy = (size[0], size[1]) if yaw_q % 2 == 0 else (size[1], size[0])
    return (cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2)


def _yaw(q: int) -> float:
    return (0.0, math.pi / 2, math.pi, -math.pi / 2)[q % 4]


def _walkable(house: House) -> bool:
    occ = occupancy(house)
    main = occ.main_component()
    for r in house.rooms:
        if not (main & (occ.room == r.room_id)).any():
            return False
    for d in house.doors:
        for dx, dy in ((0.0, 0.45), (0.0, -0.45)) if d.axis == "x" else ((0.45, 0.0), (-0.45, 0)):
            rr, cc = occ.to_cell(d.center[0] + dx, d.center[1] + dy)
            if not main[rr, cc]:
                return False
    return True


class _Looks:
    """How objects look: catalogue models with measured colours, or named-colour boxes.

    Catalogue mode draws a model of the category and its real size times 0.92–1.08, then
    chooses among up to eight recolourings (the category's tint policy) the one whose
    *measured* colour is rarest in the house so far and unused by the category, which keeps
    instances of a category apart by colour and no colour common.
    """

    def __init__(self, rng: np.random.Generator, furniture: str):
        self.rng = rng
        self.catalog = furniture == "catalog"
        self.by_category: dict[str, set[str]] = {}
        self.in_house: Counter[str] = Counter()
        self._pending: dict[int, tuple[str, str]] = {}

    def draw(self, cat: catalog.Category) -> tuple[tuple[float, float, float], str]:
        """(size, model id or "") for a new instance of ``cat``."""
        rng = self.rng
        if self.catalog:
            from streamspatial.sim.house.assets.manifest import models_for
            from streamspatial.sim.house.assets.mjcf import instance_model

            ids = models_for(cat.name)
            mid = ids[int(rng.integers(len(ids)))]
            s = float(rng.uniform(0.92, 1.08))
            d, w, h = instance_model(mid).size
            return (round(d * s, 3), round(w * s, 3), round(h * s, 3)), mid
        w, d, h = (
            round(float(rng.uniform(a, b)), 2)
            for a, b in zip(cat.size_min, cat.size_max, strict=True)
        )
        return (d, w, h), ""  # local x is the depth axis (the object faces local +x)

    def color(
        self, cat: catalog.Category, model: str
    ) -> tuple[str, tuple[float, float, float], str] | None:
        """(colour name, rgb, model key) for an instance, or None when none is left."""
        used = self.by_category.setdefault(cat.name, set())
        if not self.catalog:
            free = [c for c in catalog.COLORS if c not in used]
            if not free:
                return None
            c = free[int(self.rng.integers(len(free)))]
            return c, catalog.COLORS[c], ""
        from streamspatial.sim.house.colors import studio_color

        tints = list(catalog.TINTS[cat.tints])
        order = [tints[int(i)] for i in self.rng.permutation(len(tints))[:8]]
        best = None
        for tint in order:
            key = f"{model}|{tint}" if tint else model
            name, rgb = studio_color(key)
            score = (name in used, self.in_house[name])
            if best is None or score < best[0]:
                best = (score, name, rgb, key)
        assert best is not None
        if best[0][0]:  # every colour reachable is taken by this category: leave it out
            return None
        return best[1], best[2], best[3]

    def commit(self, category: str, color: str) -> None:
        self.by_category.setdefault(category, set()).add(color)
        self.in_house[color] += 1

    def rebalance(self, objects: list[SceneObject], share: float = MAX_COLOR_SHARE) -> None:
        """Recolour instances of over-common colours until none exceeds ``share`` of objects.

        Only the tint changes (never the model or its size), in the order objects were
        placed, to the rarest measured colour its category's policy reaches.
        """
        if not self.catalog or not objects:
            return
        from streamspatial.sim.house.colors import studio_color

        cats = {c.name: c for group in catalog.FURNITURE.values() for c in group}
        cats.update({c.name: c for c in catalog.SMALL})
        budget = int(share * len(objects))
        counts = Counter(o.color for o in objects)
        for i, o in enumerate(objects):
            if counts[o.color] <= budget:
                continue
            base = o.model.partition("|")[0]
            same_cat = {p.color for p in objects if p.category == o.category and p is not o}
            best = None
            for tint in catalog.TINTS[cats[o.category].tints]:
                key = f"{base}|{tint}" if tint else base
                name, rgb = studio_color(key)
                if name in same_cat or counts[name] >= budget:
                    continue
                if best is None or counts[name] < counts[best[0]]:
                    best = (name, rgb, key)
            if best is not None:
                counts[o.color] -= 1
                counts[best[0]] += 1
                objects[i] = replace(o, color=best[0], rgb=best[1], model=best[2])


def furnish(
    rng: np.random.Generator,
    clear_rng: np.random.Generator,
    shell: House,
    plan: Plan,
    furniture: str = "boxes",
) -> tuple[SceneObject, ...]:
    zones = _door_zones(shell)
    looks = _Looks(rng, furniture)
    placed: list[SceneObject] = []
    rects: list[tuple[float, float, float, float]] = []
    rugs: list[tuple[float, float, float, float]] = []
    next_id = 1

    for room in shell.rooms:
        k = room.room_id
        cats = catalog.FURNITURE[room.room_type]
        want = int(np.clip(round(room.area / 2.0), 4, 12))
        counts: Counter[str] = Counter()
        mask = plan.grid == k
        # Wall edges of this room: (row, col, side) with side the inward direction index.
        edges = []
        pm = np.pad(mask, 1)
        for r, c in np.argwhere(mask):
            r, c = int(r), int(c)
            if not pm[r, c + 1]:
                edges.append((r, c, 1))  # wall to the south, face north (yaw 90°)
            if not pm[r + 2, c + 1]:
                edges.append((r, c, 3))  # wall to the north, face south
            if not pm[r + 1, c]:
                edges.append((r, c, 0))  # wall to the west, face east
            if not pm[r + 1, c + 2]:
                edges.append((r, c, 2))  # wall to the east, face west
        n_placed = 0
        for _try in range(want * 12):
            if n_placed >= want:
                break
            cat = cats[int(rng.integers(len(cats)))]
            if counts[cat.name] >= cat.max_count:
                continue
            size, model = looks.draw(cat)
            flat = size[2] < 0.08  # rugs lie under other furniture
            if cat.placement == "wall":
                r, c, q = edges[int(rng.integers(len(edges)))]
                off = float(rng.uniform(0, 1)) * plan.cell
                back = WALL_THICKNESS / 2 + _GAP + size[0] / 2
                if q == 1:
                    cx, cy = c * plan.cell + off, r * plan.cell + back
                elif q == 3:
                    cx, cy = c * plan.cell + off, (r + 1) * plan.cell - back
                elif q == 0:
                    cx, cy = c * plan.cell + back, r * plan.cell + off
                else:
                    cx, cy = (c + 1) * plan.cell - back, r * plan.cell + off
            else:
                q = int(rng.integers(4))
                ys, xs = np.nonzero(mask)
                i = int(rng.integers(len(xs)))
                cx = (xs[i] + float(rng.uniform())) * plan.cell
                cy = (ys[i] + float(rng.uniform())) * plan.cell
            cx, cy = round(cx, 3), round(cy, 3)
            rect = _footprint(cx, cy, size, q)
            if not _rect_in_room(plan, k, rect, WALL_THICKNESS / 2 + _GAP - 1e-9):
                continue
            if not flat and any(_overlaps(rect, z) for z in zones):
                continue
            if not flat and any(_overlaps(rect, o, _GAP) for o in rects):
                continue
            if flat and any(_overlaps(rect, o) for o in rugs):
                continue
            look = looks.color(cat, model)
            if look is None:
                continue
            obj = SceneObject(
                instance_id=next_id,
                category=cat.name,
                room_id=k,
                position=(cx, cy, size[2] / 2),
                size=size,
                yaw=_yaw(q),
                color=look[0],
                rgb=look[1],
                material=cat.materials[int(rng.integers(len(cat.materials)))],
                model=look[2],
            )
            trial = House(
                house_id=shell.house_id,
                seed=shell.seed,
                rooms=shell.rooms,
                doors=shell.doors,
                walls=shell.walls,
                objects=(*placed, obj),
                cell=shell.cell,
            )
            if not _walkable(trial):
                continue
            looks.commit(cat.name, obj.color)
            placed.append(obj)
            (rugs if flat else rects).append(rect)
            counts[cat.name] += 1
            n_placed += 1
            next_id += 1

    # Small objects on the tops of supporting furniture.
    small: list[SceneObject] = []
    by_cat = {c.name: c for cats in catalog.FURNITURE.values() for c in cats}
    for sup in placed:
        if not by_cat[sup.category].support:
            continue
        (ax, ay, _), (bx, by, top) = sup.aabb()
        tops: list[tuple[float, float, float, float]] = []
        # drawn either way (the stream is the layout's), dropped when the top stays clear
        clear = clear_rng.random() < CLEAR_TOP
        n_before = len(small)
        for _ in range(int(rng.integers(2, 6))):
            cat = catalog.SMALL[int(rng.integers(len(catalog.SMALL)))]
            size, model = looks.draw(cat)
            q = int(rng.integers(4))
            sx, sy = (size[0], size[1]) if q % 2 == 0 else (size[1], size[0])
            if sx > bx - ax - 0.04 or sy > by - ay - 0.04:
                continue
            # max(): an object exactly as wide as the free top leaves a range of zero, which
            # rounding can make a hair negative (house seed 514 with 5 rooms crashed here)
            lo_x, lo_y = ax + 0.02 + sx / 2, ay + 0.02 + sy / 2
            cx = round(float(rng.uniform(lo_x, max(lo_x, bx - 0.02 - sx / 2))), 3)
            cy = round(float(rng.uniform(lo_y, max(lo_y, by - 0.02 - sy / 2))), 3)
            rect = _footprint(cx, cy, size, q)
            if any(_overlaps(rect, o, 0.02) for o in tops):
                continue
            look = looks.color(cat, model)
            if look is None:
                continue
            looks.commit(cat.name, look[0])
            tops.append(rect)
            small.append(
                SceneObject(
                    instance_id=0,
                    category=cat.name,
                    room_id=sup.room_id,
                    position=(cx, cy, round(top + size[2] / 2, 4)),
                    size=size,
                    yaw=_yaw(q),
                    color=look[0],
                    rgb=look[1],
                    material=cat.materials[int(rng.integers(len(cat.materials)))],
                    kind="small",
                    support_id=sup.instance_id,
                    model=look[2],
                )
            )
        if clear:
            del small[n_before:]
    out = list(placed)
    for s in small:
        out.append(_with_id(s, next_id))
        next_id += 1
    looks.rebalance(out)
    return tuple(out)


def _with_id(o: SceneObject, instance_id: int) -> SceneObject:
    return replace(o, instance_id=instance_id)


__all__ = ["MAX_COLOR_SHARE", "furnish"]
