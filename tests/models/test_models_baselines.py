"""Random and frequent-answer baselines: reproducible and leave-one-out."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.models.baselines import FrequentBackend, RandomBackend, frequent_task_key
from streamspatial.models.types import ModelRequest, TextPart


def ask(backend, item_id: str, t: float = 1.0, choices: str = "ABCD", task_key: str = ""):
    request = ModelRequest(
        parts=(TextPart("q"),), query_time=t, choices=choices, task_key=task_key, item_id=item_id
    )
    return asyncio.run(backend.generate(request))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.permutations(list(range(12))))
def test_random_is_reproducible_and_independent_of_call_order(seed, order):
    keys = [(f"item-{i % 5}", float(i)) for i in range(12)]
    first = {k: RandomBackend(seed).choose(k[0], k[1], "ABCDE") for k in keys}
    backend = RandomBackend(seed)
    shuffled = {keys[i]: ask(backend, keys[i][0], keys[i][1], "ABCDE").text for i in order}
    assert shuffled == first


def test_random_is_uniform_over_the_choices():
    backend = RandomBackend(7)
    counts = Counter(backend.choose(f"i{n}", 0.0, "ABCD") for n in range(8000))
    assert set(counts) == set("ABCD")
    assert all(abs(c - 2000) < 200 for c in counts.values())  # > 6 sigma margin
    assert RandomBackend(1).choose("x", 1.0, "AB") in "AB"
    # the seed matters
    a = [RandomBackend(1).choose(f"i{n}", 0.0, "ABCD") for n in range(50)]
    b = [RandomBackend(2).choose(f"i{n}", 0.0, "ABCD") for n in range(50)]
    assert a != b


def test_random_refuses_number_items_with_an_error():
    resp = ask(RandomBackend(0), "n1", choices="")
    assert resp.text == "" and resp.error == "random baseline answers choice items only"


def brute_force(records, item_id, task):
    others = [a for (i, k, a) in records if k == task and i != item_id]
    if not others:
        return None
    counts = Counter(others)
    best = max(counts.values())
    tied = [a for a, c in counts.items() if c == best]
    nums = sorted(a for a in tied if not isinstance(a, str))
    return nums[0] if nums else sorted(tied)[0]


records_st = st.lists(
    st.tuples(
        st.sampled_from([f"i{n}" for n in range(8)]),
        st.sampled_from(["t1", "t2"]),
        st.sampled_from(list("ABCD")),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(records_st)
def test_frequent_is_exactly_leave_one_out(records):
    backend = FrequentBackend(records)
    for item_id in {r[0] for r in records}:
        for task in ("t1", "t2"):
            expected = brute_force(records, item_id, task)
            resp = ask(backend, item_id, task_key=task)
            if expected is None:
                assert resp.error and "no other item" in resp.error
            else:
                assert resp.text == expected and resp.error is None


def test_frequent_never_counts_the_item_itself():
    # item x alone carries the majority; it must not see its own answers
    records = [
        ("x", "t", "A"),
        ("x", "t", "A"),
        ("x", "t", "A"),
        ("y", "t", "B"),
        ("z", "t", "C"),
        ("z", "t", "C"),
    ]
    backend = FrequentBackend(records)
    assert ask(backend, "x", task_key="t").text == "C"
    assert ask(backend, "y", task_key="t").text == "A"
    assert ask(backend, "z", task_key="t").text == "A"


def test_frequent_ties_are_deterministic():
    records = [("a", "t", "C"), ("b", "t", "B"), ("c", "t", "D")]
    backend = FrequentBackend(records)
    assert ask(backend, "new", task_key="t").text == "B"
    orders = [list(records) for _ in range(5)]
    for o in orders:
        random.Random(len(o)).shuffle(o)
        assert ask(FrequentBackend(o), "new", task_key="t").text == "B"


def test_frequent_numbers_use_the_mode_smallest_on_ties():
    records = [("a", "n", 3), ("b", "n", 3.0), ("c", "n", 5), ("d", "n", 5), ("e", "n", 2.5)]
    backend = FrequentBackend(records)
    assert ask(backend, "new", choices="", task_key="n").text == "3"  # 3 and 5 tie: smaller
    assert ask(backend, "a", choices="", task_key="n").text == "5"
    only = FrequentBackend([("a", "n", 2.5), ("b", "n", 7)])
    assert ask(only, "b", choices="", task_key="n").text == "2.5"


def _item(item_id: str, task: str, answers: list[str | float]) -> Item:
    number = not isinstance(answers[0], str)
    return Item(
        benchmark="demo",
        id=item_id,
        video="v.mp4",
        question="?",
        answer_type=AnswerType.NUMBER if number else AnswerType.CHOICE,
        options=() if number else tuple(Option(letter=c, text=c.lower()) for c in "ABC"),
        queries=tuple(
            QueryPoint(index=i, time=float(i + 1), answer=a) for i, a in enumerate(answers)
        ),
        task=TaskLabels(task=task),
    )


def test_frequent_from_items_groups_by_benchmark_and_task_and_excludes_all_query_points():
    items = [
        _item("p", "count", [4.0, 4.0, 4.0]),
        _item("q", "count", [2.0]),
        _item("r", "count", [2.0, 6.0]),
        _item("s", "dir", ["B"]),
        _item("u", "dir", ["C"]),
    ]
    backend = FrequentBackend.from_items(items)
    key = frequent_task_key(items[0])
    assert key == "demo/count"
    assert ask(backend, "p", choices="", task_key=key).text == "2"
    assert ask(backend, "q", choices="", task_key=key).text == "4"
    assert ask(backend, "s", task_key="demo/dir").text == "C"
