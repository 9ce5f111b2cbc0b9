"""UCS-Bench families (Table 7): user-centric questions in UCS-Bench's own wording.

Asked at whole seconds (UCS-Bench stamps questions "HH:MM:SS"): a family proposed at frame
``k`` is asked at ``t = ⌊k / fps⌋`` s from the prefix of frames at or before ``t``, and its
evidence ends before ``t``.  Options are UCS-style sentences; the open-ended answer (what the
released demo files carry, e.g. "It is on your left.") is kept in ``meta["answer"]`` and
written next to the lettered options by the UCS exporter.

* Position & Orientation — Ego-centric Position ("Where is the X now relative to me?"),
  Relative Position & Orientation Memory (where X was relative to you when you first entered
  its room);
* Trajectory & Movement — My Trajectory (the rooms you walked into after leaving a room);
  Object Trajectory lives with the dynamic scenes (:mod:`.changes`);
* Proximity & Reachability — Distance Comparison Memory (which of two objects is closer to you
  now), Reachability Judgment (can you reach X from where you stand);
* Category & Quantity — Object Category Recall (which of these you saw in a room); Quantity
  Change Tracking lives with the dynamic scenes (:mod:`.changes`).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable

from streamspatial.core.schema import TaskLabels

from .balance import draw_class
from .common import intent, name, nameable
from .draft import Draft, choice_draft
from .naming import category_text, room_ref
from .ovos import ego_direction
from .prefix import Prefix
from .registry import Episode, family

POSITION = "Position & Orientation"
TRAJECTORY = "Trajectory & Movement"
PROXIMITY = "Proximity & Reachability"
QUANTITY = "Category & Quantity"

NOW = {  # sector → (option sentence, open-ended answer)
    "Ahead": ("It's now in front of you.", "It is in front of you."),
    "To your left": ("It's now to your left.", "It is on your left."),
    "To your right": ("It's now on your right.", "It is on your right."),
    "Behind you": ("It's now behind you.", "It is behind you."),
}
THEN = {
    "Ahead": "It was in front of you.",
    "To your left": "It was on your left.",
    "To your right": "It was on your right.",
    "Behind you": "It was behind you.",
}
REACH_YES, REACH_NO = 0.6, 1.2  # m from the camera to the object's box, horizontally


def labels(category: str, sub: str) -> TaskLabels:
    return TaskLabels(category=category, subcategory=sub, task=sub)


def ucs_family(key: str, category: str, sub: str, **kw):
    """Register a UCS family: a choice question of ``category`` / ``sub`` (``kw``: see
    ``family``)."""
    return family(f"ucs.{key}", "ucs", labels(category, sub), "choice", **kw)


def ucs(key: str, category: str, sub: str, **kw):
    """Register a UCS family asked at whole seconds (UCS-Bench's timestamps are HH:MM:SS): the
    generator gets the prefix of the whole second at or before ``k``."""

    def deco(fn: Callable[[Prefix, random.Random], list[Draft]]):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            p = whole_second(ep, k)
            return [] if p is None else fn(p, rng)

        return ucs_family(key, category, sub, **kw)(generate)

    return deco


def whole_second(ep: Episode, k: int) -> Prefix | None:
    """The prefix a question asked at the whole second ``⌊k / fps⌋`` sees."""
    t = math.floor(k / ep.fps)
    kk = math.floor(t * ep.fps + 1e-9)
    return ep.prefix(kk) if t >= 1 and kk >= 1 else None


def asked_at(p: Prefix) -> float:
    return float(math.floor(p.k / p.fps + 1e-9))


def _before(p: Prefix, spans) -> tuple[tuple[float, float], ...]:
    t = asked_at(p)
    return tuple((s, min(e, round(t - 1 / p.fps, 4))) for s, e in spans if s < t)


def _draft(p: Prefix, key: str, question: str, answer: str, choices, evidence, it, **kw) -> Draft:
    """A UCS question asked at the whole second, its evidence before it, its open-ended answer
    (``open_answer``, else the option text) kept for the released file."""
    meta = {"answer": kw.pop("open_answer", answer)}
    spans = _before(p, evidence)
    return choice_draft(
        f"ucs.{key}", asked_at(p), question, answer, choices, spans, it, meta=meta, **kw
    )


def _sector_ok(bearing: float) -> str | None:
    label, margin = ego_direction(bearing)
    return label if margin >= 15 else None


@ucs("ego_position", POSITION, "Ego-centric Position", balanced=True)
def ego_position(p: Prefix, rng: random.Random) -> list[Draft]:
    want = draw_class(rng, NOW)
    cands = []
    for o in nameable(p, p.seen):
        label = _sector_ok(p.bearing(o))
        if label == want and math.dist(p.camera_xy(), p.obj(o).position[:2]) > 1:
            cands.append(o)
    if not cands:
        return []
    o = rng.choice(cands)
    return [
        _draft(
            p,
            "ego_position",
            f"Where is the {name(p, o)} now relative to me?",
            NOW[want][0],
            [v[0] for v in NOW.values()],
            p.evidence([o]),
            intent("ego_position", [o]),
            open_answer=NOW[want][1],
            answer_class=want,
            classes=tuple(NOW),
        )
    ]


@ucs("relative_position", POSITION, "Relative Position & Orientation Memory", balanced=True)
def relative_position(p: Prefix, rng: random.Random) -> list[Draft]:
    """Where X was, relative to the way you faced, when you first entered X's room."""
    want = draw_class(rng, THEN)
    entered: dict[int, int] = {}
    for r in p.room_runs:
        entered.setdefault(r.key, r.start)
    cands = []
    for o in nameable(p, p.seen):
        room = p.obj(o).room_id
        if room not in entered or entered[room] >= p.k:
            continue
        if _sector_ok(p.bearing(o, entered[room])) == want:
            cands.append(o)
    if not cands:
        return []
    o = rng.choice(cands)
    room = p.obj(o).room_id
    return [
        _draft(
            p,
            "relative_position",
            f"When I first entered the {room_ref(p.house, room)}, in what direction was the "
            f"{name(p, o)} relative to my orientation?",
            THEN[want],
            list(THEN.values()),
            p.spans([entered[room]]) + p.evidence([o]),
            intent("relative_position", [o], room_id=room),
            answer_class=want,
            classes=tuple(THEN),
        )
    ]


def _path_text(p: Prefix, rooms: list[int]) -> str:
    names = [room_ref(p.house, r) for r in rooms]
    return "I went into the " + ", then the ".join(names) + "."


@ucs("my_trajectory", TRAJECTORY, "My Trajectory", min_history_s=10.0)
def my_trajectory(p: Prefix, rng: random.Random) -> list[Draft]:
    """The two rooms walked into, in order, after last leaving room A."""
    stays = [r.key for r in p.room_runs]
    last_left = {room: j for j, room in enumerate(stays[:-1])}  # latest stay that was left
    cands = sorted(room for room, j in last_left.items() if j + 2 < len(stays))
    if not cands:
        return []
    room = rng.choice(cands)
    i = last_left[room]
    nxt = stays[i + 1 : i + 3]
    truth = _path_text(p, nxt)
    others = sorted(set(stays) | {r.room_id for r in p.house.rooms})
    foils = set()
    for a in others:
        for b in others:
            if a != b and [a, b] != nxt and a != room:
                foils.add(_path_text(p, [a, b]))
    foils.discard(truth)
    if len(foils) < 3:
        return []
    run_end = p.room_runs[i].end
    return [
        _draft(
            p,
            "my_trajectory",
            f"Which rooms did I walk into, in order, after I last left the "
            f"{room_ref(p.house, room)}?",
            truth,
            [truth, *sorted(foils)],
            p.spans([run_end, p.room_runs[i + 1].start, p.room_runs[i + 2].start]),
            intent("my_trajectory", room_ids=[room, *nxt]),
            n_options=5,
        )
    ]


@ucs("distance_comparison", PROXIMITY, "Distance Comparison Memory", balanced=True)
def distance_comparison(p: Prefix, rng: random.Random) -> list[Draft]:
    cands = nameable(p, p.seen)
    if len(cands) < 2:
        return []
    for _ in range(8):
        a, b = rng.sample(cands, 2)
        da, db = p.cam_distance(a), p.cam_distance(b)
        if abs(da - db) < max(0.5, 0.2 * min(da, db)):
            continue
        near = a if da < db else b
        return [
            _draft(
                p,
                "distance_comparison",
                f"Which is closer to me now, the {name(p, a)} or the {name(p, b)}?",
                f"The {name(p, near)}.",
                [f"The {name(p, a)}.", f"The {name(p, b)}."],
                p.evidence([a, b]),
                intent("distance_comparison", [a, b]),
                answer_class="first" if near == a else "second",
                classes=("first", "second"),
            )
        ]
    return []


def reach_distance(p: Prefix, o: int) -> float:
    """Horizontal distance from the camera to the nearest point of the object's box."""
    lo, hi = p.obj(o).aabb()
    x, y = p.camera_xy()
    dx = max(lo[0] - x, 0.0, x - hi[0])
    dy = max(lo[1] - y, 0.0, y - hi[1])
    return math.hypot(dx, dy)


@ucs("reachability", PROXIMITY, "Reachability Judgment", balanced=True)
def reachability(p: Prefix, rng: random.Random) -> list[Draft]:
    want = draw_class(rng, ("can", "cannot"))
    cands = []
    for o in nameable(p, p.seen):
        d = reach_distance(p, o)
        if (want == "can" and d <= REACH_YES) or (want == "cannot" and REACH_NO <= d <= 3.0):
            cands.append(o)
    if not cands:
        return []
    o = rng.choice(cands)
    yes, no = f"You can reach the {name(p, o)} now.", f"You cannot reach the {name(p, o)} now."
    return [
        _draft(
            p,
            "reachability",
            f"Can I reach the {name(p, o)} now?",
            yes if want == "can" else no,
            [no, yes],
            p.evidence([o]),
            intent("reach", [o]),
            answer_class=want,
            classes=("can", "cannot"),
        )
    ]


@ucs("category_recall", QUANTITY, "Object Category Recall")
def category_recall(p: Prefix, rng: random.Random) -> list[Draft]:
    """Which of these kinds of object did you see in room R (you have stood in R)."""
    visited = set(p.visited_rooms)
    by_room: dict[int, set[str]] = {}
    for o in p.seen:
        ob = p.obj(o)
        if ob.room_id in visited:
            by_room.setdefault(ob.room_id, set()).add(ob.category)
    if not by_room:
        return []
    room = rng.choice(sorted(by_room))
    in_room = {o.category for o in p.house.objects if o.room_id == room}
    elsewhere = sorted({o.category for o in p.house.objects} - in_room)
    if len(elsewhere) < 3:
        return []
    cat = rng.choice(sorted(by_room[room]))
    ids = [o for o in p.seen if p.obj(o).category == cat and p.obj(o).room_id == room]
    texts = [f"You saw a {category_text(c)} there." for c in [cat, *elsewhere]]
    return [
        _draft(
            p,
            "category_recall",
            f"Which of these did I see in the {room_ref(p.house, room)}?",
            texts[0],
            texts,
            p.evidence(ids),
            intent("category_recall", ids, room_id=room, category=cat),
            n_options=4,
        )
    ]
