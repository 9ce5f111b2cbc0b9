import math

import pytest
from pydantic import ValidationError

from streamspatial.core import AnswerType, Item, Option, Problem, QueryPoint, TaskLabels


def _item(**kw):
    base = dict(
        benchmark="ovos",
        id="1",
        video="v.mp4",
        question="Which?",
        answer_type=AnswerType.CHOICE,
        options=(Option(letter="A", text="x"), Option(letter="B", text="y")),
        queries=(QueryPoint(index=0, time=10.0, answer="B", evidence=((1.0, 2.0),)),),
        task=TaskLabels(task="t"),
    )
    base.update(kw)
    return Item(**base)


def test_valid_item_round_trips_through_json():
    item = _item()
    assert Item.model_validate_json(item.model_dump_json()) == item
    assert item.letters == "AB"


def test_answer_must_be_among_options():
    with pytest.raises(ValidationError, match="among the options AB"):
        _item(queries=(QueryPoint(index=0, time=10.0, answer="C"),))


def test_evidence_must_start_by_the_query_time():
    with pytest.raises(ValidationError, match="starting no later than the query time"):
        QueryPoint(index=0, time=5.0, answer="A", evidence=((5.5, 6.0),))


def test_evidence_may_end_at_or_after_the_query_time():
    # OVO-S-Bench releases evidence [t_start, t_q]; the paper's own Fig. 11 example ends later.
    assert QueryPoint(index=0, time=5.0, answer="A", evidence=((1.0, 5.0),)).evidence == (
        (1.0, 5.0),
    )
    assert QueryPoint(index=0, time=22.8, answer="D", evidence=((21.8, 23.8),)).evidence == (
        (21.8, 23.8),
    )


def test_time_must_be_finite_and_non_negative():
    with pytest.raises(ValidationError):
        QueryPoint(index=0, time=math.nan, answer="A")
    with pytest.raises(ValidationError):
        QueryPoint(index=0, time=-1.0, answer="A")


def test_options_beyond_g_are_refused():
    with pytest.raises(ValidationError, match="A–G"):
        Option(letter="H", text="h")


def test_number_items_need_numeric_answers():
    with pytest.raises(ValidationError, match="numeric"):
        _item(
            answer_type=AnswerType.NUMBER,
            options=(),
            queries=(QueryPoint(index=0, time=1.0, answer="three"),),
        )


def test_problem_reads_as_one_line():
    p = Problem(
        file="b.jsonl",
        location="line 3",
        item_id="7",
        field="answers",
        expected="expected a letter among A–D",
    )
    assert str(p) == "b.jsonl:3: item 7: field 'answers': expected a letter among A–D"
