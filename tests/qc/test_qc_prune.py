"""Iterative Bias Pruning: biased tasks end within the margin, at the size asked for."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.qc.prune import fill_from_reserve, iterative_bias_pruning
from streamspatial.qc.tst import ProbeConfig

pytest.importorskip("sklearn")

ROOMS = ("kitchen", "bedroom", "bathroom", "living room", "study", "hallway", "dining room")


def item(task, i, house, options, right, *, family=None, depends_on=None, tag="") -> Item:
    return Item(
        benchmark="ovos",
        id=f"{task}-{tag}{i}",
        video=f"streamspatial-sim/house-{house:07d}-walk.mp4",
        question=f"In which room is the {random.Random(i).choice(['mug', 'lamp', 'vase'])}?",
        answer_type=AnswerType.CHOICE,
        options=tuple(Option(letter="ABCD"[j], text=o) for j, o in enumerate(options)),
        queries=(QueryPoint(index=0, time=5.0 + i % 40, answer="ABCD"[right]),),
        task=TaskLabels(task=task),
        source="synthetic",
        depends_on=depends_on,
        meta={"family": family or task},
    )


def letter_biased(task, n, *, houses=12, share=0.6, seed=0, tag=""):
    """``share`` of the items answer A, the rest a uniform letter: a letter bias."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        right = 0 if rng.random() < share else rng.randrange(4)
        out.append(item(task, i, i % houses, rng.sample(ROOMS, 4), right, tag=tag))
    return out


def fair(task, n, *, houses=12, seed=1, tag=""):
    rng = random.Random(seed)
    return [item(task, i, i % houses, rng.sample(ROOMS, 4), rng.randrange(4), tag=tag)
            for i in range(n)]  # fmt: skip


def slot(it: Item) -> tuple[str, str]:
    return (it.meta["family"], it.video)


def test_a_biased_task_is_pruned_within_the_margin_and_keeps_its_size():
    active = letter_biased("Out-of-View Localization", 72)
    reserve = fair("Out-of-View Localization", 48, tag="r", seed=2)
    res = iterative_bias_pruning(active, reserve, ProbeConfig(), slot=slot)
    before = res.before.tasks[0]
    after = res.after.tasks[0]
    assert before.strict and not after.strict, (before.blind, after.blind)
    assert after.blind <= after.chance + 0.05
    assert len(res.kept) == 72 and res.short == {}
    task = "ovos/Out-of-View Localization"
    assert res.pruned[task] == res.added[task] > 0
    # replacements come from the same walk as what they replace while that walk has any
    moved = Counter(it.video for it in res.kept) - Counter(it.video for it in active)
    assert sum(moved.values()) <= res.added[task]
    summary = res.summary()["tasks"][task]
    assert summary["requested"] == summary["final"] == 72
    assert summary["before"]["within"] is False and summary["after"]["within"] is True


def test_an_unbiased_benchmark_is_left_alone():
    active = fair("Chronological Recall", 60)
    res = iterative_bias_pruning(active, fair("Chronological Recall", 20, tag="r"), slot=slot)
    if res.before.tasks[0].strict:  # a lucky point estimate: pruning may then act
        pytest.skip("this draw beats chance by 5 points by luck")
    assert (
        res.rounds == 0
        and res.pruned == {}
        and {it.id for it in res.kept} == {it.id for it in active}
    )


def test_without_a_reserve_the_task_shrinks_and_says_so():
    active = letter_biased("Out-of-View Localization", 60, share=0.7)
    res = iterative_bias_pruning(active, [], slot=slot)
    assert not res.after.tasks[0].strict
    assert res.short["ovos/Out-of-View Localization"] == 60 - len(res.kept) > 0


def test_chains_go_as_one_unit_and_exempt_items_stay():
    heads = letter_biased("Sequence", 60, share=0.8, seed=3)
    tails = [
        item("Direction", i, i % 12, ["a", "b", "c", "d"], i % 4, family="Sequence",
             depends_on=h.id, tag="t")
        for i, h in enumerate(heads)
    ]  # fmt: skip
    keep = heads[0]
    res = iterative_bias_pruning([*heads, *tails], [], slot=slot, exempt=[keep.id])
    kept = {it.id for it in res.kept}
    assert keep.id in kept
    for h, t in zip(heads, tails, strict=True):
        assert (h.id in kept) == (t.id in kept)  # a second turn never outlives its first
    assert res.pruned["ovos/Sequence"] == res.pruned["ovos/Direction"] > 0


def test_small_tasks_are_not_probed_at_all():
    active = letter_biased("Out-of-View Localization", 15, share=0.9)
    res = iterative_bias_pruning(active, [], slot=slot)
    assert res.before.tasks == [] and len(res.kept) == 15


def test_a_short_family_is_filled_from_the_walks_with_spares():
    # Four walks asked for 3 questions each; two walks showed the event once, two five times.
    def walk_items(house, n, tag):
        return [item("Object Trajectory", i, house, ROOMS[:4], i % 4, tag=f"{tag}{house}-")
                for i in range(n)]  # fmt: skip

    active = [*walk_items(0, 1, "a"), *walk_items(1, 1, "a"), *walk_items(2, 3, "a"),
              *walk_items(3, 3, "a")]  # fmt: skip
    reserve = [*walk_items(2, 2, "r"), *walk_items(3, 2, "r")]
    kept, left, filled = fill_from_reserve(active, reserve, lambda fam: 12, slot=slot)
    assert filled == {"Object Trajectory": 4}
    assert len(kept) == 12 and left == []
    assert {it.id for it in active} <= {it.id for it in kept}
    # Asked for 10: the two walks with spares give one each before either gives a second.
    kept, left, filled = fill_from_reserve(active, reserve, lambda fam: 10, slot=slot)
    assert filled == {"Object Trajectory": 2} and len(kept) == 10
    assert Counter(it.video for it in left) == Counter({reserve[0].video: 1, reserve[2].video: 1})
    # A family already at its size takes nothing.
    kept, left, filled = fill_from_reserve(active, reserve, lambda fam: 8, slot=slot)
    assert filled == {} and kept == active and left == reserve


def test_filling_brings_a_chain_in_whole():
    head = item("Chain", 0, 5, ROOMS[:4], 0, tag="r")
    tail = item("Chain", 1, 5, ROOMS[:4], 1, tag="r", depends_on=head.id)
    kept, left, filled = fill_from_reserve([], [head, tail], lambda fam: 1, slot=slot)
    assert filled == {"Chain": 1} and [it.id for it in kept] == [head.id, tail.id] and left == []
