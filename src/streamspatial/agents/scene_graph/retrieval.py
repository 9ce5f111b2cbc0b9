"""From a question to the part of the memory it needs (UCS-Bench §4.3).

The question's intent — its targets (object mentions with their attribute words) and its
reasoning primitive — picks a top-k subgraph: mentioned objects first, then their neighbours,
then the most recently seen.  Targets come from the question's own words, never from instance
ids: a deployable system has only the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from streamspatial.bench.tasks import primitive_of

from .memory import SceneGraphMemory
from .nodes import ObjectNode


@dataclass(frozen=True)
class Mention:
    label: str
    attributes: tuple[str, ...] = ()
    start: int = 0

    @property
    def name(self) -> str:
        return " ".join((*self.attributes, self.label))


@dataclass(frozen=True)
class QueryIntent:
    """The parsed question (UCS-Bench §4.3): targets, attributes, reasoning primitive."""

    primitive: str  # count | distance | direction | order | locate | attribute | ego | generic
    targets: tuple[Mention, ...] = ()
    task: str | None = None


_KEYWORDS = (
    ("count", r"\bhow many\b|\bnumber of\b|\bcount\b"),
    ("order", r"\bfirst\b|\border\b|\bchronolog|\bbefore\b|\bafter\b|\bearlier\b"),
    ("direction", r"\bleft\b|\bright\b|\bbehind\b|\bdirection\b|\bfacing\b|\bahead\b"),
    ("distance", r"\bhow far\b|\bdistance\b|\bclosest\b|\bnearest\b|\bcloser\b|\bfarther\b"),
    ("locate", r"\bwhere\b|\bwhich room\b|\bin which\b"),
)


def plural_forms(label: str) -> tuple[str, ...]:
    """A label and its English plural ("bookshelf" → "bookshelves"), for question matching."""
    head, _, last = label.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        pl = last + "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        pl = last[:-1] + "ies"
    elif last.endswith("f"):
        pl = last[:-1] + "ves"
    else:
        pl = last + "s"
    return (label, f"{head} {pl}".strip())


def find_mentions(
    text: str, labels: Iterable[str], attributes: Iterable[str] = ()
) -> list[Mention]:
    """Object mentions in reading order: the longest known label (singular or plural), with a
    known attribute word ("red") right before it."""
    low = text.lower()
    attrs = sorted({a.lower() for a in attributes}, key=len, reverse=True)
    spans: list[tuple[int, int, str]] = []
    for label in sorted({x.lower() for x in labels}, key=len, reverse=True):
        for form in sorted(set(plural_forms(label)), key=len, reverse=True):
            for m in re.finditer(rf"(?<![a-z]){re.escape(form)}(?![a-z])", low):
                s, e = m.span()
                if any(s < e2 and s2 < e for s2, e2, _ in spans):
                    continue
                spans.append((s, e, label))
    out = []
    for s, _e, label in sorted(spans):
        before = low[:s].rstrip()
        found: tuple[str, ...] = ()
        for a in attrs:
            if before.endswith(a) and (len(before) == len(a) or not before[-len(a) - 1].isalpha()):
                found = (a,)
                break
        out.append(Mention(label, found, s))
    return out


def parse_intent(item: Any, labels: Iterable[str], attributes: Iterable[str] = ()) -> QueryIntent:
    """The structured intent of a generated item, else keywords of the question text.

    Targets always come from the question's words (what a user could say), never from
    instance ids: a deployable system has only the question.
    """
    mentions = tuple(find_mentions(item.question, labels, attributes))
    task = None
    if item.intent and isinstance(item.intent, Mapping):
        task = str(item.intent.get("task") or "") or None
    primitive = primitive_of(task)
    if primitive is not None:
        return QueryIntent(primitive, mentions, task)
    low = item.question.lower()
    for primitive, pattern in _KEYWORDS:
        if re.search(pattern, low):
            return QueryIntent(primitive, mentions, task)
    return QueryIntent("generic", mentions, task)


def resolve(
    memory: SceneGraphMemory, mention: Mention, *, confirmed: bool = True
) -> ObjectNode | None:
    """The node a mention refers to: same label (and attribute when given), most observed."""
    pool = [n for n in memory.nodes(confirmed=confirmed) if n.label == mention.label]
    if mention.attributes:
        exact = [n for n in pool if set(mention.attributes) <= set(n.attributes)]
        pool = (
            exact or [n for n in pool if any(a in n.attr_votes for a in mention.attributes)] or pool
        )
    if not pool:
        return None
    return max(pool, key=lambda n: (n.count, -n.node_id))


def retrieve(memory: SceneGraphMemory, intent: QueryIntent, k: int = 12) -> list[ObjectNode]:
    """Top-k nodes for the intent: mentioned ones first (label, then attribute match), then
    their neighbours, then the most recently seen — all from before the memory's time."""
    scored: dict[int, float] = {}
    nodes = memory.nodes()
    for m in intent.targets:
        for n in nodes:
            s = 0.0
            if n.label == m.label:
                s += 10.0
                if m.attributes and set(m.attributes) <= set(n.attributes):
                    s += 5.0
            if s:
                scored[n.node_id] = max(scored.get(n.node_id, 0.0), s + min(n.count, 50) / 100)
    for nid in list(scored):
        for o, d in memory.neighbours(memory.objects[nid], nodes):
            scored[o.node_id] = max(scored.get(o.node_id, 0.0), 2.0 - min(d, 2.0) / 2)
    horizon = max(memory.time, 1e-6)
    for n in nodes:
        scored.setdefault(n.node_id, 0.5 * n.last_seen / horizon)
    ranked = sorted(scored, key=lambda nid: (-scored[nid], nid))
    return [memory.objects[nid] for nid in ranked[:k]]
