"""Small helpers shared by the families: picking nameable objects, numeric option ladders."""

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


def count_options(
    correct: int, n: int, rng: random.Random, *, lowest: int = 0, clamp: bool = True
) -> list[int] | None:
    """``n`` consecutive integers containing ``correct`` at a uniform rank.

    A window that would start below ``lowest`` is clamped up — or, with ``clamp=False``,
    refused (None).  Clamping puts small answers at low ranks more often than chance, which a
    blind model learns ("never the third of four"); refusing keeps, for every window, each of
    its values equally likely to be the answer when the answers themselves are balanced.
    """
    rank = rng.randrange(n)
    start = correct - rank
    if start < lowest:
        if not clamp:
            return None
        start = lowest
    return list(range(start, start + n))


def clear_margin(values: list[float], *, absolute: float, relative: float) -> bool:
    """True when the smallest value beats the runner-up by a margin nobody could misjudge."""
    if len(values) < 2:
        return False
    a, b = sorted(values)[:2]
    return b - a >= max(absolute, relative * abs(a))
