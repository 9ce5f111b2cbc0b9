"""The planner: one stream per video, time order, dependencies first and validated."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import InputError
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.eval.planner import plan


def item(id: str, video: str, *times: float, depends_on: str | None = None) -> Item:
    return Item(
        benchmark="s3",
        id=id,
        video=video,
        question="q?",
        answer_type=AnswerType.CHOICE,
        options=(Option(letter="A", text="x"), Option(letter="B", text="y")),
        queries=tuple(QueryPoint(index=i, time=t, answer="A") for i, t in enumerate(times)),
        task=TaskLabels(task="t"),
        depends_on=depends_on,
    )


def test_groups_by_video_and_sorts_by_time() -> None:
    plans = plan(
        [
            item("a", "v1", 5.0),
            item("b", "v2", 1.0),
            item("c", "v1", 2.0, 9.0),
            item("d", "v1", 2.0),
        ]
    )
    assert [p.video for p in plans] == ["v1", "v2"]
    assert [(q.item.id, q.query.index) for q in plans[0].queries] == [
        ("c", 0),
        ("d", 0),
        ("a", 0),
        ("c", 1),
    ]


def test_dependency_at_the_same_time_goes_first() -> None:
    # "z" depends on "y" which depends on "x"; all asked at t=3, file order reversed.
    plans = plan(
        [
            item("z", "v", 3.0, depends_on="y"),
            item("y", "v", 3.0, depends_on="x"),
            item("x", "v", 3.0),
        ]
    )
    assert [q.item.id for q in plans[0].queries] == ["x", "y", "z"]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([item("a", "v", 1.0, depends_on="nope")], "item a: field 'depends_on'.*'nope'"),
        ([item("a", "v1", 1.0), item("b", "v2", 2.0, depends_on="a")], "same video"),
        ([item("a", "v", 5.0), item("b", "v", 2.0, depends_on="a")], "no later"),
        ([item("a", "v", 1.0, depends_on="b"), item("b", "v", 1.0, depends_on="a")], "cycle"),
        ([item("a", "v", 1.0), item("a", "v", 2.0)], "unique"),
    ],
)
def test_bad_chains_are_one_clear_error(items: list[Item], message: str) -> None:
    with pytest.raises(InputError, match=message):
        plan(items, source="bench.jsonl")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("uvw"), st.lists(st.floats(0, 100), min_size=1, max_size=3)),
        min_size=1,
        max_size=12,
    )
)
def test_every_query_point_planned_once_in_time_order(spec) -> None:
    items = [item(f"i{n}", v, *sorted(ts)) for n, (v, ts) in enumerate(spec)]
    plans = plan(items)
    keys = [q.key for p in plans for q in p.queries]
    assert sorted(keys) == sorted((it.id, q.index) for it in items for q in it.queries)
    for p in plans:
        assert {q.item.video for q in p.queries} == {p.video}
        times = [q.time for q in p.queries]
        assert times == sorted(times)
