"""Small helpers shared by the families: picking nameable objects, numeric option ladders,
count options."""

from __future__ import annotations

import random
from collections.abc import Iterable

from .naming import object_ref
from .prefix import Prefix


def nameable(p: Prefix, ids: Iterable[int]) -> list[int]:
    """The ids among ``ids`` a question can name unambiguously, in the given order."""
    return [i for i in ids if object_ref(p.house, p.obj(i)) is not None]


def name(p: Prefix, instance_id: int) -> str:
    ref = object_ref(p.house, p.obj(instance_id))
    if ref is None:
        raise ValueError(f"object {instance_id} has no unambiguous name")
    return ref


def intent(task: str, instances: Iterable[int] = (), **params: object) -> dict[str, object]:
    """The structured form of a question: what is asked, about which instances, with what."""
    return {"task": task, "instances": [int(i) for i in instances], "params": dict(params)}


def ladder(correct: float, n: int, rng: random.Random, *, ratio: float = 1.6) -> list[float]:
    """``n`` magnitudes on a geometric ladder with the correct one at a uniform rank.

    Distractors share the answer's unit and scale; because the correct rank is uniform, "pick
    the middle option" or "pick the smallest" gains a blind model nothing.
    """
    rank = rng.randrange(n)
    return [correct * ratio ** (j - rank) for j in range(n)]


def count_block(correct: int, n: int, *, lowest: int = 1) -> list[int]:
    """The ``n`` consecutive counts that hold ``correct`` in a fixed tiling of the counts from
    ``lowest`` up (``lowest`` … ``lowest + n - 1``, then the next ``n``, …): distinct options,
    none below ``lowest``, and the answer's rank among them set by the count alone.

    A family asking with these options takes them as its answer classes (``Draft.classes``),
    so its balancer keeps each of a block's counts, and so each rank, within ``CLASS_SLACK``
    of the others (in each share of the walk for a timed family): every option value is then
    right about a quarter of the times it is shown, whenever it is asked.  A window around the
    answer at a drawn rank instead, refused where it would start below ``lowest``, put a
    count of 1 at the lowest rank always and a 2 at one of the lowest two, and counts seen so
    far are small early in a walk: the clock read the rank (OVO-S Transient Count Memory,
    time-only 0.38 against 0.369 allowed on six one-minute walks of seed 47, 0.48 against 0.42
    on three 3-minute walks of seed 53).
    """
    if correct < lowest:
        raise ValueError(f"count {correct} is below the lowest option {lowest}")
    start = lowest + (correct - lowest) // n * n
    return list(range(start, start + n))


def clear_margin(values: list[float], *, absolute: float, relative: float) -> bool:
    """True when the smallest value beats the runner-up by a margin nobody could misjudge."""
    if len(values) < 2:
        return False
    a, b = sorted(values)[:2]
    return b - a >= max(absolute, relative * abs(a))
