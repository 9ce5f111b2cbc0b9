"""``--scorer official``: every rule of every official scorer, against the official code.

The expected values come from :mod:`official_reference`, a line-for-line transcription of the
published scoring code (sources cited there); one test per rule says what the rule is, and the
property tests compare streamspatial's reader with the transcription on generated responses.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from official_reference import (
    compute_gpa,
    compute_moc,
    compute_uda,
    demo_prediction,
    eval_ucsbench_parse_option_from_answer,
    prompts_parse_answer,
    score_py_calculate_scores,
    score_py_extract_answer,
    unify_results_int,
    vsi_aggregate,
    vsi_exact_match,
    vsi_fuzzy_matching,
    vsi_mean_relative_accuracy,
    vsi_na_score,
)
from streamspatial.bench.ovos import official
from streamspatial.bench.ovos.score import ovos_official_table, ovos_table
from streamspatial.bench.ucs import official as ucs
from streamspatial.bench.ucs.score import ucs_official_table
from streamspatial.bench.vcbench import official as vcbench
from streamspatial.bench.vcbench.score import vcbench_table
from streamspatial.bench.vsibench import official as vsi
from streamspatial.bench.vsibench.score import vsibench_official_table
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.scoring.scorers import default_scorer, score_all, score_response

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Fragments that exercise every step of the letter readers: markers, tags, brackets, letters
# in both cases (A–G: the official OVO-S range stops at E), prose, whitespace, newlines.
_FRAGMENTS = [
    "Answer:",
    "answer is",
    "Answer",
    "Final answer:",
    "final",
    "FINAL ANSWER",
    "<answer>",
    "</answer>",
    "<think>",
    "</think>",
    "<|begin_of_box|>",
    "<|end_of_box|>",
    "(",
    ")",
    "[",
    "]",
    "option",
    "options:",
    "Options",
    "choice",
    "choose",
    "I pick",
    "答案是",
    "选",
    "The",
    "a",
    "chair",
    "is",
    "so",
    "therefore",
    "I think",
    ".",
    ",",
    ":",
    "\n",
    " ",
    "  ",
    "**",
    *"ABCDEFG",
    *"abcdefg",
]
responses = st.one_of(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=14).map("".join),
    st.lists(st.sampled_from(_FRAGMENTS), max_size=14).map(" ".join),
    st.text(alphabet=st.sampled_from("ABCEFab ():.\n<>/"), max_size=30),
    st.text(max_size=40),
)


# --- OVO-S-Bench score.py -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected", "rule"),
    [
        ("", "", "an empty response is no answer"),
        ("Answer: C", "C", "tail 'answer' + [:\\s]+ + letter"),
        ("final answer b", "B", "case-insensitive; the letter is upper-cased"),
        ("The answer is C", "C", "'answer is' fails step 1; the bare final letter reads C"),
        ("Answer: F", "", "A–E only: F and G are never read"),
        ("Answer: B. Option (C) looked close", "B", "tail 'answer' step before the brackets"),
        ("<answer> D </answer>", "D", "Cosmos <answer> tag"),
        ("...therefore B.", "B", "a bare letter at the very end, optional full stop"),
        ("<|begin_of_box|>E<|end_of_box|>", "E", "GLM box"),
        ("a chair is left of it", "A", "a letter at the start of the upper-cased response"),
        (
            "Let me check the options: 3m, 5m. I go with choice: D because",
            "D",
            "'options:' followed by a digit no longer yields 'S'; 'choice: D' anywhere",
        ),
        ("I would pick [ c ] here, thanks", "C", "a letter in brackets, anywhere"),
        ("<think>Answer: A</think>B", "B", "only the text after the last </think> is read"),
        ("<think>so maybe A", "A", "an unclosed <think> is not removed"),
        ("x" * 400 + " <answer> C " + "y" * 300, "", "the tail steps see the last 300 chars"),
        ("x" * 400 + " Answer: C " + "y" * 300, "C", "…but 'answer:' is read anywhere later"),
    ],
)
def test_ovos_letter_rules(response: str, expected: str, rule: str) -> None:
    assert official.ovos_letter(response) == expected, rule
    assert score_py_extract_answer(response) == expected  # the transcription agrees


@SETTINGS
@given(responses)
def test_ovos_letter_equals_score_py_on_every_response(response: str) -> None:
    assert official.ovos_letter(response) == score_py_extract_answer(response)


def _ovos_item(letters: str = "ABCDEFG", answers: tuple[str, ...] = ("B",)) -> Item:
    return Item(
        benchmark="ovos",
        id="2.1.2_0",
        video="v.mp4",
        question="How many times?",
        answer_type=AnswerType.CHOICE,
        options=tuple(Option(letter=c, text=c.lower()) for c in letters),
        queries=tuple(
            QueryPoint(index=i, time=float(i + 1), answer=a) for i, a in enumerate(answers)
        ),
        task=TaskLabels(level="L2", category="2.1", subcategory="2.1.2", task="Revisit Counting"),
    )


def test_ovos_official_and_paper_verdicts_differ_where_the_rules_differ() -> None:
    item = _ovos_item(answers=("F",))
    q = item.queries[0]
    both = score_all(item, q, "Answer: F")
    assert (both["official"].extracted, both["official"].score) == (None, 0.0)  # A–E only
    assert (both["paper"].extracted, both["paper"].score) == ("F", 1.0)  # G.7, letters to G
    lower = score_all(_ovos_item(), _ovos_item().queries[0], "b")
    assert lower["official"].score == 1.0 and lower["paper"].extracted is None


# --- OVO-S-Bench calculate_scores -------------------------------------------------------------

_SUBS = ["1.1.1", "1.2.3", "2.1.2", "3.1.1", "4.1", "4.3", "weird"]


@SETTINGS
@given(
    st.lists(
        st.tuples(st.sampled_from(_SUBS), responses, st.sampled_from("ABCDE"), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_ovos_official_table_equals_calculate_scores(rows) -> None:
    records, results = [], []
    for k, (sub, response, truth, failed) in enumerate(rows):
        level = f"L{sub[0]}" if sub[0].isdigit() else None
        item = Item(
            benchmark="ovos",
            id=str(k),
            video="v.mp4",
            question="q?",
            answer_type=AnswerType.CHOICE,
            options=tuple(Option(letter=c, text=c) for c in "ABCDE"),
            queries=(QueryPoint(index=0, time=1.0, answer=truth),),
            task=TaskLabels(level=level, category=sub.rsplit(".", 1)[0], subcategory=sub, task=sub),
        )
        text = "" if failed else response
        verdict = score_response(item, item.queries[0], text, "official")
        records.append(
            {
                "item_id": str(k),
                "query_index": 0,
                "task": item.task.model_dump(),
                "score": verdict.score,
                "valid": verdict.valid,
                "rule": verdict.rule,
                "error": "HTTP 500" if failed else None,
            }
        )
        # inference.py _make_error_result: an error record has response None.
        results.append(
            {
                "task_subcategory": sub,
                "ground_truth": truth,
                **({"error": "HTTP 500", "response": None} if failed else {"response": response}),
            }
        )
    expected = score_py_calculate_scores(results)
    table = ovos_official_table(records)
    overall = table.row(level="Overall")
    assert overall["n"] == expected["overall"]["total"]
    if expected["overall"]["total"]:
        assert overall["accuracy"] == expected["overall"]["accuracy"]
    for cat, cell in expected["by_main_category"].items():
        row = table.row(level=f"L{cat}" if cat != "unknown" else cat, group="All")
        assert (row["n"], row["accuracy"]) == (cell["total"], cell["accuracy"])
    for sub, cell in expected["by_task"].items():
        row = next(r for r in table.rows if r["group"] == sub)
        assert (row["n"], row["accuracy"]) == (cell["total"], cell["accuracy"])


def test_ovos_official_averages_micro_where_the_paper_averages_categories() -> None:
    # L1: category 1.1 has 3 query points all right, 1.2 one point wrong.
    recs = [
        {
            "item_id": str(k),
            "query_index": 0,
            "task": {"level": "L1", "category": cat, "subcategory": cat + ".1", "task": "t"},
            "score": s,
            "valid": True,
        }
        for k, (cat, s) in enumerate([("1.1", 1.0), ("1.1", 1.0), ("1.1", 1.0), ("1.2", 0.0)])
    ]
    assert ovos_official_table(recs).row(level="L1", group="All")["accuracy"] == 0.75

    assert ovos_table(recs).row(level="L1", group="Avg.")["accuracy"] == 0.5


# --- VCBench ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (" 12 \n", 12),  # strip, then int()
        ("+3", 3),
        ("-2", -2),
        ("1_000", 1000),  # Python's int reads digit groups
        ("12.0", None),  # int() refuses a decimal point
        ("1e3", None),
        ("12 chairs", None),
        ("twelve", None),
        ("", None),  # demo_gemini: an empty response is None
    ],
)
def test_vcbench_int_rule(response: str, expected: int | None) -> None:
    assert vcbench.vcbench_int(response) == expected
    assert unify_results_int(demo_prediction(response)) == expected


@SETTINGS
@given(
    st.one_of(
        responses,
        st.integers(-(10**6), 10**6).map(str),
        st.text(alphabet=" +-_0123456789.e", max_size=12),
    )
)
def test_vcbench_int_equals_unify_results(response: str) -> None:
    assert vcbench.vcbench_int(response) == unify_results_int(demo_prediction(response))


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=8),
    st.sampled_from(["O1-Snap", "O1-Delta", "O2-Unique", "O2-Gain", "E1-Action", "E2-Periodic"]),
)
def test_vcbench_metrics_equal_compute_metrics(points, subtype) -> None:
    preds = [float(p) for p, _ in points]
    gts = [float(g) for _, g in points]
    records = [
        {
            "item_id": "q",
            "query_index": i,
            "task": {"category": subtype[:2], "subcategory": subtype, "task": subtype},
            "prediction": p,
            "answer": g,
            "valid": True,
            "score": 1.0,
        }
        for i, (p, g) in enumerate(zip(preds, gts, strict=True))
    ]
    row = vcbench_table(records).row(subcategory=subtype)
    assert row["gpa"] == pytest.approx(compute_gpa(preds, gts), rel=1e-12)
    moc_types = {"O2-Unique", "E1-Action", "E1-Transit", "E2-Periodic", "E2-Episode"}
    uda_types = moc_types | {"O1-Snap"}
    n = len(preds)
    assert row["moc"] == (compute_moc(preds) if subtype in moc_types and n >= 2 else None)
    assert row["uda"] == (compute_uda(preds, gts) if subtype in uda_types and n >= 2 else None)


def test_vcbench_unreadable_answer_is_invalid_and_left_out() -> None:
    item = Item(
        benchmark="vcbench",
        id="0001",
        video="s/v.mp4",
        question="How many chairs?",
        answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=1.0, answer=3.0),),
        task=TaskLabels(category="O1", subcategory="O1-Snap", task="O1-Snap"),
    )
    verdict = score_response(item, item.queries[0], "three chairs", "official")
    assert (verdict.extracted, verdict.score, verdict.valid) == (None, None, False)
    assert score_response(item, item.queries[0], "three chairs", "paper").extracted == 3.0


# --- UCS-Bench ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Answer: C", "C"),
        ("answer：D", "D"),  # full-width colon
        ("A chair is on the left", "A"),  # the first standalone capital A–E
        ("I think B", "B"),  # "I" is no option letter
        ("the answer is b", ""),  # case-sensitive: no capital letter at all
        ("(E)", "E"),
        ("F", ""),
    ],
)
def test_ucs_array_rules(response: str, expected: str) -> None:
    assert ucs.ucs_array_letter(response) == expected
    assert eval_ucsbench_parse_option_from_answer(response) == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("c", "C"),  # a single letter, any case
        ("B. Behind you", "B"),  # letter + ".):, " at the start
        ("The answer is D", "D"),
        ("I choose E", "E"),
        ("答案是 C", "C"),
        ("Maybe [A]", "A"),
        ("Hmm\nB is right", "B"),  # a letter starting a line
        ("F", None),
        ("", None),
    ],
)
def test_ucs_jsonl_rules(response: str, expected: str | None) -> None:
    assert ucs.ucs_jsonl_letter(response) == expected
    assert prompts_parse_answer(response) == expected


@SETTINGS
@given(responses)
def test_ucs_readers_equal_the_official_parsers(response: str) -> None:
    assert ucs.ucs_array_letter(response) == eval_ucsbench_parse_option_from_answer(response)
    assert ucs.ucs_jsonl_letter(response) == prompts_parse_answer(response)


def test_ucs_jsonl_overall_leaves_unread_answers_out_but_dimensions_count_them() -> None:
    def rec(k: int, dim: str, score: float, valid: bool) -> dict:
        return {
            "item_id": str(k),
            "query_index": 0,
            "task": {"category": dim, "task": dim},
            "score": score,
            "valid": valid,
            "rule": "ucs-jsonl",
        }

    recs = [rec(0, "d1", 1.0, True), rec(1, "d1", 0.0, False), rec(2, "d2", 0.0, True)]
    table = ucs_official_table(recs)
    assert table.row(category="d1")["accuracy"] == 0.5  # the unread answer is wrong here
    overall = table.row(category="Overall")
    assert (overall["n"], overall["accuracy"]) == (2, 0.5)  # and left out here


def test_ucs_direction_answers_match_as_sets_under_both_scorers() -> None:
    item = Item(
        benchmark="ucs",
        id="02",
        video="v",
        question="Which side is the trash can on right now?",
        answer_type=AnswerType.DIRECTION,
        queries=(QueryPoint(index=0, time=28.0, answer="It is to your front-left and rear-left."),),
        task=TaskLabels(category="unknown", task="unknown"),
    )
    q = item.queries[0]
    for scorer in ("official", "paper"):
        assert score_response(item, q, "Back-left, and also front left.", scorer).score == 1.0
        assert score_response(item, q, "It is to your front-left.", scorer).score == 0.0
        assert score_response(item, q, "It is on your left.", scorer).score == 0.0
        none = score_response(item, q, "I cannot tell.", scorer)
        assert (none.valid, none.score) == (False, 0.0)


# --- VSI-Bench ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [("B. right", "B"), ("b", "b"), ("(B)", "(B)"), ("B.\n", "B."), ("  B", "")],
)
def test_vsi_first_token_rule(response: str, expected: str) -> None:
    assert vsi.vsi_first_token(response) == expected == vsi_fuzzy_matching(response)


@SETTINGS
@given(responses, st.sampled_from("ABCD"))
def test_vsi_choice_scores_equal_utils(response: str, truth: str) -> None:
    token = vsi.vsi_first_token(response)
    assert vsi.vsi_exact_match(token, truth) == vsi_exact_match(vsi_fuzzy_matching(response), truth)


@SETTINGS
@given(
    st.one_of(
        st.floats(0, 50, allow_nan=False).map(lambda x: f"{x:.3g} m"),
        st.integers(0, 30).map(str),
        st.sampled_from(["three", "nan", "inf", "1e3", "1_0", "", "4.", "5 chairs"]),
        responses,
    ),
    st.floats(0.1, 30, allow_nan=False),
)
def test_vsi_numeric_scores_equal_utils(response: str, truth: float) -> None:
    value = vsi.vsi_to_float(vsi.vsi_first_token(response))
    assert vsi.vsi_mra(value, truth) == vsi_na_score(response, str(truth))


def test_vsi_mra_has_no_tolerance_and_divides_by_the_target() -> None:
    assert vsi.vsi_mra(105.0, 100.0) == float(vsi_mean_relative_accuracy(105.0, 100.0))
    assert vsi.vsi_mra(-3.0, -2.0) == 1.0  # as coded: |p - t| / t is negative
    assert vsi.vsi_mra(1.0, 0.0) == 0.0  # the task would divide by zero


def test_vsi_official_overall_merges_directions_over_three() -> None:
    def rec(k: int, qtype: str, score: float) -> dict:
        return {
            "item_id": str(k),
            "query_index": 0,
            "task": {"task": qtype},
            "score": score,
            "valid": True,
            "answer_type": "choice",
        }

    recs = [
        rec(0, "object_rel_direction_easy", 1.0),
        rec(1, "route_planning", 0.5),
        rec(2, "route_planning", 0.0),
    ]
    expected = vsi_aggregate({"object_rel_direction_easy": 1.0, "route_planning": 0.25})
    table = vsibench_official_table(recs)
    assert table.row(question_type="object_rel_direction")["score"] == pytest.approx(1 / 3)
    assert table.row(question_type="Overall")["score"] == expected["overall"]
    assert math.isclose(expected["overall"], (1 / 3 + 0.25) / 2)


# --- which scorer -------------------------------------------------------------------------


def test_default_scorer_is_official_for_released_files_only() -> None:
    released = _ovos_item()
    generated = released.model_copy(update={"intent": {"family": "revisit"}})
    s3 = released.model_copy(update={"benchmark": "s3"})
    assert default_scorer([released]) == "official"
    assert default_scorer([released, generated]) == "paper"
    assert default_scorer([s3]) == "paper"  # S3-Bench publishes no scoring code
