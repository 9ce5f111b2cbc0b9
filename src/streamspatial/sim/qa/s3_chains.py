"""S3-Bench multi-turn chains (App. 3.2): a later turn about the earlier turn's answer.

Each chain is two items.  The second one's question says "that object": its prompt carries the
*model's* answer to the first (``Item.depends_on``), while its ground truth is computed for the
true first-turn target.  Turn 2 is asked 3–10 s after turn 1, from the later prefix.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable

from .common import intent, name, nameable
from .draft import Draft, DraftQuery
from .prefix import Prefix, object_distance
from .registry import Episode, family
from .s3 import TEMP, camera_motion_target, identification_closest, labels, sequence_identification

QUADRANTS = ("Front-Left", "Front-Right", "Back-Left", "Back-Right")


def quadrant(bearing_rad: float) -> tuple[str, float]:
    """Screen quadrant of a bearing (+ = left) and its distance to the nearest boundary (deg)."""
    b = math.degrees(bearing_rad)
    front = abs(b) < 90
    left = b > 0
    label = ("Front-" if front else "Back-") + ("Left" if left else "Right")
    margin = min(abs(b), abs(abs(b) - 90), 180 - abs(b))
    return label, margin


def _head(ep: Episode, k: int, rng: random.Random, fn, key: str):
    """Turn 1 at a frame 3–10 s before ``k``."""
    for _ in range(3):
        k1 = k - ep.prefix(k).frames_back(rng.uniform(3.0, 10.0))
        if k1 < ep.prefix(k).frames_back(3.0):
            return None
        got = fn(ep.prefix(k1), rng)
        if got is not None:
            draft, target = got
            draft.key = key
            draft.intent["params"]["chain"] = key.split(":")[0]
            return draft, target
    return None


Turn2 = Callable[[Prefix, Draft, int, random.Random], Draft | None]


def chain(task: str, fmt: str, answer: str, first: Callable, name: str):
    """Register a chain whose turn 1 is ``first`` (an S3 generator returning (draft, target))
    and whose turn 2 the decorated function drafts at ``k`` from (prefix, turn 1, its target,
    rng), or declines with None."""

    def deco(fn: Turn2):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            got = _head(ep, k, rng, first, f"{name}:{k}")
            if got is None:
                return []
            head, target = got
            tail = fn(ep.prefix(k), head, target, rng)
            return [] if tail is None else [head, tail]

        register = family(f"s3.{task}", "s3", labels(TEMP, task, fmt), answer, min_history_s=6.0)
        return register(generate)

    return deco


def _tail(p: Prefix, family_key: str, question: str, answer, evidence, it, head: Draft, **kw):
    return Draft(
        family=family_key,
        question=question,
        queries=[DraftQuery(p.time, answer, tuple(evidence))],
        intent=it,
        depends_on=head.key,
        **kw,
    )


@chain("tem_horizontal_direction", "MC", "choice", sequence_identification, "chronological")
def chain_chronological(p: Prefix, head: Draft, target: int, rng: random.Random) -> Draft | None:
    """Q1 which appeared first → Q2 in which quadrant around the camera is it now."""
    label, margin = quadrant(p.bearing(target))
    if margin < 10:
        return None
    return _tail(
        p,
        "s3.tem_horizontal_direction",
        "You said the object that appeared first was: {prev_answer}. Is that object located "
        "to the Front-Left, Front-Right, Back-Left or Back-Right of the camera now?",
        label,
        p.evidence([target]),
        intent("tem_horizontal_direction", [target], refers_to="previous answer"),
        head,
        choices=list(QUADRANTS),
        answer_class=label,
        classes=QUADRANTS,
    )


@chain("tem_spatial_distance_ref", "Num", "number", identification_closest, "superlative")
def chain_superlative(p: Prefix, head: Draft, target: int, rng: random.Random) -> Draft | None:
    """Q1 which object is closest to the camera → Q2 its distance to a newly seen reference."""
    k1 = round((head.queries[0].time * p.fps) - 0.5)
    refs = [o for o in nameable(p, p.seen) if o != target]
    newer = [o for o in refs if p.first_seen[o] > k1]
    pool = newer or refs
    if not pool:
        return None
    ref = rng.choice(pool)
    return _tail(
        p,
        "s3.tem_spatial_distance_ref",
        "You said the object closest to the camera was: {prev_answer}. What is the distance "
        f"from that object to the {name(p, ref)}? Answer in meters.",
        round(object_distance(p.obj(target), p.obj(ref)), 2),
        p.evidence([target, ref]),
        intent("tem_spatial_distance_ref", [target, ref], refers_to="previous answer"),
        head,
    )


@chain("tem_cam_obj_distance_ref", "Num", "number", camera_motion_target, "motion")
def chain_motion(p: Prefix, head: Draft, target: int, rng: random.Random) -> Draft | None:
    """Q1 which object did the camera approach → Q2 how far the camera is from it now."""
    return _tail(
        p,
        "s3.tem_cam_obj_distance_ref",
        "You said the camera approached this object the most: {prev_answer}. How far (in "
        "meters) is the camera from it now?",
        round(p.cam_distance(target), 2),
        p.evidence([target]),
        intent("tem_cam_obj_distance_ref", [target], refers_to="previous answer"),
        head,
    )
