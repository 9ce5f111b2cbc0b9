"""What one query's rules may look at, and how a rule's conclusion picks an option.

Every rule of the reasoner is a function of one :class:`RuleContext` — the memory as it stood
at t_q, the question and its options, the perception's vocabulary — returning an
:data:`Answer`: an option's letter, a number, or ``None`` when the memory cannot say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from streamspatial.agents.scene_graph import (
    Mention,
    ObjectNode,
    SceneGraphMemory,
    find_mentions,
    resolve,
)

Answer = str | float | None

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

# words in option texts → the egocentric sector they name
_SECTOR_WORDS = (
    ("behind", "behind"),
    ("back", "behind"),
    ("left", "left"),
    ("right", "right"),
    ("ahead", "ahead"),
    ("front", "ahead"),
    ("forward", "ahead"),
)


class RuleContext:
    """What one query's rules may look at: memory, question, options, vocabulary."""

    def __init__(
        self,
        memory: SceneGraphMemory,
        item: Any,
        labels: set[str],
        attributes: Sequence[str],
        prior: Mapping[str, str] | None = None,
    ):
        self.memory = memory
        self.item = item
        self.labels = labels
        self.attributes = list(attributes)
        self.params = dict((item.intent or {}).get("params") or {}) if item.intent else {}
        # a multi-turn question's "{prev_answer}" reads as the reasoner's own earlier answer
        prev = (prior or {}).get(item.depends_on or "", "") if item.depends_on else ""
        self.question = item.question.replace("{prev_answer}", prev)
        self.previous = find_mentions(prev, labels, attributes) if prev else []
        self.mentions = find_mentions(self.question, labels, attributes)

    def target_labels(self) -> set[str] | None:
        """What a counting question counts: a group's labels (the intent lists them: "pieces
        of furniture" spans sofa, bed, …), else the first object the question names."""
        cats = self.params.get("categories")
        if isinstance(cats, list) and cats:
            return {str(c) for c in cats}
        return {self.mentions[0].label} if self.mentions else None

    @property
    def options(self) -> list[tuple[str, str]]:
        return [(o.letter, o.text or "") for o in self.item.options]

    def node(self, m: Mention) -> ObjectNode | None:
        return resolve(self.memory, m)

    def option_nodes(self) -> list[tuple[str, ObjectNode | None]]:
        out = []
        for letter, text in self.options:
            ms = find_mentions(text, self.labels, self.attributes)
            out.append((letter, self.node(ms[0]) if ms else None))
        return out

    def seconds(self, default: float) -> float:
        v = self.params.get("seconds", self.params.get("window_s"))
        if v is not None:
            return float(v)
        m = re.search(r"(\d+(?:\.\d+)?)\s*seconds?", self.item.question.lower())
        return float(m.group(1)) if m else default


def nearest_number_option(ctx: RuleContext, value: float) -> str | None:
    best, best_d = None, math.inf
    for letter, text in ctx.options:
        m = _NUMBER.search(text)
        if m and abs(float(m.group()) - value) < best_d:
            best, best_d = letter, abs(float(m.group()) - value)
    return best


def sector_option(ctx: RuleContext, sector: str) -> str | None:
    for letter, text in ctx.options:
        low = text.lower()
        for word, sec in _SECTOR_WORDS:
            if re.search(rf"\b{word}\b", low):
                if sec == sector:
                    return letter
                break
    return None


def text_option(ctx: RuleContext, wanted: str) -> str | None:
    low = wanted.lower()
    for letter, text in ctx.options:
        if text.lower().strip() == low:
            return letter
    for letter, text in ctx.options:
        if low in text.lower():
            return letter
    return None


def best_option(ctx: RuleContext, key: Callable[[ObjectNode], float]) -> str | None:
    scored = [(key(n), letter) for letter, n in ctx.option_nodes() if n is not None]
    return min(scored)[1] if scored else None


def scenes_in(ctx: RuleContext, text: str) -> list[str]:
    """Scene tags (room types) named in ``text``, in the order they appear."""
    low = text.lower()
    found: list[tuple[int, str]] = []
    for tag in sorted(ctx.memory.visits, key=len, reverse=True):
        for m in re.finditer(rf"(?<![a-z]){re.escape(tag.lower())}(?![a-z])", low):
            if not any(s <= m.start() < s + len(t) for s, t in found):
                found.append((m.start(), tag))
    return [t for _, t in sorted(found)]


def scene_option(ctx: RuleContext, key: Callable[[str], float]) -> str | None:
    scored = []
    for letter, text in ctx.options:
        tags = scenes_in(ctx, text)
        if tags:
            scored.append((key(tags[0]), letter))
    return min(scored)[1] if scored else None
