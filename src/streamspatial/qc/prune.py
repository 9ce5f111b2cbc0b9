"""Iterative Bias Pruning (TsT): drop what a blind model gets right until no task is blind.

Round by round, every task that fails the stress test's rule (:mod:`.tst`) loses the items
with the highest bias scores — a batch of ``batch`` of its items — and the tasks they touched
are probed again.  A generator can hand in a *reserve* of items made the same way: each
pruned unit is replaced by a reserve unit of the same slot (its family, in its video), so the
benchmark keeps the size that was asked for while the reserve lasts (when a walk's reserve of
that family is spent, the family's largest reserve in another walk gives instead).
Before any pruning, :func:`fill_from_reserve` may bring a family that some walks left short
up to the size asked for from the reserve of the walks that showed more of what it asks about.

Items are pruned in *units*: an item and everything that depends on it (an S3-Bench chain's
second turn names the first in ``depends_on`` and cannot outlive it).  Items in ``exempt``
(a deliberate probe, such as the identity-persistence spin whose answer is always 1) are never
pruned.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamspatial.core.schema import Item

from .tst import ProbeConfig, ProbeReport, TaskResult, stress_test
from .tst_features import task_key


@dataclass
class PruneResult:
    kept: list[Item]
    before: ProbeReport  # the stress test of what was asked for, before any pruning
    after: ProbeReport  # the stress test of what is kept
    requested: dict[str, int]
    pruned: dict[str, int] = field(default_factory=dict)  # items dropped, per task
    added: dict[str, int] = field(default_factory=dict)  # reserve items brought in, per task
    rounds: int = 0

    @property
    def short(self) -> dict[str, int]:
        """Tasks that ended with fewer items than asked for (the reserve ran out)."""
        final = Counter(task_key(it) for it in self.kept)
        return {t: n - final[t] for t, n in self.requested.items() if final[t] < n}

    def summary(self) -> dict[str, Any]:
        after = {t.task: t for t in self.after.tasks}
        before = {t.task: t for t in self.before.tasks}
        final = Counter(task_key(it) for it in self.kept)
        rows = {}
        for task in sorted(self.requested):
            rows[task] = {
                "requested": self.requested[task],
                "pruned": self.pruned.get(task, 0),
                "added_from_reserve": self.added.get(task, 0),
                "final": final[task],
                "before": _brief(before.get(task)),
                "after": _brief(after.get(task)),
            }
        return {"rounds": self.rounds, "rule": "strict", "tasks": rows}


def _brief(t: TaskResult | None) -> dict[str, Any] | None:
    if t is None or t.blind is None:
        return None
    return {
        "items": t.items,
        "chance": round(t.chance, 4),
        "blind": round(t.blind, 4),
        "best_model": t.best_model,
        "judged": t.judged,
        "within": not t.strict,
    }


def _failing(t: TaskResult, rule: str) -> bool:
    return t.judged and (t.strict if rule == "strict" else t.flagged)


class _Units:
    """Items grouped with their dependants; each unit knows its slot and its tasks."""

    def __init__(self, items: Iterable[Item], slot: Callable[[Item], tuple[str, str]]):
        items = list(items)
        by_id = {it.id: it for it in items}
        root: dict[str, str] = {}

        def find(i: str) -> str:
            it = by_id[i]
            while it.depends_on is not None and it.depends_on in by_id:
                it = by_id[it.depends_on]
            return it.id

        for it in items:
            root[it.id] = find(it.id)
        self.members: dict[str, list[Item]] = defaultdict(list)
        for it in items:
            self.members[root[it.id]].append(it)
        self.root = root
        self.slot = {u: slot(ms[-1]) for u, ms in self.members.items()}


def iterative_bias_pruning(
    active: Sequence[Item],
    reserve: Sequence[Item] = (),
    cfg: ProbeConfig | None = None,
    *,
    slot: Callable[[Item], tuple[str, str]] = lambda it: (task_key(it), it.video),
    rule: str = "strict",
    batch: float = 0.05,
    max_rounds: int = 40,
    exempt: Iterable[str] = (),
    seed: int = 0,
    on_round: Callable[[int, list[str]], None] | None = None,
) -> PruneResult:
    """Prune ``active`` (drawing on ``reserve``) until no judged task fails ``rule``."""
    cfg = cfg or ProbeConfig()
    rng = random.Random(f"ibp:{seed}")
    exempt = set(exempt)
    requested = Counter(task_key(it) for it in active)
    judgeable = {t for t, n in requested.items() if n >= cfg.min_items}
    units = _Units([*active, *reserve], slot)
    live = {units.root[it.id] for it in active}
    spare = _spares(units, reserve, live, rng)

    def current() -> list[Item]:
        return [it for u in sorted(live) for it in units.members[u]]

    results = {t.task: t for t in stress_test(current(), cfg, tasks=judgeable).tasks}
    before = ProbeReport(cfg, list(results.values()))
    pruned: Counter[str] = Counter()
    added: Counter[str] = Counter()
    rounds = 0
    while rounds < max_rounds:
        failing = [t for t in results.values() if _failing(t, rule)]
        if not failing:
            break
        rounds += 1
        touched: set[str] = set()
        for t in failing:
            ranked = sorted(t.item_bias, key=lambda i: (-_rank_key(t, i, cfg), i))
            n = max(1, math.ceil(batch * t.items))
            gone = 0
            for item_id in ranked:
                u = units.root.get(item_id)
                if gone >= n or u is None:
                    break
                if u not in live or any(m.id in exempt for m in units.members[u]):
                    continue
                live.discard(u)
                gone += 1
                for m in units.members[u]:
                    pruned[task_key(m)] += 1
                    touched.add(task_key(m))
                v = _replacement(spare, units.slot[u])
                if v is not None:
                    live.add(v)
                    for m in units.members[v]:
                        added[task_key(m)] += 1
                        touched.add(task_key(m))
        if on_round is not None:
            on_round(rounds, sorted(t.task for t in failing))
        if not touched:
            break
        fresh = stress_test(current(), cfg, tasks=touched & judgeable).tasks
        results.update({t.task: t for t in fresh})
    after = ProbeReport(cfg, [results[t] for t in sorted(results)])
    return PruneResult(current(), before, after, dict(requested), dict(pruned), dict(added), rounds)


def fill_from_reserve(
    active: Sequence[Item],
    reserve: Sequence[Item],
    wanted: Callable[[str], int],
    *,
    slot: Callable[[Item], tuple[str, str]] = lambda it: (task_key(it), it.video),
    seed: int = 0,
) -> tuple[list[Item], list[Item], dict[str, int]]:
    """Bring each family (a slot's first part) up to ``wanted(family)`` units from the reserve.

    A family about a rare event (a carry, a top whose props changed) finds fewer than its
    share of questions in a walk that shows few such events, and more in one that shows many;
    the asked-for size is a benchmark's, not a walk's.  Units come from the walk with the most
    spares left, so no walk gives all of them.  Returns the new active items, what is left of
    the reserve, and the number of units brought in per family.
    """
    rng = random.Random(f"fill:{seed}")
    units = _Units([*active, *reserve], slot)
    live = {units.root[it.id] for it in active}
    spare = _spares(units, reserve, live, rng)
    have = Counter(units.slot[u][0] for u in live)
    filled: Counter[str] = Counter()
    for family in sorted({k[0] for k in spare}):
        while have[family] < wanted(family):
            v = _replacement(spare, (family, ""))
            if v is None:
                break
            live.add(v)
            have[family] += 1
            filled[family] += 1
    left = {u for lst in spare.values() for u in lst}
    every = [*active, *reserve]
    return (
        [it for it in every if units.root[it.id] in live],
        [it for it in every if units.root[it.id] in left],
        dict(filled),
    )


def _spares(
    units: _Units, reserve: Sequence[Item], live: set[str], rng: random.Random
) -> dict[tuple[str, str], list[str]]:
    """The reserve's units not already live, per slot, in a seeded random order."""
    spare: dict[tuple[str, str], list[str]] = defaultdict(list)
    for u in sorted({units.root[it.id] for it in reserve} - live):
        spare[units.slot[u]].append(u)
    for lst in spare.values():
        rng.shuffle(lst)
    return spare


def _replacement(spare: dict[tuple[str, str], list[str]], slot: tuple[str, str]) -> str | None:
    """A reserve unit for ``slot``: same family and walk, else the same family's fullest."""
    if spare.get(slot):
        return spare[slot].pop()
    same = [k for k, v in spare.items() if k[0] == slot[0] and v]
    if not same:
        return None
    return spare[max(same, key=lambda k: (len(spare[k]), k))].pop()


def _rank_key(t: TaskResult, item_id: str, cfg: ProbeConfig) -> float:
    """What to prune first: the bias score; for a number task whose training median alone is
    too good, how well the median answers the item (concentration, not cleverness)."""
    if t.kind == "number" and t.chance > cfg.median_cap and t.item_median:
        return t.item_median.get(item_id, 0.0)
    return t.item_bias.get(item_id, 0.0)


__all__ = ["PruneResult", "fill_from_reserve", "iterative_bias_pruning"]
