"""The question families and how each is labelled in the benchmark file it is exported to.

A family generator receives an :class:`Episode` (which hands out causal :class:`Prefix` views,
never the frames themselves), the frame index ``k`` of its *last* query point and a seeded RNG,
and returns zero or more :class:`Draft` s.  Multi-query families and multi-turn chains look at
several prefixes, all ending at or before ``k``; nothing a generator can reach lies after it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from streamspatial.core.schema import TaskLabels
from streamspatial.scene.types import EpisodeMeta

from .draft import Draft
from .export import WRITERS
from .prefix import Prefix

# The benchmark a family's items are exported to: a format the simulator writes
# (:data:`.export.WRITERS`, from the benchmarks' homes), checked when the family registers.
Format = str


class Episode:
    """Hands out cached causal prefixes of one episode; the only door to its frames."""

    def __init__(self, meta: EpisodeMeta, *, min_pixels: int | None = None):
        self._meta = meta
        self._min_pixels = min_pixels
        self._cache: dict[int, Prefix] = {}
        # derived results of one prefix (what moved, what changed by frame k), shared by the
        # tries of a family and by families: each is a function of ``prefix(k)`` alone
        self.memo: dict[tuple[str, int], Any] = {}
        self.fps = meta.fps
        self.house = meta.house

    def derived(self, name: str, k: int, fn: Callable[[Prefix], Any]) -> Any:
        """``fn(prefix(k))``, computed once per episode (``fn`` must read only the prefix)."""
        key = (name, k)
        if key not in self.memo:
            self.memo[key] = fn(self.prefix(k))
        return self.memo[key]

    def prefix(self, k: int) -> Prefix:
        p = self._cache.get(k)
        if p is None:
            p = self._cache[k] = Prefix(self._meta, k, min_pixels=self._min_pixels)
        return p


Generator = Callable[[Episode, int, random.Random], list[Draft]]


@dataclass(frozen=True)
class Family:
    key: str
    format: Format
    labels: TaskLabels
    generate: Generator
    answer: Literal["choice", "number"]
    min_history_s: float = 3.0  # earliest query time worth asking at
    balanced: bool = False  # answers in fixed classes: more candidate frames are tried
    dynamic: bool = False  # asks about events (scene.schedule): needs a dynamic episode
    # Its answers move with the clock (a count so far, a room seen before): admitted only
    # while every share of the walk keeps the family's answer distribution (balance.TIME_BINS)
    timed: bool = False


FAMILIES: dict[str, Family] = {}


def family(
    key: str,
    format: Format,
    labels: TaskLabels,
    answer: Literal["choice", "number"],
    *,
    min_history_s: float = 3.0,
    balanced: bool = False,
    dynamic: bool = False,
    timed: bool = False,
) -> Callable[[Generator], Generator]:
    """Register a generator under ``key`` (decorator)."""

    def deco(fn: Generator) -> Generator:
        if key in FAMILIES:
            raise ValueError(f"question family {key!r} registered twice")
        if format not in WRITERS:
            raise ValueError(
                f"question family {key!r}: format {format!r} is not one the simulator writes "
                f"(expected one of {', '.join(WRITERS)})"
            )
        FAMILIES[key] = Family(
            key, format, labels, fn, answer, min_history_s, balanced, dynamic, timed
        )
        return fn

    return deco
