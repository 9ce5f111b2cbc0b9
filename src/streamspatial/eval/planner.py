"""Plan a run: one stream per video, query points in time order, dependencies first.

Why: decoding dominates the cost of a streaming evaluation (one sequential pass serving every
query of a video is an order of magnitude faster than seeking per query), and causality is
easiest to guarantee when a video's queries are answered in the order its stream reaches them.
S3-Bench multi-turn chains (``item.depends_on``) put the *model's own* earlier answer into a
later prompt, so the earlier item must be answered first: same video, not later in time.  A
chain that cannot be honoured is a broken benchmark file, reported as one clear error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item, QueryPoint


@dataclass(frozen=True)
class PlannedQuery:
    item: Item
    query: QueryPoint

    @property
    def key(self) -> tuple[str, int]:
        return (self.item.id, self.query.index)

    @property
    def time(self) -> float:
        return self.query.time


@dataclass
class VideoPlan:
    """Every query point of one video, sorted so each dependency comes before its dependant."""

    video: str
    queries: list[PlannedQuery] = field(default_factory=list)

    @property
    def items(self) -> list[Item]:
        seen: dict[str, Item] = {}
        for q in self.queries:
            seen.setdefault(q.item.id, q.item)
        return list(seen.values())


def plan(items: Iterable[Item], *, source: str = "benchmark") -> list[VideoPlan]:
    """Group query points by video, order them in time, and validate dependency chains.

    The answer a dependant receives is its dependency's answer at the dependency's *last*
    query point, which must not be later than the dependant's first query point.
    """
    items = list(items)
    by_id: dict[str, Item] = {}
    problems: list[Problem] = []
    for it in items:
        if it.id in by_id:
            problems.append(
                Problem(file=source, item_id=it.id, field="id", expected="expected unique item ids")
            )
        by_id[it.id] = it
    order: dict[str, int] = {it.id: i for i, it in enumerate(items)}

    for it in items:
        dep_id = it.depends_on
        if dep_id is None:
            continue
        dep = by_id.get(dep_id)
        if dep is None:
            problems.append(
                Problem(
                    file=source,
                    item_id=it.id,
                    field="depends_on",
                    expected=f"expected the id of an item in the run, got {dep_id!r}",
                )
            )
            continue
        if dep.video != it.video:
            problems.append(
                Problem(
                    file=source,
                    item_id=it.id,
                    field="depends_on",
                    expected=f"expected an item on the same video "
                    f"{it.video!r}, but {dep_id!r} is on {dep.video!r}",
                )
            )
            continue
        if dep.queries[-1].time > it.queries[0].time:
            problems.append(
                Problem(
                    file=source,
                    item_id=it.id,
                    field="depends_on",
                    expected=f"expected {dep_id!r} to be asked no later "
                    f"(t={dep.queries[-1].time}) than this item "
                    f"(t={it.queries[0].time})",
                )
            )
    # Chain depth, detecting cycles (a cycle cannot be answered in any order).
    depth: dict[str, int] = {}
    for it in items:
        chain: list[str] = []
        cur: Item | None = it
        while cur is not None and cur.id not in depth:
            if cur.id in chain:
                problems.append(
                    Problem(
                        file=source,
                        item_id=it.id,
                        field="depends_on",
                        expected="expected no cycle in dependency chains",
                    )
                )
                break
            chain.append(cur.id)
            cur = by_id.get(cur.depends_on) if cur.depends_on else None
        base = depth.get(cur.id, -1) if cur is not None else -1
        for offset, cid in enumerate(reversed(chain)):
            depth.setdefault(cid, base + 1 + offset)
    if problems:
        raise InputError(problems)

    def key(pq: PlannedQuery) -> tuple[float, int, int, int]:
        return (pq.time, depth.get(pq.item.id, 0), order[pq.item.id], pq.query.index)

    plans: dict[str, VideoPlan] = {}
    for it in items:
        vp = plans.setdefault(it.video, VideoPlan(video=it.video))
        vp.queries.extend(PlannedQuery(it, q) for q in it.queries)
    for vp in plans.values():
        vp.queries.sort(key=key)
    return list(plans.values())
