"""What counting questions count: one category ("chairs") or a group ("pieces of furniture").

Most categories come one to four to a house, so counting one category alone piles the
answers onto 1–3, where a constant guess scores well (a training median of 2 reaches MRA
0.6–0.7).  Groups — every piece of furniture, every small object on a surface — spread the
counts over 0–15 and make the answer depend on what the stream showed, not on the word.

A :class:`Target` says what a question counts: its noun phrase, a test for an object, and
the object categories it covers (in the item's intent, so a reasoner knows which detector
labels a group spans).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from streamspatial.scene.types import House, SceneObject

from .naming import category_text, plural


@dataclass(frozen=True)
class Target:
    key: str  # the category, or "group:<name>"
    noun: str  # plural noun phrase: "chairs", "pieces of furniture"
    test: Callable[[SceneObject], bool]
    categories: tuple[str, ...]  # categories of the house it covers (snake_case)

    def params(self) -> dict[str, object]:
        """The intent parameters of a question about this target."""
        if self.key.startswith("group:"):
            return {
                "group": self.key.split(":", 1)[1],
                "categories": [category_text(c) for c in self.categories],
            }
        return {"category": self.key}


GROUPS: dict[str, tuple[str, Callable[[SceneObject], bool]]] = {
    "furniture": ("pieces of furniture", lambda o: o.kind == "furniture"),
    "small": ("small objects (on tables, counters and shelves)", lambda o: o.kind == "small"),
}


def category_target(house: House, category: str) -> Target:
    return Target(category, plural(category), lambda o: o.category == category, (category,))


def group_target(house: House, group: str) -> Target:
    noun, test = GROUPS[group]
    cats = tuple(sorted({o.category for o in house.objects if test(o)}))
    return Target(f"group:{group}", noun, test, cats)


def pick_target(house: House, categories: list[str], rng: random.Random) -> Target | None:
    """A group half the time, else one of ``categories`` (None when both are impossible)."""
    if rng.random() < 0.5 or not categories:
        return group_target(house, rng.choice(sorted(GROUPS)))
    return category_target(house, rng.choice(categories))


__all__ = ["GROUPS", "Target", "category_target", "group_target", "pick_target"]
