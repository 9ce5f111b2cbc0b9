"""S3-Bench single-turn tasks (Table 1, generation logic of App. 3.1).

Ego-centric tasks read the camera at the query frame; spatial-relation tasks read the objects
seen so far.  Numeric answers are metres or square metres, scored with MRA by the S3 adapter.

Over 400 lines on purpose: one generator per task of S3-Bench's Table 1, each a short
function over the same helpers; splitting them would scatter one table.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import numpy as np

from streamspatial.bench.conventions import AREA_SHARE, COVER_RADIUS
from streamspatial.core.schema import TaskLabels

from .balance import bin_of, bins_of, draw_class
from .common import clear_margin, intent, name, nameable
from .draft import Draft, DraftQuery, choice_draft
from .groups import GROUPS, category_target, group_target
from .naming import category_text, room_ref
from .prefix import Prefix, object_distance
from .registry import Episode, family

EGO, REL, TEMP = "Ego-centric", "Spatial Relation", "Temporal Dependency"
MIN_ORDER_GAP_S = 1.0  # first sightings closer than this are not asked to be ordered


def labels(domain: str, task: str, fmt: str) -> TaskLabels:
    return TaskLabels(category=domain, subcategory=fmt, task=task)


def _num(p: Prefix, family_key: str, question: str, value: float, evidence, it) -> Draft:
    return Draft(
        family=family_key,
        question=question,
        queries=[DraftQuery(p.time, round(float(value), 2), tuple(evidence))],
        intent=it,
    )


def seen(p: Prefix) -> list[int]:
    """The objects seen so far (what a spatial-relation task asks about)."""
    return p.seen


def in_view(p: Prefix) -> list[int]:
    """The objects visible at the query frame, by id."""
    return sorted(p.visible_now)


def s3_family(
    domain: str,
    fmt: str,
    *,
    keyed: bool = False,
    timed: bool = False,
    about: Callable[[Prefix], list[int]] | None = None,
):
    """Register a single-turn S3 family named as the decorated generator (a draft from a
    prefix, or None), asked at every frame it is tried at; ``keyed``: answers capped per
    option key (``balance.Balancer.keys_allow``), so more candidate frames are tried;
    ``timed``: answers balanced over the shares of the walk (``registry.Family.timed``);
    ``about``: a family about one object, drawn uniformly among the nameable ones of
    ``about(prefix)`` (:func:`seen`, :func:`in_view`) and passed to the generator as
    ``(Prefix, object, rng)``; none there, no draft."""

    def deco(fn):
        answer = "number" if fmt == "Num" else "choice"
        register = family(f"s3.{fn.__name__}", "s3", labels(domain, fn.__name__, fmt), answer,
                          balanced=keyed, timed=timed)  # fmt: skip
        register(_one(fn, about))
        return fn

    return deco


def _one(fn, about: Callable[[Prefix], list[int]] | None = None):
    """Adapt a single-prefix generator ``(Prefix, rng) -> Draft | None`` (``(Prefix, object,
    rng)`` with ``about``) to the registry."""

    def gen(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
        p = ep.prefix(k)
        if about is None:
            d = fn(p, rng)
        else:
            cands = nameable(p, about(p))
            if not cands:
                return []
            d = fn(p, rng.choice(cands), rng)
        return [] if d is None else [d if isinstance(d, Draft) else d[0]]

    gen.__name__ = fn.__name__
    gen.__doc__ = fn.__doc__
    return gen


# -- Ego-centric ---------------------------------------------------------------------------


@s3_family(EGO, "Num")
def camera_displacement(p: Prefix, rng: random.Random) -> Draft | None:
    """Straight-line distance between the camera now and N seconds ago (N = 2–6).

    Any motion counts (walks, stops, turns): a window of pure forward walking at the walk's
    constant speed makes the answer ≈ speed × N, read off the question blind.  The family is
    balanced over distance bins (``balance.BINS``), so N says little about the answer.
    """
    seconds = rng.choice((2, 3, 4, 5, 6))
    j = p.k - p.frames_back(seconds)
    if j < 0:
        return None
    d = math.dist(p.frames[j].pose.position, p.now.pose.position)
    if d < 0.25:
        return None
    return _num(
        p,
        "s3.camera_displacement",
        f"How far is the camera now from where it was {seconds} seconds ago? Answer in meters.",
        d,
        [(p.t(j), p.t(p.k))],
        intent("camera_displacement", seconds=seconds),
    )


@s3_family(EGO, "Num", timed=True)
def current_room_area(p: Prefix, rng: random.Random) -> Draft | None:
    """Area of the room the camera stands in at the query frame."""
    room = p.current_room
    if room is None or not p.room_runs or p.room_runs[-1].key != room:
        return None
    stay = p.room_runs[-1]
    if stay.end - stay.start < p.frames_back(2.0):
        return None  # just stepped in: the room has barely been seen
    return _num(
        p,
        "s3.current_room_area",
        "What is the total area of the current room? Answer in square meters.",
        p.house.room(room).area,
        [(p.t(stay.start), p.t(stay.end))],
        intent("current_room_area", room_id=room),
    )


@s3_family(EGO, "Num", about=in_view)
def cam_obj_distance(p: Prefix, o: int, rng: random.Random) -> Draft | None:
    """Distance from the camera now to an object visible now (box centre)."""
    return _num(
        p,
        "s3.cam_obj_distance",
        f"What is the distance between the camera and the {name(p, o)}? Answer in meters.",
        p.cam_distance(o),
        p.evidence([o]),
        intent("cam_obj_distance", [o]),
    )


CLOSEST_MARGIN = (0.3, 0.15)  # m and share: every foil is this much farther than the answer


@s3_family(EGO, "MC", keyed=True)
def identification_closest(p: Prefix, rng: random.Random) -> tuple[Draft, int] | None:
    """Which of 2–4 objects visible now is closest to the camera.

    The answer is drawn first, among the visible objects with a clearly farther one, and
    every clearly farther visible object is offered as a foil; the builder keeps 1–3 foils,
    each weighted by how often its *category* has been this family's answer
    (``balance.pick_distractors``), one per category.  So the categories answers fall in are
    the categories foils are shown in, and seeing one among the options says nothing.  Drawing
    a group and asking for its closest made what a walk passes near (rugs under the camera,
    chairs, potted plants) the answer and large furniture the foil, which a blind forest read
    off the options (``qc blind`` on 12 houses: 0.56 against a chance of 0.41).
    The evidence is when any of the candidates (every one in view now) was on screen.
    """
    cands = nameable(p, sorted(p.visible_now))
    dist = {o: p.cam_distance(o) for o in cands}

    def farther(a: int) -> list[int]:
        gap = max(CLOSEST_MARGIN[0], CLOSEST_MARGIN[1] * dist[a])
        return [o for o in cands if dist[o] - dist[a] >= gap]

    answers = [a for a in cands if farther(a)]
    if not answers:
        return None
    best = rng.choice(answers)
    foils = farther(best)
    n_foils = len({p.obj(o).category for o in foils})
    group = [best, *foils]
    return (
        choice_draft(
            "s3.identification_closest",
            p.time,
            "Which object is currently spatially closest to the camera?",
            name(p, best),
            [name(p, o) for o in group],
            p.evidence(group),
            intent("identification_closest", group),
            n_options=rng.randint(2, min(4, n_foils + 1)),
            option_keys={name(p, o): p.obj(o).category for o in group},
            choice_instances=tuple(group),
        ),
        best,
    )


@s3_family(EGO, "MC")
def camera_motion_target(p: Prefix, rng: random.Random) -> tuple[Draft, int] | None:
    """The object whose distance to the camera shrank most over the last 3 s."""
    j = p.k - p.frames_back(3.0)
    if j < 0:
        return None
    cands = nameable(p, sorted(o for o in p.visible_now if p.first_seen[o] <= j))
    if len(cands) < 2:
        return None
    delta = {o: p.cam_distance(o) - p.cam_distance(o, j) for o in cands}
    ranked = sorted(cands, key=lambda o: delta[o])
    best = ranked[0]
    if delta[best] > -0.5 or delta[ranked[1]] - delta[best] < 0.3:
        return None
    group = [best, *rng.sample(ranked[1:], min(3, len(ranked) - 1))]
    return (
        choice_draft(
            "s3.camera_motion_target",
            p.time,
            "Which object did the camera approach the most over the last 3 seconds?",
            name(p, best),
            [name(p, o) for o in group],
            ((p.t(j), p.t(p.k)),),
            intent("camera_motion_target", group, seconds=3),
        ),
        best,
    )


# -- Spatial relation ----------------------------------------------------------------------


@s3_family(REL, "Num", about=seen)
def attribute(p: Prefix, o: int, rng: random.Random) -> Draft | None:
    """Longest edge of a seen object's 3D box."""
    return _num(
        p,
        "s3.attribute",
        f"What is the length of the {name(p, o)}'s longest edge? Answer in meters.",
        max(p.obj(o).size),
        p.evidence([o]),
        intent("attribute", [o], measure="longest_edge"),
    )


def _same_room(p: Prefix, n: int) -> tuple[dict[int, list[int]], list[int]]:
    """Seen nameable objects by room, and the rooms (sorted) holding at least ``n`` of them."""
    by_room: dict[int, list[int]] = {}
    for o in nameable(p, p.seen):
        by_room.setdefault(p.obj(o).room_id, []).append(o)
    return by_room, [r for r, v in sorted(by_room.items()) if len(v) >= n]


@s3_family(REL, "Num")
def spatial_distance(p: Prefix, rng: random.Random) -> Draft | None:
    """Centre distance between two seen objects of the same room."""
    by_room, rooms = _same_room(p, 2)
    if not rooms:
        return None
    a, b = rng.sample(by_room[rng.choice(rooms)], 2)
    return _num(
        p,
        "s3.spatial_distance",
        f"What is the distance between the {name(p, a)} and the {name(p, b)}? Answer in meters.",
        object_distance(p.obj(a), p.obj(b)),
        p.evidence([a, b]),
        intent("spatial_distance", [a, b]),
    )


def room_visit_ratios(p: Prefix, since: int = 0) -> dict[int, float]:
    """Share of the floor cells of each room entered from frame ``since`` on that passed within
    COVER_RADIUS of the camera in those frames."""
    frames = p.frames[since:]
    path = np.array([f.pose.position[:2] for f in frames if f.room_id is not None])
    out: dict[int, float] = {}
    for room_id in dict.fromkeys(f.room_id for f in frames if f.room_id is not None):
        room = p.house.room(room_id)
        xs = [q[0] for q in room.polygon]
        ys = [q[1] for q in room.polygon]
        c = p.house.cell
        cells = [
            (x, y)
            for x in np.arange(min(xs) + c / 2, max(xs), c)
            for y in np.arange(min(ys) + c / 2, max(ys), c)
            if room.contains(float(x), float(y))
        ]
        if not cells:
            continue
        cc = np.array(cells)
        d2 = ((cc[:, None, :] - path[None, :, :]) ** 2).sum(-1).min(axis=1)
        out[room_id] = float((d2 <= COVER_RADIUS**2).mean())
    return out


@s3_family(REL, "Num", timed=True)
def area(p: Prefix, rng: random.Random) -> Draft | None:
    """Total area of the rooms visited since the camera first entered a room R, R included.

    "Visited" is S3-Bench's rule, over the frames since then: a room whose floor the walk
    passed within ``COVER_RADIUS`` of, on ``AREA_SHARE`` of it (no room within 0.1 of that
    share).  S3-Bench sums every room visited so far; on a walk that total only grows, and a
    model of the answer on the query time alone read it (0.67 MRA against a training median's
    0.07 on sixteen 5-minute walks, where pruning removed 86 of its items and still fell
    short).  From a room's first entry, the sum runs over one room to all of them at any time
    of the walk: the answer's bin is drawn first, then a room R that gives it.
    """
    first: dict[int, int] = {}
    for r in p.room_runs:
        first.setdefault(r.key, r.start)
    offers: dict[str, list[tuple[int, list[int]]]] = {}
    for room, start in sorted(first.items()):
        ratios = room_visit_ratios(p, start)
        if any(abs(v - AREA_SHARE) < 0.1 for v in ratios.values()):
            continue  # a room on the fence: whether it was visited would be arbitrary
        rooms = sorted(r for r, v in ratios.items() if v >= AREA_SHARE)
        if room in rooms:
            total = sum(p.house.room(r).area for r in rooms)
            offers.setdefault(str(bin_of("s3.area", round(total, 2))), []).append((room, rooms))
    if not offers:
        return None
    want = draw_class(rng, [b for b in bins_of("s3.area") if b in offers])
    since, rooms = rng.choice(offers[want])
    frames = [i for i, f in enumerate(p.frames) if f.room_id in rooms and i >= first[since]]
    name = room_ref(p.house, since)
    return _num(
        p,
        "s3.area",
        f"What is the total area of the rooms you have visited since you first entered the "
        f"{name}, the {name} included? Answer in square meters.",
        sum(p.house.room(r).area for r in rooms),
        p.spans(frames),
        intent("area", rooms=rooms, since_room=since, threshold=AREA_SHARE),
    )


@s3_family(REL, "Num", timed=True)
def count(p: Prefix, rng: random.Random) -> Draft | None:
    """Distinct instances seen so far of a category seen more than once, or of a group
    (``groups``).  The answer's bin is drawn first, among those the share of the
    walk still takes, then a target whose count falls in it: the groups ("pieces of
    furniture") grow with the walk, and drawn target first, a clock read the answer."""
    per_cat: dict[str, list[int]] = {}
    for o in p.seen:
        per_cat.setdefault(p.obj(o).category, []).append(o)
    cats = sorted(c for c, v in per_cat.items() if len(v) > 1)
    targets = [category_target(p.house, c) for c in cats]
    targets += [group_target(p.house, g) for g in sorted(GROUPS)]
    counted = [(t, [o for o in p.seen if t.test(p.obj(o))]) for t in targets]
    offered = {bin_of("s3.count", len(ids)) for _, ids in counted if ids}
    if not offered:
        return None
    want = draw_class(rng, [b for b in bins_of("s3.count") if b in offered])
    fits = [(t, ids) for t, ids in counted if ids and bin_of("s3.count", len(ids)) == want]
    groups = [x for x in fits if x[0].key.startswith("group:")]
    # a group half the time where one fits, as pick_target did
    target, ids = rng.choice(groups if groups and rng.random() < 0.5 else fits)
    return _num(
        p,
        "s3.count",
        f"How many {target.noun} have been visible so far?",
        len(ids),
        p.evidence(ids),
        intent("count", ids, **target.params()),
    )


def _ordered_group(p: Prefix, rng: random.Random, n: int) -> list[int] | None:
    """``n`` nameable seen objects whose first sightings are MIN_ORDER_GAP_S apart."""
    cands = nameable(p, p.seen)
    if len(cands) < n:
        return None
    gap = p.frames_back(MIN_ORDER_GAP_S)
    for _ in range(10):
        group = rng.sample(cands, n)
        firsts = sorted(p.first_seen[o] for o in group)
        if all(b - a >= gap for a, b in itertools.pairwise(firsts)):
            return group
    return None


@s3_family(REL, "MC")
def sequence(p: Prefix, rng: random.Random) -> Draft | None:
    """Chronological order of first appearance of three objects; wrong permutations as options."""
    group = _ordered_group(p, rng, 3)
    if group is None:
        return None
    order = sorted(group, key=lambda o: p.first_seen[o])
    perms = [list(x) for x in itertools.permutations(order)]
    wrong = rng.sample(perms[1:], 3)
    text = [" → ".join(name(p, o) for o in perm) for perm in [order, *wrong]]
    listed = ", ".join(name(p, o) for o in group)  # question lists them in random order
    return choice_draft(
        "s3.sequence",
        p.time,
        f"Identify the correct chronological order in which these objects first "
        f"appeared: {listed}.",
        text[0],
        text,
        p.evidence(group),
        intent("sequence", group),
    )


@s3_family(REL, "MC", about=seen)
def spatial_proximity(p: Prefix, a: int, rng: random.Random) -> Draft | None:
    """Category of the object nearest to a seen anchor; farther or unseen categories as foils."""
    anchor = p.obj(a)
    nearest: dict[str, float] = {}
    for o in p.house.objects:
        if o.instance_id == a or o.category == anchor.category:
            continue
        d = object_distance(anchor, o)
        nearest[o.category] = min(d, nearest.get(o.category, math.inf))
    if len(nearest) < 4:
        return None
    ranked = sorted(nearest, key=lambda c: nearest[c])
    best = ranked[0]
    best_d = nearest[best]
    closest_obj = min(
        (o for o in p.house.objects if o.category == best),
        key=lambda o: object_distance(anchor, o),
    )
    if closest_obj.instance_id not in p.first_seen:
        return None  # the true nearest was never seen: not answerable from the stream
    if not clear_margin([best_d, nearest[ranked[1]]], absolute=0.3, relative=0.2):
        return None
    far = [c for c in ranked[1:] if nearest[c] >= best_d + max(0.3, 0.2 * best_d)]
    if len(far) < 3:
        return None
    return choice_draft(
        "s3.spatial_proximity",
        p.time,
        f"Which object category is spatially closest to the {name(p, a)}?",
        category_text(best),
        [category_text(c) for c in [best, *far]],
        p.evidence([a, closest_obj.instance_id]),
        intent("spatial_proximity", [a, closest_obj.instance_id]),
        n_options=4,  # foils drawn as answers fall (balance.pick_distractors)
    )


ORIENTATIONS = ("Left", "Right", "Back")


def orientation_of(
    a: tuple[float, ...], b: tuple[float, ...], c: tuple[float, ...]
) -> tuple[str, float]:
    """Where C lies for an observer at A facing B; and the angle ∠BAC in degrees."""
    ab = (b[0] - a[0], b[1] - a[1])
    ac = (c[0] - a[0], c[1] - a[1])
    dot = ab[0] * ac[0] + ab[1] * ac[1]
    cross = ab[0] * ac[1] - ab[1] * ac[0]
    ang = math.degrees(math.atan2(abs(cross), dot))
    if ang > 135:
        return "Back", ang
    return ("Left" if cross > 0 else "Right"), ang


@s3_family(REL, "MC")
def relative_orientation(p: Prefix, rng: random.Random) -> Draft | None:
    """Observer at A facing B: is C to the left, right or back (> 135°)? Same-room objects."""
    by_room, rooms = _same_room(p, 3)
    if not rooms:
        return None
    want = draw_class(rng, ORIENTATIONS)  # choose the class first: answers stay balanced
    for _ in range(30):
        a, b, c = rng.sample(by_room[rng.choice(rooms)], 3)
        pa, pb, pc = (p.obj(x).position for x in (a, b, c))
        if math.dist(pa[:2], pb[:2]) < 0.5 or math.dist(pa[:2], pc[:2]) < 0.5:
            continue
        got, ang = orientation_of(pa, pb, pc)
        if got != want or abs(ang - 135) < 10 or ang < 15:
            continue
        return choice_draft(
            "s3.relative_orientation",
            p.time,
            f"If you stand at the {name(p, a)} facing the {name(p, b)}, in which "
            f"direction is the {name(p, c)} located?",
            got,
            list(ORIENTATIONS),
            p.evidence([a, b, c]),
            intent("relative_orientation", [a, b, c], angle_deg=round(ang, 1)),
            answer_class=got,
            classes=ORIENTATIONS,
        )
    return None


@s3_family(REL, "MC")
def sequence_identification(p: Prefix, rng: random.Random) -> tuple[Draft, int] | None:
    """Which of 3–4 seen objects appeared first."""
    group = _ordered_group(p, rng, rng.choice((3, 4)))
    if group is None:
        return None
    first = min(group, key=lambda o: p.first_seen[o])
    return (
        choice_draft(
            "s3.sequence_identification",
            p.time,
            "Which of the following objects appeared first?",
            name(p, first),
            [name(p, o) for o in group],
            p.evidence(group),
            intent("sequence_identification", group),
        ),
        first,
    )
