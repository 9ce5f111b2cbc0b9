"""OVO-S-Bench families with exact simulator ground truth (App. D), levels L1–L4.

Which families exist here is decided by App. D's boundary rules: L1 cues are visible at the
query frame, L2 cues were seen and are gone, L3 operates on the explored room graph, L4 asks
about the allocentric map.  This module holds the helpers every OVO-S family drafts through
and the families about objects (L1 distances, order and ego-motion; L2 objects out of view);
the rooms as walked are :mod:`.ovos_rooms`, local relations :mod:`.ovos_local`, moving things
:mod:`.ovos_motion`, imagined changes :mod:`.ovos_simulate`.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Iterable

from streamspatial.bench.tasks import OVOS_TASKS as TASKS
from streamspatial.core.geometry import wrap_pi
from streamspatial.core.schema import TaskLabels

from .balance import draw_class
from .common import clear_margin, count_block, intent, ladder, name, nameable
from .draft import Draft, choice_draft
from .naming import plural, room_ref
from .prefix import Prefix, object_distance
from .registry import Episode, family
from .search import class_first


def labels(code: str) -> TaskLabels:
    main = code.rsplit(".", 1)[0]
    return TaskLabels(level=f"L{code[0]}", category=main, subcategory=code, task=TASKS[code])


def ovos(key: str, code: str, **kw):
    """An OVO-S family: a choice question under subcategory ``code`` (``kw``: see ``family``)."""
    return family(f"ovos.{key}", "ovos", labels(code), "choice", **kw)


def ovos_draft(
    p: Prefix, key: str, question: str, answer: str, choices, evidence, it, **kw
) -> Draft:
    """An OVO-S question asked at the prefix's last frame."""
    return choice_draft(f"ovos.{key}", p.time, question, answer, choices, evidence, it, **kw)


def classed_draft(
    p: Prefix, key: str, question: str, answer: str, choices, evidence, it, *, classes=(), cls=None
) -> Draft:
    """:func:`ovos_draft` of a family with fixed answer classes (the answer's, or ``cls``)."""
    return ovos_draft(
        p,
        key,
        question,
        answer,
        choices,
        evidence,
        it,
        classes=tuple(classes),
        answer_class=cls if cls is not None else (answer if classes else None),
    )


def objects_draft(
    p: Prefix, key: str, question: str, answer: str, choices, ids: Iterable[int], **kw
) -> Draft:
    """:func:`ovos_draft` of a question about the objects ``ids`` as they are in view now:
    its evidence is their latest sighting, its intent the family's key with those objects."""
    ids = list(ids)
    return ovos_draft(
        p, key, question, answer, choices, p.evidence(ids, limit=1), intent(key, ids), **kw
    )


YES_NO = ("Yes", "No")
RECENT_S = 2.0  # "out of view": not seen during the last two seconds


def out_of_view(p: Prefix) -> list[int]:
    """Nameable objects seen before but not during the last RECENT_S (nor at all in frame k)."""
    cut = p.k - p.frames_back(RECENT_S)
    now_any = {v.instance_id for v in p.now.visible}
    ids = [o for o in p.seen if p.last_seen[o] < cut and o not in now_any]
    return nameable(p, ids)


# -- L1 ------------------------------------------------------------------------------------

# Every ladder of distance options lies inside this range (m): with the true distances
# balanced over it (balance.BINS), each rung of any ladder is equally likely to be right.
LADDER_RANGE = (0.3, 7.0)


def pair_in_view(key: str, code: str, **kw):
    """Register an OVO-S family about two nameable objects in view now, drawn at random: the
    generator gets (prefix, a, b, rng)."""

    def deco(fn: Callable[[Prefix, int, int, random.Random], list[Draft]]):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            p = ep.prefix(k)
            cands = nameable(p, sorted(p.visible_now))
            if len(cands) < 2:
                return []
            a, b = rng.sample(cands, 2)
            return fn(p, a, b, rng)

        return ovos(key, code, **kw)(generate)

    return deco


def which_of_two(
    p: Prefix, key: str, question: str, a: int, b: int, want: int, it, **kw
) -> list[Draft]:
    """An OVO-S question whose options are the two objects, ``want`` the right one."""
    pair = [name(p, a), name(p, b)]
    evidence = p.evidence([a, b], limit=1)
    return [ovos_draft(p, key, question, name(p, want), pair, evidence, it, **kw)]


@pair_in_view("absolute_distance", "1.1.1")
def absolute_distance(p: Prefix, a: int, b: int, rng: random.Random) -> list[Draft]:
    d = object_distance(p.obj(a), p.obj(b))
    if d < 0.5:
        return []
    values = ladder(d, 4, rng)
    if min(values) < LADDER_RANGE[0] or max(values) > LADDER_RANGE[1]:
        return []  # an option no pair of visible objects could be apart by gives itself away
    text = [f"About {v:.1f} m" for v in values]
    if len(set(text)) < 4:
        return []
    correct = text[values.index(min(values, key=lambda v: abs(v - d)))]
    draft = objects_draft(
        p,
        "absolute_distance",
        f"About how far apart are the {name(p, a)} and the {name(p, b)}?",
        correct,
        text,
        [a, b],
    )
    draft.meta["value"] = round(d, 3)  # balanced over distance bins (see balance.BINS)
    return [draft]


@pair_in_view("depth_ordering", "1.1.3")
def depth_ordering(p: Prefix, a: int, b: int, rng: random.Random) -> list[Draft]:
    da, db = p.cam_distance(a), p.cam_distance(b)
    if not clear_margin([da, db], absolute=0.4, relative=0.2):
        return []
    closer = rng.random() < 0.5
    want = (a if da < db else b) if closer else (a if da > db else b)
    word = "closer to" if closer else "farther from"
    question = f"Which is {word} you right now — the {name(p, a)} or the {name(p, b)}?"
    it = intent("depth_ordering", [a, b], ask=word)
    return which_of_two(p, "depth_ordering", question, a, b, want, it)


# The walks never step backwards: offering "Moving backward" would give a blind model a free
# option to rule out, so the options are the two classes a walk offers, equally often right.
TRANSLATION = ("Moving forward", "Staying in place")


def _translation(p: Prefix, rng: random.Random) -> tuple[str, None] | None:
    j = p.k - p.frames_back(1.0)
    if j < 0:
        return None
    a, b = p.frames[j].pose, p.now.pose
    dx, dy = b.position[0] - a.position[0], b.position[1] - a.position[1]
    fwd = dx * math.cos(a.yaw) + dy * math.sin(a.yaw)
    side = -dx * math.sin(a.yaw) + dy * math.cos(a.yaw)
    if math.hypot(dx, dy) < 0.05:
        return TRANSLATION[1], None
    if abs(side) < 0.5 * abs(fwd) and fwd >= 0.3:
        return TRANSLATION[0], None
    return None


def _ego_motion(
    ep: Episode,
    k: int,
    rng: random.Random,
    task: str,
    question: str,
    options: tuple[str, ...],
    classes: tuple[str, ...],
    label_of: Callable[[Prefix, random.Random], tuple[str, None] | None],
) -> list[Draft]:
    """A camera-motion question over the last second of the prefix (L1 ego-motion tasks)."""
    got = class_first(ep, k, rng, classes, label_of)
    if got is None:
        return []
    p, label, _ = got
    j = p.k - p.frames_back(1.0)
    evidence = [(p.t(j), p.t(p.k))]
    return [
        classed_draft(
            p, task, question, label, options, evidence, intent(task, window_s=1.0), classes=classes
        )
    ]


@ovos("ego_translation", "1.3.1", timed=True)
def ego_translation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    # two options: a walking camera never walks backwards, so "backward" was never right
    question = "Is the camera currently moving forward or staying in place?"
    return _ego_motion(
        ep, k, rng, "ego_translation", question, TRANSLATION, TRANSLATION, _translation
    )


ROTATION = ("Panning left", "Panning right", "Not panning")


def _rotation(p: Prefix, rng: random.Random) -> tuple[str, None] | None:
    j = p.k - p.frames_back(1.0)
    if j < 0:
        return None
    turn = sum(wrap_pi(p.frames[i + 1].pose.yaw - p.frames[i].pose.yaw) for i in range(j, p.k))
    deg = math.degrees(turn)
    if deg >= 20:
        return ROTATION[0], None  # yaw grows counter-clockwise: a left turn
    if deg <= -20:
        return ROTATION[1], None
    if abs(deg) < 3:
        return ROTATION[2], None
    return None


@ovos("ego_rotation", "1.3.2")
def ego_rotation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    question = "Which direction is the camera currently panning?"
    return _ego_motion(ep, k, rng, "ego_rotation", question, ROTATION, ROTATION, _rotation)


# -- L2: objects out of view ------------------------------------------------------------


@ovos("out_of_view", "2.2.1")
def out_of_view_localization(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    if len(p.house.rooms) < 4:
        return []
    cands = out_of_view(p)
    if not cands:
        return []
    # which room holds it is only known once one has stood in that room
    cands = [o for o in cands if p.obj(o).room_id in p.visited_rooms]
    if not cands:
        return []
    o = rng.choice(cands)
    room = p.obj(o).room_id
    others = [r.room_id for r in p.house.rooms if r.room_id != room]
    draft = classed_draft(
        p,
        "out_of_view",
        f"In which room is the {name(p, o)} you saw earlier?",
        room_ref(p.house, room),
        [room_ref(p.house, r) for r in [room, *others]],
        p.evidence([o]),
        intent("out_of_view", [o], room_id=room),
    )
    draft.n_options = 4  # distractors drawn as answers fall (balance.pick_distractors)
    return [draft]


EGO_DIRS = ("Ahead", "To your left", "To your right", "Behind you")


def ego_direction(bearing_rad: float) -> tuple[str, float]:
    """Four 90° sectors around the heading (+ = left) and the margin to a sector edge (deg)."""
    b = math.degrees(bearing_rad)
    if abs(b) <= 45:
        label = EGO_DIRS[0]
    elif abs(b) >= 135:
        label = EGO_DIRS[3]
    else:
        label = EGO_DIRS[1] if b > 0 else EGO_DIRS[2]
    margin = min(abs(abs(b) - 45), abs(abs(b) - 135))
    return label, margin


def pick_in_direction(
    p: Prefix, objects: Iterable[int], want: str, rng: random.Random
) -> int | None:
    """One of ``objects`` clearly in egocentric direction ``want`` (10° from the sector's
    edges) and over a metre from the camera; None when there is none."""
    cands = []
    for o in objects:
        label, margin = ego_direction(p.bearing(o))
        if label == want and margin >= 10 and math.dist(p.camera_xy(), p.obj(o).position[:2]) > 1:
            cands.append(o)
    return rng.choice(cands) if cands else None


@ovos("behind_camera", "2.2.2")
def behind_camera(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    want = draw_class(rng, EGO_DIRS)
    o = pick_in_direction(p, out_of_view(p), want, rng)
    if o is None:
        return []
    return [
        classed_draft(
            p,
            "behind_camera",
            f"The {name(p, o)} you saw earlier is now in which direction relative to you?",
            want,
            EGO_DIRS,
            p.evidence([o]),
            intent("behind_camera", [o]),
            classes=EGO_DIRS,
        )
    ]


@ovos("transient_count", "2.2.3", timed=True)
def transient_count(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How many X seen so far, some out of view now.  The count is drawn first, among those
    the prefix offers and the share of the walk at ``k`` still takes, then a category with
    that many: a count seen so far grows with the walk, and drawn category first, the clock
    alone read it.  The options are the block of four consecutive counts that holds it (1–4,
    5–8, …: ``common.count_block``) and are its answer classes, so in each share of the walk
    the block's counts, and the answer's rank among the options, stay level: early shares,
    which offer ones and twos only, keep an item or two."""
    p = ep.prefix(k)
    per_cat: dict[str, list[int]] = {}
    for o in p.seen:
        per_cat.setdefault(p.obj(o).category, []).append(o)
    cats = sorted(c for c, v in per_cat.items() if not set(v) & p.visible_now)
    if not cats:
        return []
    n = int(draw_class(rng, sorted({str(len(per_cat[c])) for c in cats}, key=int)))
    cat = rng.choice([c for c in cats if len(per_cat[c]) == n])
    opts = [str(v) for v in count_block(n, 4)]
    return [
        classed_draft(
            p,
            "transient_count",
            f"How many {plural(cat)} have you seen in total so far?",
            str(n),
            opts,
            p.evidence(per_cat[cat]),
            intent("transient_count", per_cat[cat], category=cat),
            classes=opts,
        )
    ]
