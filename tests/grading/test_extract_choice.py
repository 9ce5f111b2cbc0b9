"""The OVO-S-Bench G.7 answer-extraction cascade: every step, and the order between steps."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.grading.extract import (
    TAIL_CHARS,
    extract_choice,
    extract_choice_detailed,
    strip_thinking,
)

PAD = " " + "reasoning goes on here, " * 16  # > 300 chars, ends in no letter
assert len(PAD) > TAIL_CHARS


def step(text: str, letters: str = "ABCDEFG") -> tuple[str | None, int | None]:
    got = extract_choice_detailed(text, letters)
    return got.letter, got.step


# --- one exact case per step ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Looking at the room... Answer: B, since it is nearer", ("B", 1)),
        ("**Final Answer:** (C) is what the frames show", ("C", 1)),
        ("the final answer is D because of the door", ("D", 1)),
        ("Final: A as seen earlier", ("A", 1)),
        ("<answer>C</answer> as reasoned", ("C", 2)),
        ("It was left of the sofa, therefore B", ("B", 3)),
        ("The mug is nearest. E.", ("E", 3)),
        ("<|begin_of_box|>D<|end_of_box|> is boxed.", ("D", 4)),
        ("B. The chair was seen first.", ("B", 5)),
        ("(C) because the door is on the left.", ("C", 5)),
        ("B is correct: the mug was seen first.", ("B", 5)),
        ("A is correct: the mug was seen first.", ("A", 5)),
        ("The best option is: E" + PAD, ("E", 6)),
        ("my choice = A" + PAD, ("A", 6)),
        ("I would go with (F) here" + PAD, ("F", 7)),
        ("between [A] and [G], pick [G] then" + PAD, ("G", 7)),
    ],
)
def test_each_step(text: str, expected: tuple[str, int]) -> None:
    assert step(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The answer is a chair near the window",  # lower-case "a" is a word, not an option
        "A chair is near the window",  # "A" starting a sentence is an article
        "Answer: Bedroom",  # a letter must end at a word boundary
        "I cannot tell from these frames",
        "",
    ],
)
def test_no_match(text: str) -> None:
    assert step(text) == (None, None)


# --- the order between steps ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer: B. Though one might think C", ("B", 1)),  # 1 before 3
        ("<|begin_of_box|>A<|end_of_box|> so B", ("B", 3)),  # 3 before 4
        ("B is tempting. <|begin_of_box|>D<|end_of_box|> done.", ("D", 4)),  # 4 before 5
        ("C. the answer: D" + PAD, ("C", 5)),  # 5 before 6
        ("I considered (A) first. Then choice: C" + PAD, ("C", 6)),  # 6 before 7
        ("Answer: A then Answer: C", ("C", 1)),  # last occurrence within a step
        ("Answer: B" + PAD, ("B", 6)),  # outside the 300-char tail step 1 cannot see it
        ("(B) looks right" + PAD, ("B", 5)),  # a leading "(B)" is step 5, not 7
    ],
)
def test_step_order(text: str, expected: tuple[str, int]) -> None:
    assert step(text) == expected


def test_answer_tag_beats_trailing_letter_only_when_earlier_step() -> None:
    # Step 2 (<answer>) comes before step 3 (trailing letter): with both present, 2 wins.
    assert step("<answer>C</answer> D") == ("C", 2)


# --- letter range ---------------------------------------------------------------------------


def test_letters_beyond_e() -> None:
    assert extract_choice("Answer: F") == "F"
    assert extract_choice("Revisit count option: (G)") == "G"


def test_letters_restricted_to_item_range() -> None:
    assert extract_choice("Answer: F", letters="ABCD") is None
    assert step("Answer: F. So it is (B), surely", letters="ABCD") == ("B", 7)


def test_bad_letter_range_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="option letters"):
        extract_choice("A", letters="a1")


# --- thinking -------------------------------------------------------------------------------


def test_thinking_is_removed_before_matching() -> None:
    got = extract_choice_detailed("<think>maybe Answer: A</think>\nFinal answer: C")
    assert (got.letter, got.step, got.truncated) == ("C", 1, False)


def test_truncated_thinking_is_unanswered_and_flagged() -> None:
    got = extract_choice_detailed("<think>The sofa... so Answer: B and")
    assert (got.letter, got.step, got.truncated) == (None, None, True)


def test_closing_tag_without_opening_ends_reasoning() -> None:
    assert strip_thinking("so A? no.</think>\nB") == ("B", False)
    assert extract_choice("so A? no.</think>\nB") == "B"


def test_strip_thinking_keeps_text_before_unclosed_tag() -> None:
    assert strip_thinking("C <think>wait") == ("C", True)
    assert strip_thinking("<THINK>x</THINK> D <think>y</think>") == ("D", False)


# --- invariants -----------------------------------------------------------------------------

prose = st.text(alphabet=st.characters(blacklist_characters="<>", codec="ascii"), max_size=600)


@given(prose, st.sampled_from("ABCDEFG"))
def test_appended_answer_line_always_wins(prefix: str, letter: str) -> None:
    assert extract_choice(prefix + "\nAnswer: " + letter) == letter


@given(prose, st.text(alphabet="ABCDEFG", min_size=1, max_size=7))
def test_result_is_always_in_range(text: str, letters: str) -> None:
    got = extract_choice(text, letters)
    assert got is None or got in letters


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("answer" + " " * 20_000 + "x", None),  # cubic backtracking here once hung for minutes
        ("option is" + " *" * 10_000 + ": C and more", "C"),
        ("(" * 20_000, None),
        ("Answer:" + " " * 5_000 + "B", "B"),
    ],
)
def test_long_separator_runs_stay_linear(text: str, expected: str | None) -> None:
    assert extract_choice(text) == expected
