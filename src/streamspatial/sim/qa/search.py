"""Class-first sampling: pick the answer class, then find a query frame where it holds.

Sampling query frames uniformly and taking whatever answer they give inherits the trajectory's
class imbalance (a walking camera is "moving forward" most of the time), and a blind model
learns it.  These families first draw the class they want uniformly, then look back from the
proposed frame for the latest frame whose answer has that class.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from .balance import draw_class
from .prefix import Prefix
from .registry import Episode

T = TypeVar("T")


def class_first(
    ep: Episode,
    k: int,
    rng: random.Random,
    classes: Sequence[str],
    classify: Callable[[Prefix, random.Random], tuple[str, T] | None],
    *,
    lookback_s: float = 60.0,
    step_s: float = 0.5,
    floor_s: float = 3.0,
) -> tuple[Prefix, str, T] | None:
    """The latest prefix at or before ``k`` whose ``classify`` result has the wanted class."""
    want = draw_class(rng, classes)
    p = ep.prefix(k)
    step = max(1, p.frames_back(step_s))
    lo = max(p.frames_back(floor_s), k - p.frames_back(lookback_s))
    for kk in range(k, lo - 1, -step):
        q = ep.prefix(kk)
        got = classify(q, random.Random(rng.random()))
        if got is not None and got[0] == want:
            return q, got[0], got[1]
    return None
