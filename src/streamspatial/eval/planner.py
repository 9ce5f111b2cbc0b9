"""Plan a run: one stream per video, query points in time order, dependencies first.

Why: decoding dominates the cost of a streaming evaluation (one sequential pass serving every
query of a video is an order of magnitude faster than seeking per query), and causality is
easiest to guarantee when a video's queries are answered in the order its stream reaches them.
S3-Bench multi-turn chains (``item.depends_on``) put the *model's own* earlier answer into a
later prompt, so the earlier item must be answered first: same video, not later in time.  A
chain that cannot be honoured is a broken benchmark file, reported as one clear error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item, QueryPoint


@dataclass(frozen=True)
class NotApplicable:
    """Items a model cannot answer by design, left out of a run rather than scored as errors.

    The seeded random baseline guesses among lettered options; it has nothing to guess for a
    number (S3-Bench Tables 2–3 print "-" in its numeric columns).  Recording those query
    points as failed calls would inflate the error count and drag its Overall down with
    zeros that measure nothing, so the run plans only the items the model can answer and
    says, in ``run.json`` and the report, what it left out and why.
    """

    reason: str
    items: int
    query_points: int
    tasks: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "reason": self.reason,
            "items": self.items,
            "query_points": self.query_points,
            "tasks": list(self.tasks),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NotApplicable:
        """Back from ``run.json`` (where :meth:`as_dict` put it)."""
        return cls(
            reason=str(data["reason"]),
            items=int(data["items"]),
            query_points=int(data["query_points"]),
            tasks=tuple(data.get("tasks") or ()),
        )

    def sentence(self) -> str:
        return (
            f"{self.reason}; {self.items} item(s) ({self.query_points} query points) not applicable"
        )


def keep_whole_chains(items: Iterable[Item], dropped: Iterable[str] = ()) -> list[Item]:
    """``items`` minus every item whose dependency chain leads to an item not kept.

    A multi-turn dependant needs its dependency's answer in its prompt; when the dependency is
    not in the run (cut by ``--limit``, or not applicable to the model), neither is it.
    """
    kept = list(items)
    ids = {it.id for it in kept} - set(dropped)
    kept = [it for it in kept if it.id in ids]
    changed = True
    while changed:  # a dependant of a dropped dependant must go too
        changed = False
        for it in list(kept):
            if it.depends_on is not None and it.depends_on not in ids:
                kept.remove(it)
                ids.discard(it.id)
                changed = True
    return kept


def applicable_items(
    items: Iterable[Item], answer_types: frozenset[str] | None, *, model: str
) -> tuple[list[Item], NotApplicable | None]:
    """The items whose answer type ``model`` answers, and a note on the ones it cannot.

    ``answer_types`` None means the model answers every type.  Dependants of a left-out item
    go too (their prompt would need its answer); they are counted in the note.
    """
    items = list(items)
    if answer_types is None:
        return items, None
    wrong_type = [it.id for it in items if it.answer_type.value not in answer_types]
    if not wrong_type:
        return items, None
    kept = keep_whole_chains(items, wrong_type)
    kept_ids = {it.id for it in kept}
    left_out = [it for it in items if it.id not in kept_ids]
    only = " and ".join(sorted(answer_types))
    note = NotApplicable(
        reason=f"{model}: {only} items only",
        items=len(left_out),
        query_points=sum(len(it.queries) for it in left_out),
        tasks=tuple(sorted({it.task.task for it in left_out})),
    )
    return kept, note


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
            wrong = f"expected the id of an item in the run, got {dep_id!r}"
        elif dep.video != it.video:
            wrong = (
                f"expected an item on the same video {it.video!r}, but {dep_id!r} is on "
                f"{dep.video!r}"
            )
        elif dep.queries[-1].time > it.queries[0].time:
            wrong = (
                f"expected {dep_id!r} to be asked no later (t={dep.queries[-1].time}) than this "
                f"item (t={it.queries[0].time})"
            )
        else:
            continue
        problems.append(Problem(file=source, item_id=it.id, field="depends_on", expected=wrong))
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
