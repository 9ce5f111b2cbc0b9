"""OVO-S L1 families read off the current view (OVO-S-Bench App. D.1.1–D.1.2).

Every cue is in the frame at the query time: the objects named are visible in it (the
renderer's segmentation, ``FrameRecord.visible``), and image-space relations use the very
boxes and depths the segmentation gives.  Thresholds keep every answer clear-cut, so a viewer
of the frame could not hesitate.

* 1.1.4 Viewpoint Height Perception — how high above the floor the camera is now (crouching,
  kneeling or standing eye height, held for at least a second);
* 1.1.2 Relative Physical Scale — which of two visible objects is larger / smaller (volume,
  at least 1.6× apart);
* 1.2.1 Containment Relation — is the small object X on top of the piece of furniture Y;
* 1.2.2 Occlusion Recognition — which object is partly hiding X (its image box covers a
  quarter of X's and it is nearer), or nothing;
* 1.2.3 Support Relation — which surface directly supports X (its furniture, or the floor);
* 1.2.4 Local Topology Description — the left-to-right order of three visible objects.
"""

from __future__ import annotations

import itertools
import random

from streamspatial.scene.types import Visible
from streamspatial.sim.walk.posture import LOWERED

from .balance import draw_class
from .common import intent, name, nameable
from .draft import Draft
from .ovos import objects_draft, ovos, ovos_draft, pair_in_view, which_of_two
from .prefix import Prefix
from .registry import Episode
from .search import class_first

YES_NO = ("Yes", "No")
SCALE_RATIO = 1.6  # the larger at least this many times the other's volume
OCCLUDE_MIN = 0.25  # share of X's image box the occluder covers
OCCLUDE_OTHERS = 0.05  # …while no other nearer object covers more than this
OCCLUDE_NONE = 0.02  # "nothing": no nearer object covers more than this
NEARER_M = 0.3
ORDER_GAP = 0.12  # image-width share between neighbouring box centres, left to right


# 1.1.4: three classes with a height in each option rather than a metric ladder — the walks
# hold three postures (sim.walk.posture), so a ladder of clearly separated rungs over 0.6–1.7 m
# has three rungs anyway, and a rung no posture reaches would give itself away.  Each option
# names the class's typical eye height (the middle of its range); the bands below bracket
# the ranges the walks draw, with 0.1–0.2 m to spare, so a height in a band is unmistakable.
HEIGHTS = (
    "About 0.75 m above the floor (crouching)",
    "About 1.1 m above the floor (kneeling or sitting)",
    "About 1.5 m above the floor (standing)",
)
HEIGHT_BANDS = (
    (LOWERED["crouching"][0] - 0.1, LOWERED["crouching"][1] + 0.05),
    (LOWERED["kneeling"][0] - 0.05, LOWERED["kneeling"][1] + 0.1),
    (1.4, 2.0),  # standing eye height (1.5 m by default), with the walking bob
)
HELD_S = 1.0  # the height has been held this long, so the frame at t_q shows it
HELD_SPREAD = 0.06  # m: its range over that second (the walking bob spans 0.04 m)


def _volume(p: Prefix, i: int) -> float:
    sx, sy, sz = p.obj(i).size
    return sx * sy * sz


def _visible_records(p: Prefix) -> dict[int, Visible]:
    return {v.instance_id: v for v in p.now.visible if v.pixels >= p.min_pixels}


def _height(p: Prefix, rng: random.Random) -> tuple[str, None] | None:
    """The posture class held over the last ``HELD_S``; None while it is changing."""
    j = p.k - p.frames_back(HELD_S)
    if j < 0:
        return None
    z = [f.pose.position[2] for f in p.frames[j:]]
    if max(z) - min(z) > HELD_SPREAD:
        return None
    for text, (lo, hi) in zip(HEIGHTS, HEIGHT_BANDS, strict=True):
        if all(lo <= v <= hi for v in z):
            return text, None
    return None


@ovos("viewpoint_height", "1.1.4", balanced=True)
def viewpoint_height(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How high the camera is now: the class is drawn first, then the latest frame holding it.

    (Proposals are not snapped to a grid to spread them out: standing holds nearly always, so
    its items would sit on the grid and the lowered ones off it, a clock a blind model reads.)
    """
    got = class_first(ep, k, rng, HEIGHTS, _height)
    if got is None:
        return []
    p, label, _ = got
    return [
        ovos_draft(
            p,
            "viewpoint_height",
            "About how high above the floor is the camera right now?",
            label,
            HEIGHTS,
            [(p.t(p.k - p.frames_back(HELD_S)), p.t(p.k))],
            intent("viewpoint_height", window_s=HELD_S),
            answer_class=label,
            classes=HEIGHTS,
        )
    ]


@pair_in_view("relative_scale", "1.1.2")
def relative_scale(p: Prefix, a: int, b: int, rng: random.Random) -> list[Draft]:
    va, vb = _volume(p, a), _volume(p, b)
    if max(va, vb) < SCALE_RATIO * min(va, vb):
        return []
    larger = rng.random() < 0.5
    want = (a if va > vb else b) if larger else (a if va < vb else b)
    word = "larger" if larger else "smaller"
    question = f"Which is physically {word} — the {name(p, a)} or the {name(p, b)}?"
    it = intent("relative_scale", [a, b], ask=word)
    cls = "first" if want == a else "second"
    return which_of_two(
        p, "relative_scale", question, a, b, want, it, answer_class=cls, classes=("first", "second")
    )


def _supported(p: Prefix) -> list[tuple[int, int]]:
    """(small object, its support) pairs both visible now and both nameable."""
    vis = p.visible_now
    out = []
    for i in nameable(p, sorted(vis)):
        o = p.obj(i)
        if o.kind == "small" and o.support_id in vis and nameable(p, [o.support_id]):
            out.append((i, o.support_id))
    return out


@ovos("containment", "1.2.1")
def containment(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Is X on top of Y — Y its support, or another visible piece of furniture."""
    p = ep.prefix(k)
    pairs = _supported(p)
    if not pairs:
        return []
    x, support = rng.choice(pairs)
    want = draw_class(rng, YES_NO)
    if want == "Yes":
        y = support
    else:
        others = [
            i
            for i in nameable(p, sorted(p.visible_now))
            if i != support and p.obj(i).kind == "furniture"
        ]
        if not others:
            return []
        y = rng.choice(others)
    return [
        objects_draft(
            p,
            "containment",
            f"Is the {name(p, x)} on top of the {name(p, y)} right now?",
            want,
            YES_NO,
            [x, y],
            answer_class=want,
            classes=YES_NO,
        )
    ]


@ovos("support", "1.2.3")
def support(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Which piece of furniture directly supports the small object X.

    Only small objects are asked about, and the foils are other seen pieces of furniture that
    hold small objects in this house: asking what holds up a chair ("the floor") was answered
    blind from the object's name (a blind model scored 0.70 against a chance of 0.28).
    """
    p = ep.prefix(k)
    pairs = _supported(p)
    if not pairs:
        return []
    x, under = rng.choice(pairs)
    surfaces = {o.support_id for o in p.house.objects if o.kind == "small"}
    foils = [
        f"The {name(p, i)}"
        for i in nameable(p, sorted(p.seen))
        if i in surfaces and i != under and p.obj(i).kind == "furniture"
    ]
    if len(foils) < 2:
        return []
    answer = f"The {name(p, under)}"
    return [
        objects_draft(
            p,
            "support",
            f"In the current frame, what is directly supporting the {name(p, x)}?",
            answer,
            [answer, *foils],
            [x, under],
            n_options=4,
        )
    ]


def _box_area(b: tuple[int, int, int, int]) -> float:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Share of box ``a`` that box ``b`` covers."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h) / max(1.0, _box_area(a))


def occluders(frame: dict[int, Visible], x: int) -> dict[int, float]:
    """Nearer objects of the frame and the share of X's image box each covers."""
    vx = frame[x]
    return {
        i: _overlap(vx.bbox, v.bbox)
        for i, v in frame.items()
        if i != x and v.mean_depth < vx.mean_depth - NEARER_M
    }


NOTHING = "Nothing is blocking it"


@ovos("occlusion", "1.2.2")
def occlusion(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    frame = _visible_records(p)
    want_none = rng.random() < 0.25
    cands = nameable(p, sorted(frame))
    rng.shuffle(cands)
    for x in cands:
        cover = occluders(frame, x)
        named = {i: c for i, c in cover.items() if nameable(p, [i])}
        top = max(cover.values(), default=0.0)
        if want_none and top <= OCCLUDE_NONE:
            answer, blocker = NOTHING, None
        elif not want_none and named:
            blocker = max(named, key=lambda i: named[i])
            rest = [c for i, c in cover.items() if i != blocker]
            if named[blocker] < OCCLUDE_MIN or max(rest, default=0.0) > OCCLUDE_OTHERS:
                continue
            answer = f"The {name(p, blocker)}"
        else:
            continue
        others = [i for i in nameable(p, sorted(frame)) if i not in (x, blocker)]
        foils = [f"The {name(p, i)}" for i in others]
        choices = [answer, *([NOTHING] if answer != NOTHING else []), *foils]
        # Keyed by category: foils are drawn as often as their category blocks, and a
        # category blocks at most as often as it is shown (Balancer.keys_allow).  By text,
        # what stands in front (a coffee table: right 12 of the 25 times shown on seed
        # 8111's ten 3-minute walks) was the answer, and what is merely in view the foil.
        keys = {f"The {name(p, i)}": p.obj(i).category for i in [*others, blocker] if i is not None}
        keys[NOTHING] = NOTHING
        if len(choices) < 4:
            # always four options: with three, "nothing" was the answer whenever an object
            # was missing (a blind forest read it off the option count: 0.52, chance 0.27)
            continue
        return [
            objects_draft(
                p,
                "occlusion",
                f"In the current frame, which object is partly blocking your view of the "
                f"{name(p, x)}?",
                answer,
                choices,
                [x, *([blocker] if blocker else [])],
                n_options=4,
                option_keys=keys,
            )
        ]
    return []


def left_to_right(frame: dict[int, Visible], ids: list[int], width: int) -> list[int] | None:
    """``ids`` ordered by image-box centre, left first; None when two are too close to call."""
    xs = {i: (frame[i].bbox[0] + frame[i].bbox[2]) / 2 for i in ids}
    order = sorted(ids, key=lambda i: xs[i])
    if any(xs[b] - xs[a] < ORDER_GAP * width for a, b in itertools.pairwise(order)):
        return None
    return order


@ovos("local_topology", "1.2.4")
def local_topology(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    frame = _visible_records(p)
    cands = nameable(p, sorted(frame))
    if len(cands) < 3:
        return []
    for _ in range(6):
        group = rng.sample(cands, 3)
        order = left_to_right(frame, group, p.intrinsics.width)
        if order is None:
            continue
        perms = [" – ".join(name(p, i) for i in perm) for perm in itertools.permutations(order)]
        listed = ", ".join(f"the {name(p, i)}" for i in group)
        return [
            objects_draft(
                p,
                "local_topology",
                f"From left to right in the current frame, in what order are {listed}?",
                perms[0],
                perms,
                group,
                n_options=4,
            )
        ]
    return []
