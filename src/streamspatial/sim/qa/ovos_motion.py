"""OVO-S motion and change families over dynamic episodes (OVO-S-Bench App. D.1.3, D.3.2).

* 1.3.3 Object Motion Separation — which way a named actor is moving now, seen from a still
  camera (toward / away / left / right / not moving);
* 1.3.4 Relative Speed Judgment — which moved faster over the last second, the person or
  another mover in view, or about the same;
* 1.3.5 Judgment of Motion State — is the person stationary, or walking toward, away, across;
* 3.2.1 Object-Level Change Detection — what changed on a surface between the previous time
  it was seen and now (a prop appeared, is gone, was moved, or nothing).

The L1 items are answered from the last second before the query (the actor on screen in every
frame of it, :mod:`.motion`); 3.2.1 compares the surface's previous and latest visits, every prop
on it seen in both.  The class is drawn first and the latest query frame holding it is taken,
and every class's option is shown in every item (motion: four of five), so the answer is
uniform over classes and no option's wording marks it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from .balance import draw_class
from .common import intent, name
from .draft import Draft
from .motion import (
    DIRECTIONS,
    MOVERS,
    MOVING_MPS,
    SPEED_RATIO,
    Change,
    Motion,
    actor_ref,
    all_changes,
    seen_throughout,
    speed,
    window_start,
)
from .motion import motions as find_motions
from .naming import category_text, plural
from .ovos import ovos, ovos_draft
from .prefix import Prefix
from .registry import Episode

T = TypeVar("T")

STEP_S = 0.3  # how far apart the frames are that the class-first search looks back over
LOOKBACK_S = 90.0

DIRECTION_TEXT = {
    "toward": "Toward me",
    "away": "Away from me",
    "left": "To my left",
    "right": "To my right",
    "stationary": "It is not moving",
}
STATE_TEXT = {
    "stationary": "Standing still",
    "toward": "Walking toward me",
    "away": "Walking away from me",
    "across": "Walking across my view",
}
SPEED_CLASSES = ("person", "other", "same")  # who is clearly faster, or neither
SAME_TEXT = "About the same"
SAME_RATIO = 1.15  # both moving, the faster within this factor of the slower: "about the same"
CHANGE_TEXT = {
    "added": "One or more {cats} have appeared on it",
    "removed": "One or more {cats} have disappeared from it",
    "moved": "A {cat} on it has been moved",
    "unchanged": "Nothing on it has changed",
}


def ovos_dynamic(key: str, code: str, **kw):
    return ovos(key, code, dynamic=True, **kw)


def latest(
    ep: Episode, k: int, find: Callable[[int], T | None], *, floor_s: float = 2.0
) -> tuple[Prefix, T] | None:
    """The latest query frame at or before ``k`` (every ``STEP_S``) where ``find`` finds
    something, with its prefix."""
    p = ep.prefix(k)
    if not p.dynamic:
        return None
    step = max(1, p.frames_back(STEP_S))
    lo = max(p.frames_back(floor_s), k - p.frames_back(LOOKBACK_S))
    for kk in range(k, lo - 1, -step):
        got = find(kk)
        if got is not None:
            return ep.prefix(kk), got
    return None


def moving(ep: Episode, k: int) -> list[Motion]:
    return ep.derived("motions", k, find_motions)


def changes_at(ep: Episode, k: int) -> list[Change]:
    """Every surface's per-category changes between its previous visit and its latest."""
    return ep.derived("changes", k, all_changes)


def _pick(rng: random.Random, ms: list[Motion], ok: Callable[[Motion], bool]) -> Motion | None:
    cands = [m for m in ms if ok(m)]
    return rng.choice(cands) if cands else None


def _mover_question(
    ep: Episode,
    k: int,
    rng: random.Random,
    key: str,
    ok: Callable[[Motion], bool],
    question: str,
    texts: dict[str, str],
    want: str,
    **kw,
) -> list[Draft]:
    """A question about the latest mover ``ok`` accepts (its class ``want``), asked over the
    stretch it has moved so; ``question`` names it as ``{who}``."""
    got = latest(ep, k, lambda kk: _pick(rng, moving(ep, kk), ok))
    if got is None:
        return []
    p, m = got
    return [
        ovos_draft(
            p,
            key,
            question.format(who=actor_ref(p, m.actor_id)),
            texts[want],
            list(texts.values()),
            p.spans(range(m.start, p.k + 1)),
            intent(key, window_s=p.t(p.k) - p.t(m.start)),
            answer_class=want,
            **kw,
        )
    ]


@ovos_dynamic("motion_separation", "1.3.3", balanced=True, min_history_s=2.0)
def motion_separation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Which way a named mover is going over the last second, the camera holding still."""
    want = draw_class(rng, DIRECTIONS)
    question = "Which way is the {who} moving right now?"
    return _mover_question(
        ep, k, rng, "motion_separation", lambda m: m.cls == want, question, DIRECTION_TEXT, want,
        classes=DIRECTIONS, n_options=4,
    )  # fmt: skip


def _state(m: Motion) -> str:
    return "across" if m.cls in ("left", "right") else m.cls


def _is_person(m: Motion, want: str) -> bool:
    return m.kind == "person" and _state(m) == want


@ovos_dynamic("motion_state", "1.3.5", balanced=True, min_history_s=2.0)
def motion_state(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Whether the person stands still or walks, and which way relative to the camera."""
    want = draw_class(rng, STATE_TEXT)
    question = "Is the {who} currently stationary or walking?"
    return _mover_question(
        ep, k, rng, "motion_state", lambda m: _is_person(m, want), question, STATE_TEXT, want,
        classes=tuple(STATE_TEXT),
    )  # fmt: skip


def speed_pairs(p: Prefix) -> list[tuple[int, int, float, float, int]]:
    """(actor a, actor b, a's speed, b's speed, window start) for each pair of named movers
    seen throughout the last second."""
    j = window_start(p)
    if j is None or not p.dynamic:
        return []
    seen = [
        aid
        for aid in sorted(p.dynamic_seen(p.now))
        if p.actor(aid).kind in MOVERS
        and actor_ref(p, aid) is not None
        and seen_throughout(p, aid, j, p.k)
    ]
    return [
        (a, b, speed(p, j, a), speed(p, j, b), j) for i, a in enumerate(seen) for b in seen[i + 1 :]
    ]


def speed_class(sa: float, sb: float) -> str | None:
    """ "a" or "b" (clearly faster), "same" (both moving, within SAME_RATIO), else None."""
    if min(sa, sb) >= MOVING_MPS and max(sa, sb) <= SAME_RATIO * min(sa, sb):
        return "same"
    if sa >= MOVING_MPS and sa >= SPEED_RATIO * sb:
        return "a"
    if sb >= MOVING_MPS and sb >= SPEED_RATIO * sa:
        return "b"
    return None


@ovos_dynamic("relative_speed", "1.3.4", balanced=True, min_history_s=2.0)
def relative_speed(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Which moved faster over the last second, the person or another mover in view, or about
    the same.

    The class (the person faster, the other faster, about the same) is drawn first, so the
    person's name is the answer a third of the time, and the names' order in the question is
    random.  An earlier form compared an actor with the camera: the camera holds still while
    people cross, so the actor's name gave the answer away (qc blind: 26 points over chance).
    """
    want = draw_class(rng, SPEED_CLASSES)

    def find(kk: int):
        cands = []
        p = ep.prefix(kk)
        for a, b, sa, sb, j in ep.derived("speed_pairs", kk, speed_pairs):
            kinds = (p.actor(a).kind, p.actor(b).kind)
            if kinds.count("person") != 1:
                continue
            if kinds[1] == "person":
                a, b, sa, sb = b, a, sb, sa
            got = {"a": "person", "b": "other", "same": "same", None: None}[speed_class(sa, sb)]
            if got == want:
                cands.append((a, b, j))
        return rng.choice(cands) if cands else None

    got = latest(ep, k, find)
    if got is None:
        return []
    p, (person, other, j) = got
    np_, no = actor_ref(p, person), actor_ref(p, other)
    op, oo = f"The {np_}", f"The {no}"
    answer = {"person": op, "other": oo, "same": SAME_TEXT}[want]
    n1, n2 = (np_, no) if rng.random() < 0.5 else (no, np_)
    choices = [op, oo, SAME_TEXT]
    rng.shuffle(choices)
    return [
        ovos_draft(
            p,
            "relative_speed",
            f"Over the last second, which was moving faster: the {n1} or the {n2}?",
            answer,
            choices,
            p.spans(range(j, p.k + 1)),
            intent("relative_speed", window_s=p.t(p.k) - p.t(j)),
            answer_class=want,
            classes=SPEED_CLASSES,
        )
    ]


def _change(ep: Episode, kk: int, want: str, rng: random.Random) -> Change | None:
    cands = [c for c in changes_at(ep, kk) if c.cls == want and c.last.end >= kk - 1]
    return rng.choice(cands) if cands else None


@ovos_dynamic("change_detection", "3.2.1", balanced=True, min_history_s=5.0)
def change_detection(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """What changed on a surface between its previous visit and the one in view now."""
    want = draw_class(rng, CHANGE_TEXT)
    got = latest(ep, k, lambda kk: _change(ep, kk, want, rng))
    if got is None:
        return []
    p, c = got
    cat, cats = category_text(c.category), plural(c.category)
    choices = [t.format(cat=cat, cats=cats) for t in CHANGE_TEXT.values()]
    return [
        ovos_draft(
            p,
            "change_detection",
            f"Compared with the previous time you saw the {name(p, c.surface)}, what has "
            f"changed on it?",
            CHANGE_TEXT[c.cls].format(cat=cat, cats=cats),
            choices,
            p.spans(range(c.first.start, c.first.end + 1))
            + p.spans(range(c.last.start, c.last.end + 1)),
            intent("change_detection", [c.surface], category=c.category),
            answer_class=c.cls,
            classes=tuple(CHANGE_TEXT),
        )
    ]
