"""Counting distractors (UCS-Bench F.4.2, "Count questions").

The true count is replaced by wrong counts chosen so that the true value is the *second
largest or second smallest* option, never the median: a model that always picks the middle
option, or the extreme ones, gains nothing.  Wrong counts sit near the truth (off-by-one and
small magnitude errors, the mistakes people make), are distinct and never negative.

With non-negative counts the rule cannot hold for a true count of 0 (nothing can lie below
it, and nothing but it can be the smallest), so 0 is refused rather than silently given options
that break the rule.  Three options cannot follow it either (second smallest is the median),
so at least four are needed; the seed uses five (four distractors).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import LETTERS

MIN_OPTIONS = 4


def counting_distractors(
    correct: int, n_options: int = 5, *, seed: int | None = 0
) -> tuple[list[int], str]:
    """Options in ascending order and the letter of ``correct`` among them."""
    if n_options < MIN_OPTIONS or n_options > len(LETTERS):
        raise StreamspatialError(
            f"--options {n_options}: expected {MIN_OPTIONS}–{len(LETTERS)} options (with three, "
            "the second smallest is the median)"
        )
    if correct < 1:
        raise StreamspatialError(
            f"count {correct}: a count below 1 cannot be second smallest or second largest "
            "among non-negative counts; write these options by hand"
        )
    rng = random.Random(seed)
    # Second largest needs n_options - 2 distinct counts below the truth.
    ranks = ["second smallest"] + (["second largest"] if correct >= n_options - 2 else [])
    rank = rng.choice(ranks)
    # Wrong counts stay within a spread that grows with the count (magnitude errors).
    spread = max(n_options, round(correct * 0.5))
    below_pool = list(range(max(0, correct - spread), correct))
    above_pool = list(range(correct + 1, correct + spread + 1))
    if rank == "second smallest":
        below = rng.sample(below_pool, 1)
        above = rng.sample(above_pool, n_options - 2)
    else:
        below = rng.sample(below_pool, n_options - 2)
        above = rng.sample(above_pool, 1)
    options = sorted([*below, correct, *above])
    return options, LETTERS[options.index(correct)]


def check_count_options(values: Sequence[float], correct: float) -> str | None:
    """Why numeric options break the rule (``None`` when they follow it)."""
    ordered = sorted(values)
    if len(set(ordered)) != len(ordered):
        return "duplicate counts"
    if correct not in ordered:
        return "the correct count is not among the options"
    n = len(ordered)
    position = ordered.index(correct)
    if n % 2 == 1 and position == n // 2:
        return "the correct count is the median option"
    if position in (1, n - 2):
        return None
    if position in (0, n - 1):
        return "the correct count is the " + ("smallest" if position == 0 else "largest")
    return "the correct count is neither second smallest nor second largest"


__all__ = ["MIN_OPTIONS", "check_count_options", "counting_distractors"]
