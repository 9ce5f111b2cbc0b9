"""Number extraction (VCBench §4.1) and exploration-action extraction (S3-Bench §4.3)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.grading.extract import extract_action, extract_number, normalise_action

# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", 7.0),
        ("There are 12 chairs.", 12.0),
        ("About 3.5 metres", 3.5),
        ("1,234 people passed", 1234.0),
        ("-3 degrees", -3.0),
        ("3-4 items, so 4", 4.0),  # a range's dash is not a minus sign
        ("zero", 0.0),
        ("I count seventeen", 17.0),
        ("twenty-one apples", 21.0),
        ("twenty one apples", 21.0),
        ("three hundred and five", 305.0),
        ("a hundred", 100.0),
        ("a dozen eggs", 12.0),
        ("one thousand two hundred and thirty-four", 1234.0),
        ("Twelve", 12.0),
        ("I see 2 chairs and 3 stools, so 5", 5.0),  # a conclusion marker
        ("3 red and 2 blue, 5 in total", 5.0),  # a total named after its number
        ("two three", 2.0),  # two unit words are two numbers, not 5; the first answers
        ("1_000", 1000.0),  # underscores group digits as Python writes them
        ("1e3", 1000.0),
        ("2.5E-2 m", 0.025),
        ("12 chairs, 3 tables", 12.0),  # one number asked for: the first
        ("1e999 or 4", 4.0),  # an overflowing exponent is no number
        ("Answer: 7. I counted 2 in the first room", 7.0),  # explicit marker beats last
        ("The total is 9 (4 + 5)", 9.0),
        ("<think>maybe 4</think> 6", 6.0),
        ("H2O and 4.5", 4.5),
    ],
)
def test_numbers(text: str, expected: float) -> None:
    assert extract_number(text) == expected


@pytest.mark.parametrize("text", ["none visible", "", "<think>there are 5", "no idea"])
def test_no_number(text: str) -> None:
    assert extract_number(text) is None


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        # The question asks for one number: the first, or the one naming what it counts.
        ("12 chairs, 3 tables", "How many chairs are visible at this moment?", 12.0),
        ("12 chairs, 3 tables", "How many tables are visible at this moment?", 3.0),
        ("12 chairs, 3 tables", "How many pillows are visible at this moment?", 12.0),
        ("3 red chairs and 2 blue chairs", "How many chairs?", 3.0),  # both name it: first
        # Asking for several numbers makes a list of numbers ambiguous: invalid.
        ("12 chairs, 3 tables", "How many chairs and how many tables are there?", None),
        ("2 and 4", "How many chairs are in each room?", None),
        ("5 and 7", "Give the chair and table counts respectively.", None),
        # A single number, or a marked answer, is never ambiguous.
        ("7", "How many chairs are in each room?", 7.0),
        ("Answer: 7 (2 + 5)", "How many chairs and how many tables?", 7.0),
    ],
)
def test_numbers_read_against_the_question(
    text: str, question: str, expected: float | None
) -> None:
    assert extract_number(text, question) == expected


_SMALL = re.findall(
    r"\w+",
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen",
)
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """A test oracle written independently of the parser: English words for 0 ≤ n < 10000."""
    if n < 20:
        return _SMALL[n]
    if n < 100:
        return _TENS[n // 10 - 2] + ("" if n % 10 == 0 else "-" + _SMALL[n % 10])
    if n < 1000:
        rest = "" if n % 100 == 0 else " and " + _words(n % 100)
        return _SMALL[n // 100] + " hundred" + rest
    rest = "" if n % 1000 == 0 else " " + _words(n % 1000)
    return _words(n // 1000) + " thousand" + rest


@given(st.integers(min_value=0, max_value=9999))
def test_number_words_round_trip(n: int) -> None:
    assert extract_number(f"I think there are {_words(n)} of them.") == n


@given(st.integers(min_value=-(10**7), max_value=10**7), st.booleans())
def test_numerals_round_trip(n: int, grouped: bool) -> None:
    shown = f"{n:,}" if grouped else str(n)
    assert extract_number(f"Count: {shown}") == n


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda x: round(x, 3)))
def test_decimals_round_trip(x: float) -> None:
    assert extract_number(f"roughly {x!r} m") == x


# --- actions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"action": "move_forward", "distance": 1.5}\n```',
         {"action": "move_forward", "distance": 1.5}),
        ('I need a better view. {"action": "Move Left", "d": "0.5 m"}',
         {"action": "move_left", "distance": 0.5}),
        ('{"action": "move", "direction": "right", "distance": 2}',
         {"action": "move_right", "distance": 2.0}),
        ('{"action": "rotate", "direction": "left"}', {"action": "rotate_left", "angle": 45.0}),
        ('{"action": "rotate_right", "angle": 45}', {"action": "rotate_right", "angle": 45.0}),
        ('{"action": "scan forward"}', {"action": "scan_forward", "angle": 90.0}),
        ('{"action": "sweep_around", "angle": "360°"}', {"action": "sweep_around", "angle": 360.0}),
        ('{"action": {"name": "move_forward", "distance": 1}}',
         {"action": "move_forward", "distance": 1.0}),
        ('first {"action": "rotate_left"} then {"action": "move_forward", "distance": 1}',
         {"action": "move_forward", "distance": 1.0}),  # the last valid action wins
        ('<think>{"action": "sweep_around"}</think> {"action": "scan_forward"}',
         {"action": "scan_forward", "angle": 90.0}),
    ],
)  # fmt: skip
def test_actions(text: str, expected: dict) -> None:
    assert extract_action(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "jump"}',  # not in the action space
        '{"action": "move_forward"}',  # a move needs its distance
        '{"action": "move_forward", "distance": -1}',
        '{"action": "move_forward", "distance": "far"}',
        '{"action": "rotate_left", "angle": 90}',  # rotations have fixed angles
        "I will move forward one metre",  # prose is not the JSON interface
        '{"action": "move_forward", "distance": 1',  # broken JSON
        "[1, 2, 3]",
    ],
)
def test_invalid_actions(text: str) -> None:
    assert extract_action(text) is None


@given(st.sampled_from(["move_forward", "move_left", "move_right"]),
       st.floats(min_value=0.01, max_value=50, allow_nan=False))  # fmt: skip
def test_move_round_trip(name: str, d: float) -> None:
    text = "Observation insufficient.\n```json\n" + json.dumps({"action": name, "distance": d})
    assert extract_action(text + "\n```") == {"action": name, "distance": d}


def test_normalise_rejects_non_objects() -> None:
    assert normalise_action("move_forward") is None
    assert normalise_action({"distance": 1}) is None


def test_long_pathological_inputs() -> None:
    assert extract_number("answer" + " " * 20_000 + "is 4") == 4.0
    assert extract_number("1," * 10_000) == 1.0
    assert extract_action("{" * 5_000) is None
