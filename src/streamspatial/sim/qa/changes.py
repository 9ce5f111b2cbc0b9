"""UCS-Bench's dynamic-scene families (Table 7): Quantity Change Tracking, Object Trajectory.

* Quantity Change Tracking — how many props of a kind were added to or removed from a surface
  while the camera looked away (its previous and latest visits compared, :mod:`.motion`),
  asked on the return or later ("the last time I looked away from it");
* Object Trajectory — where a prop the person carried in view went: lifted from surface A,
  carried in a straight line to surface B,
  in B's room.  The prop is seen resting on A within 3 s before the lift and on B within
  3 s after the set-down; B lay on the left or the right of the view at set-down.  Either
  place may be the floor (most carries go between a top and the floor), whose side is the
  prop's own at set-down.  Only a prop's latest carry by the query time is asked about.

Asked at whole seconds like the other UCS families (:func:`.ucs.whole_second`); options are
UCS-style sentences, five of them (A–E), with the open-ended answer in ``meta["answer"]``.
"""

from __future__ import annotations

import itertools
import math
import random

from streamspatial.bench.conventions import FLOOR_Z, REST_M
from streamspatial.core.geometry import wrap_pi

from .balance import draw_class
from .common import intent, name, nameable
from .draft import Draft
from .motion import Change, actor_ref, all_changes, change_surfaces, nearest_surface
from .naming import category_text, plural, room_ref
from .prefix import Prefix
from .registry import Episode
from .ucs import QUANTITY, TRAJECTORY, _draft, ucs_family, whole_second

# Quantity: the net change in the count of P on the surface, -2 … +2, asked only when P's
# props were all added or all removed (or none either way; moved ones count as none).  The
# five sentences are UCS-Bench's five options A–E, every one shown in every item; the class is
# drawn first, so the rarer two-prop changes limit how many items the family admits.
QUANTITY_TEXT = {
    "-2": ("Two {cats} were removed.", "Two {cats} were removed."),
    "-1": ("One {cat} was removed.", "One {cat} was removed."),
    "0": ("None were added or removed.", "No {cat} was added or removed."),
    "+1": ("One {cat} was added.", "One {cat} was added."),
    "+2": ("Two {cats} were added.", "Two {cats} were added."),
}
# Which side of the view the set-down surface lay on when the prop was set down.  The prop is
# on screen then, so the surface is nearly always within the field of view: sectors of 90°
# would all say "ahead"; the sign of the bearing, 8° or more off the centre line, does not.
SIDES = {"left": "on the left of my view", "right": "on the right of my view"}
SIDE_MIN_DEG = 8.0
# The carried prop is seen resting (in two consecutive frames, unmoved) on the surface it is
# lifted from within this long before the lift, and on the one it is set down on within this
# long after: a prop of 8–10 cm is often under the pixel threshold at the very instant.
REST_SEEN_S = 3.0  # (resting: moved less than conventions.REST_M between the two frames)
# The floor as a place: a prop resting with its centre below conventions.FLOOR_Z (and on no
# furniture) lies on it (the planner's props are 4-26 cm tall: centres at 2-13 cm).
FLOOR = -1


def ucs_dynamic(key: str, category: str, sub: str, **kw):
    return ucs_family(key, category, sub, dynamic=True, **kw)


def quantity_class(c: Change) -> str | None:
    if (c.added and c.removed) or abs(c.delta) > 2:
        return None
    return f"{c.delta:+d}" if c.delta else "0"


def _latest_change(ep: Episode, k: int, want: str, rng: random.Random):
    """A surface's latest change of class ``want`` by the whole second of ``k``: between its
    previous visit and its latest, which may have ended (the camera has looked away again
    since); with whether the latest visit is on, or just was."""
    p = whole_second(ep, k)
    if p is None or not p.dynamic:
        return None
    cands = [c for c in ep.derived("changes", p.k, all_changes) if quantity_class(c) == want]
    if not cands:
        return None
    c = rng.choice(cands)
    return p, c, c.last.end >= p.k - round(p.fps)


@ucs_dynamic("quantity_change", QUANTITY, "Quantity Change Tracking", balanced=True)
def quantity_change(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How many props of a kind were added to or removed from a surface while I looked away:
    on the return, or later about the last time I looked away from it (UCS-Bench asks the
    count "during the event", whenever the question comes)."""
    want = draw_class(rng, QUANTITY_TEXT)
    got = _latest_change(ep, k, want, rng)
    if got is None:
        return []
    p, c, now = got
    cat, cats = category_text(c.category), plural(c.category)
    choices = [t.format(cat=cat, cats=cats) for t, _ in QUANTITY_TEXT.values()]
    answer, open_answer = (t.format(cat=cat, cats=cats) for t in QUANTITY_TEXT[want])
    when = "while I looked away" if now else "the last time I looked away from it"
    return [
        _draft(
            p,
            "quantity_change",
            f"How many {cats} were added to or removed from the {name(p, c.surface)} {when}?",
            answer,
            choices,
            p.spans(range(c.first.start, c.first.end + 1))
            + p.spans(range(c.last.start, c.last.end + 1)),
            intent("quantity_change", [c.surface], category=c.category),
            open_answer=open_answer,
            answer_class=want,
            classes=tuple(QUANTITY_TEXT),
        )
    ]


def _seen_resting(p: Prefix, aid: int, lo: float, hi: float) -> bool:
    """The prop was on screen, unmoved, in two consecutive prefix frames between ``lo`` and
    ``hi`` s (what the rules read as a rest)."""
    for i in range(max(0, round(lo * p.fps)), min(len(p.frames) - 1, round(hi * p.fps))):
        f0, f1 = p.frames[i], p.frames[i + 1]
        if aid in p.dynamic_seen(f0) and aid in p.dynamic_seen(f1):
            a, b = p.actor_pose(aid, i).position, p.actor_pose(aid, i + 1).position
            if math.dist(a, b) <= REST_M:
                return True
    return False


def _tops(p: Prefix) -> set[int]:
    """Seen, nameable furniture that holds small objects in this house: where props go, so
    foils name the same kind of place the answer does."""
    holders = {o.support_id for o in p.house.objects if o.kind == "small"}
    return {
        i
        for i in holders
        if i in p.first_seen and p.obj(i).kind == "furniture" and nameable(p, [i])
    }


def _frame_before(p: Prefix, t: float) -> int:
    """The last frame at or before ``t``: a prop about to be lifted still rests there."""
    return min(len(p.frames) - 1, max(0, math.floor(t * p.fps + 1e-6)))


def _frame_after(p: Prefix, t: float) -> int:
    """The first frame at or after ``t``: a prop set down by ``t`` rests there.  The nearest
    frame can fall in the last 0.05 s of the set-down, the prop still 5-15 cm over its place:
    on the twelve walks of seed 80411 that turned away 9 of the 12 carries otherwise asked
    about (it looked as if the prop moved again after the set-down)."""
    return min(len(p.frames) - 1, max(0, math.ceil(t * p.fps - 1e-6)))


def _place(p: Prefix, pos: tuple[float, float, float]) -> int | None:
    """Where a resting prop lies: seen, nameable furniture, else ``FLOOR`` when low enough."""
    got = nearest_surface(p, pos)
    return got if got is not None else FLOOR if pos[2] <= FLOOR_Z else None


def _side(p: Prefix, place: int, at: tuple[float, float, float], i: int) -> str | None:
    """The side of the view a place lay on at frame ``i`` (the floor: the prop at ``at``)."""
    if place == FLOOR:
        pose = p.frames[i].pose
        az = math.atan2(at[1] - pose.position[1], at[0] - pose.position[0])
        b = math.degrees(wrap_pi(az - pose.yaw))
    else:
        b = math.degrees(p.bearing(place, i))
    return "left" if b >= SIDE_MIN_DEG else "right" if b <= -SIDE_MIN_DEG else None


def _words(p: Prefix, place: int) -> str:
    return "floor" if place == FLOOR else name(p, place)


def _sentence(p: Prefix, a: int, b: int, side: str, floor_room: int | None) -> str:
    room = floor_room if b == FLOOR else p.obj(b).room_id
    return (
        f"After being lifted from the {_words(p, a)}, it moved in a straight line to the "
        f"{_words(p, b)} {SIDES[side]} in the {room_ref(p.house, room)}."
    )


def _pick_foils(foils: list[str], rng: random.Random, n: int = 4) -> list[str]:
    """Half the foils name the floor where they can: most carries touch the floor, so an
    option naming it must not single out the answer (nor its absence)."""
    floor = [f for f in foils if "from the floor," in f or "to the floor on" in f]
    rest = [f for f in foils if f not in floor]
    k = min(len(floor), max(n // 2, n - len(rest)))
    return rng.sample(floor, k) + rng.sample(rest, n - k)


@ucs_dynamic("object_trajectory", TRAJECTORY, "Object Trajectory", balanced=True, min_history_s=4.0)
def object_trajectory(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """The latest carry seen from pick-up to set-down, answered by where it went."""
    p = whole_second(ep, k)
    if p is None or not p.dynamic:
        return []
    want = draw_class(rng, SIDES)
    carries = sorted(p.events(("carried",)), key=lambda e: e.start)
    latest = {e.subject: e for e in carries}
    for e in reversed(carries):
        aid = e.subject
        if latest[aid] is not e:
            continue  # carried again since (seen or not): "the" trajectory would be ambiguous
        i0, i1 = _frame_before(p, e.start), _frame_after(p, e.end)
        now = p.actor_pose(aid, len(p.frames) - 1).position
        if math.dist(now, p.actor_pose(aid, i1).position) > REST_M:
            continue  # on the move again at the query time
        before = _seen_resting(p, aid, e.start - REST_SEEN_S, e.start)
        after = _seen_resting(p, aid, e.end, min(e.end + REST_SEEN_S, p.t(p.k)))
        if i1 >= p.k or not (before and after):
            continue
        put = p.actor_pose(aid, i1).position
        a, b = _place(p, p.actor_pose(aid, i0).position), _place(p, put)
        side = None if b is None else _side(p, b, put, i1)
        if a is None or b is None or a == b or side != want:
            continue
        who = actor_ref(p, aid)  # "the mug", or "the red mug" among several mugs
        if who is None:
            continue
        floor_room = p.house.room_at(put[0], put[1]) if b == FLOOR else None
        if b == FLOOR and floor_room is None:
            continue
        if floor_room is None:
            floor_room = p.obj(b).room_id  # the room a foil's "floor" is in
        pool = sorted({*change_surfaces(p), *_tops(p), a, b, FLOOR})
        truth = _sentence(p, a, b, side, floor_room)
        foils = sorted(
            {
                _sentence(p, x, y, s, floor_room)
                for x, y in itertools.permutations(pool, 2)
                for s in SIDES
                if (x, y, s) != (a, b, side)
            }
        )
        if len(foils) < 4:
            continue
        open_answer = (
            f"It moved in a straight line from the {_words(p, a)} to the {_words(p, b)}, "
            f"{SIDES[side]}."
        )
        return [
            _draft(
                p,
                "object_trajectory",
                f"What was the movement trajectory of the {who} from the moment it was picked "
                f"up until it was set down?",
                truth,
                [truth, *_pick_foils(foils, rng)],
                p.spans([i for i in range(i0, i1 + 1) if aid in p.dynamic_seen(p.frames[i])]),
                intent(
                    "object_trajectory",
                    [x for x in (a, b) if x != FLOOR],
                    category=p.actor(aid).category,
                    floor=[x == FLOOR for x in (a, b)],
                ),
                open_answer=open_answer,
                answer_class=side,
                classes=tuple(SIDES),
            )
        ]
    return []


__all__ = ["object_trajectory", "quantity_change"]
