"""OVO-S L3 families that imagine a change (OVO-S-Bench App. D.3.1, D.3.3).

Each operates on what the stream has shown — objects seen before t_q, doorways walked
through — and asks what would follow from a hypothetical: turning an object, removing one,
stacking one on another, a blocked doorway.  Boxes are the objects' world-axis bounds;
answers are kept ``MARGIN`` clear of the threshold, so no rounding can flip them.

* 3.1.1 Mental Rotation & Fitting — turned 90°, would X fit in the gap between Y and Z;
* 3.1.2 Spatial What-If Consequence — with X removed, is the line of sight to Y clear;
* 3.1.3 Physical Stability & Feasibility — could X stand on Y without overhanging;
* 3.3.2 Obstacle-Aware Rerouting — with a walked doorway blocked, the first room of the new
  shortest route (or no route).
"""

from __future__ import annotations

import math
import random

from streamspatial.scene.types import SceneObject

from .balance import draw_class
from .common import intent, name, nameable
from .draft import Draft
from .naming import room_ref
from .ovos import ovos, ovos_draft
from .ovos_rooms import from_here, graph_evidence, shortest_paths
from .prefix import Prefix
from .registry import Episode
from .sweep import boxes_of

YES_NO = ("Yes", "No")
MARGIN = 0.1  # m between a size and the space it is compared with
NO_ROUTE = "There is no other way"


def box(o: SceneObject) -> tuple[tuple[float, ...], tuple[float, ...]]:
    lo, hi = o.aabb()
    return tuple(lo), tuple(hi)


def gap_between(a: SceneObject, b: SceneObject) -> tuple[int, float]:
    """The horizontal axis along which a and b stand apart, and the free gap along it."""
    (la, ha), (lb, hb) = box(a), box(b)
    axis = 0 if abs(a.position[0] - b.position[0]) >= abs(a.position[1] - b.position[1]) else 1
    return axis, max(la[axis], lb[axis]) - min(ha[axis], hb[axis])


def segment_hits(p0, p1, lo, hi) -> bool:
    """Whether the segment p0→p1 passes through the axis-aligned box [lo, hi] (slab test)."""
    t0, t1 = 0.0, 1.0
    for i in range(3):
        d = p1[i] - p0[i]
        if abs(d) < 1e-12:
            if not lo[i] <= p0[i] <= hi[i]:
                return False
            continue
        a, b = (lo[i] - p0[i]) / d, (hi[i] - p0[i]) / d
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return False
    return True


@ovos("mental_rotation", "3.1.1", balanced=True)
def mental_rotation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    seen = nameable(p, p.seen)
    furniture = [i for i in seen if p.obj(i).kind == "furniture"]
    if len(furniture) < 3:
        return []
    want = draw_class(rng, YES_NO)
    for _ in range(12):
        x, y, z = rng.sample(furniture, 3)
        if p.obj(y).room_id != p.obj(z).room_id:
            continue
        axis, gap = gap_between(p.obj(y), p.obj(z))
        if not 0.4 <= gap <= 3.0:
            continue
        lo, hi = box(p.obj(x))
        turned = hi[1 - axis] - lo[1 - axis]  # its extent along the gap once turned 90°
        if abs(turned - gap) < MARGIN:
            continue
        got = "Yes" if turned < gap else "No"
        if got != want:
            continue
        return [
            ovos_draft(
                p,
                "mental_rotation",
                f"Imagine turning the {name(p, x)} by 90° and sliding it into the gap between "
                f"the {name(p, y)} and the {name(p, z)}. Would it fit?",
                got,
                YES_NO,
                p.evidence([x, y, z]),
                intent("mental_rotation", [x, y, z], gap_m=round(gap, 3)),
                answer_class=got,
                classes=YES_NO,
            )
        ]
    return []


@ovos("what_if", "3.1.2", balanced=True)
def what_if(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """X stands on the straight floor path from where one stands to Y; with X gone, would the
    path be free?  "No" items have another seen piece of furniture on it too.  Paths crossing
    a wall, or any small object (it would go with its support, or not), are not asked."""
    p = ep.prefix(k)
    if p.current_room is None:
        return []
    here = p.camera_xy()
    walls = [  # wall slabs stand tall; the floor and ceiling slabs are flat
        _box_bounds(b) for b in boxes_of(p.house) if not b.instance_id and b.half[2] > 0.5
    ]
    seen = set(p.seen)
    targets = nameable(p, p.seen)
    rng.shuffle(targets)
    want = draw_class(rng, YES_NO)
    for y in targets:
        end = p.obj(y).position[:2]
        if any(floor_hits(here, end, lo, hi) for lo, hi in walls):
            continue
        hits = [o for o in p.house.objects if o.instance_id != y and floor_hits(here, end, *box(o))]
        if any(o.kind == "small" for o in hits):
            continue
        blockers = [o.instance_id for o in hits]
        named = [i for i in blockers if i in seen and nameable(p, [i])]
        if not named:
            continue
        x = rng.choice(named)
        rest = [i for i in blockers if i != x]
        if not all(i in seen for i in rest):
            continue  # an obstacle the stream never showed: not answerable from it
        got = "No" if rest else "Yes"
        if got != want:
            continue
        return [
            ovos_draft(
                p,
                "what_if",
                f"If the {name(p, x)} were removed, would the straight path across the floor "
                f"from where you stand now to the {name(p, y)} be free of obstacles?",
                got,
                YES_NO,
                p.evidence([x, y, *rest]),
                intent("what_if", [x, y, *rest]),
                answer_class=got,
                classes=YES_NO,
            )
        ]
    return []


def floor_hits(a, b, lo, hi) -> bool:
    """Whether the floor segment a→b (x, y) crosses the footprint of the box [lo, hi]."""
    return segment_hits(
        (a[0], a[1], 0.0), (b[0], b[1], 0.0), (lo[0], lo[1], -1.0), (hi[0], hi[1], 1.0)
    )


def _box_bounds(b) -> tuple[tuple[float, ...], tuple[float, ...]]:
    c, s = abs(math.cos(b.yaw)), abs(math.sin(b.yaw))
    hx = c * b.half[0] + s * b.half[1]
    hy = s * b.half[0] + c * b.half[1]
    half = (hx, hy, b.half[2])
    return (
        tuple(b.center[i] - half[i] for i in range(3)),
        tuple(b.center[i] + half[i] for i in range(3)),
    )


@ovos("feasibility", "3.1.3", balanced=True)
def feasibility(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Could X stand on top of Y without hanging over its edges (turned as needed)?"""
    p = ep.prefix(k)
    seen = nameable(p, p.seen)
    bases = [i for i in seen if p.obj(i).kind == "furniture"]
    if len(seen) < 2 or not bases:
        return []
    want = draw_class(rng, YES_NO)
    for _ in range(12):
        y = rng.choice(bases)
        x = rng.choice([i for i in seen if i != y])
        lo, hi = box(p.obj(x))
        blo, bhi = box(p.obj(y))
        need = sorted((hi[0] - lo[0], hi[1] - lo[1]))
        top = sorted((bhi[0] - blo[0], bhi[1] - blo[1]))
        slack = [t - n for n, t in zip(need, top, strict=True)]
        if min(abs(v) for v in slack) < MARGIN / 2:
            continue
        got = "Yes" if min(slack) > 0 else "No"
        if got != want:
            continue
        return [
            ovos_draft(
                p,
                "feasibility",
                f"Could the {name(p, x)} be set down on top of the {name(p, y)} without "
                "hanging over its edges?",
                got,
                YES_NO,
                p.evidence([x, y]),
                intent("feasibility", [x, y]),
                answer_class=got,
                classes=YES_NO,
            )
        ]
    return []


@from_here("rerouting", "3.3.2", min_history_s=10.0)
def rerouting(p: Prefix, here: int, g: dict[int, set[int]], rng: random.Random) -> list[Draft]:
    for t in rng.sample(sorted(g), len(g)):
        paths = shortest_paths(g, here, t)
        if not paths or len(paths[0]) < 2:
            continue
        path = rng.choice(paths)
        i = rng.randrange(len(path) - 1)
        a, b = path[i], path[i + 1]
        cut = {r: set(n) for r, n in g.items()}
        cut[a].discard(b)
        cut[b].discard(a)
        alt = shortest_paths(cut, here, t)
        if len({q[1] for q in alt}) > 1:
            continue  # two first rooms equally short: no single answer
        answer = room_ref(p.house, alt[0][1]) if alt else NO_ROUTE
        rooms = [room_ref(p.house, r) for r in sorted(g) if r not in (here, t)]
        choices = [answer, *([NO_ROUTE] if answer != NO_ROUTE else []), *rooms]
        if len(set(choices)) < 3:
            continue  # always three options, else their number tells whether NO_ROUTE is right
        return [
            ovos_draft(
                p,
                "rerouting",
                f"Suppose the doorway between the {room_ref(p.house, a)} and the "
                f"{room_ref(p.house, b)} were blocked. Using only the other doorways you have "
                f"walked through, which room would you enter first on the shortest way from "
                f"here to the {room_ref(p.house, t)}?",
                answer,
                list(dict.fromkeys(choices)),
                graph_evidence(p),
                intent("rerouting", room_ids=[here, t], blocked=[a, b]),
                n_options=3,
            )
        ]
    return []
