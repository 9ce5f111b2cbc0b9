"""One scorer's verdict on one response, and the shape of a scoring rule.

Below every benchmark's rules (``bench/<name>/score.py`` and ``scoring``'s), so they share the
type, and the two verdicts most rules end in, without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.metrics import mean_relative_accuracy


@dataclass(frozen=True)
class Scored:
    """One scorer's verdict on one response.

    ``score`` None leaves the point out of the metric (VCBench's invalid answers); ``rule``
    names the rule set, so tables can apply that rule's averaging.
    """

    extracted: str | float | None
    score: float | None
    valid: bool
    rule: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


Rule = Callable[[Item, QueryPoint, str], Scored]


def letter_verdict(letter: str | None, answer: Any, rule: str) -> Scored:
    """A letter read (None: nothing readable, wrong) against the answer."""
    if letter is None:
        return Scored(None, 0.0, False, rule)
    return Scored(letter, 1.0 if letter == answer else 0.0, True, rule)


def number_verdict(value: float | None, answer: float, rule: str, metric: str) -> Scored:
    """A number read (None: wrong) against the answer, exactly or by MRA."""
    if value is None:
        return Scored(None, 0.0, False, rule)
    if metric == "exact":
        return Scored(value, 1.0 if value == answer else 0.0, True, rule)
    return Scored(value, mean_relative_accuracy(value, answer), True, rule)


__all__ = ["Rule", "Scored", "letter_verdict", "number_verdict"]
