"""One scorer's verdict on one response, and the shape of a scoring rule.

A module of its own so that the rules of every benchmark (:mod:`.scorers`,
:mod:`.stream_rules`) share the type without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from streamspatial.core.schema import Item, QueryPoint


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

__all__ = ["Rule", "Scored"]
