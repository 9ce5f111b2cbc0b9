"""Counting distractors: the true count is second largest or second smallest, never the median."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import LETTERS
from streamspatial.qc.counting import check_count_options, counting_distractors


def _follows_rule(values: list[int], letter: str, count: int, n: int) -> None:
    assert len(values) == n == len(set(values))
    assert values == sorted(values) and min(values) >= 0
    assert values[LETTERS.index(letter)] == count
    position = values.index(count)
    assert position in (1, n - 2)
    assert not (n % 2 == 1 and position == n // 2)  # never the median
    assert check_count_options(values, count) is None


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_every_count_0_to_50(n):
    with pytest.raises(StreamspatialError, match="count 0: a count below 1 cannot be"):
        counting_distractors(0, n)
    for count in range(1, 51):
        values, letter = counting_distractors(count, n, seed=count)
        _follows_rule(values, letter, count, n)


@settings(max_examples=300, deadline=None)
@given(count=st.integers(0, 50), n=st.integers(4, 7), seed=st.integers(0, 2**32))
def test_rule_for_any_seed(count, n, seed):
    if count == 0:
        with pytest.raises(StreamspatialError):
            counting_distractors(count, n, seed=seed)
        return
    values, letter = counting_distractors(count, n, seed=seed)
    _follows_rule(values, letter, count, n)


def test_both_ranks_occur_when_possible():
    positions = {counting_distractors(20, 5, seed=s)[0].index(20) for s in range(40)}
    assert positions == {1, 3}
    # With one count below 5 options need three counts under the truth: only second smallest.
    assert {counting_distractors(2, 5, seed=s)[0].index(2) for s in range(40)} == {1}


def test_wrong_counts_stay_near_the_truth():
    for seed in range(20):
        values, _ = counting_distractors(40, 5, seed=seed)
        assert all(abs(v - 40) <= 20 for v in values)
        values, _ = counting_distractors(3, 5, seed=seed)
        assert all(abs(v - 3) <= 5 for v in values)


@pytest.mark.parametrize("n", [2, 3, 8])
def test_option_count_outside_4_to_7_is_refused(n):
    with pytest.raises(StreamspatialError, match="expected 4–7 options"):
        counting_distractors(5, n)


@pytest.mark.parametrize(
    ("values", "correct", "why"),
    [
        ([1, 2, 3, 4, 5], 3, "the correct count is the median option"),
        ([1, 2, 3, 4, 5], 1, "the correct count is the smallest"),
        ([1, 2, 3, 4, 5], 5, "the correct count is the largest"),
        ([1, 2, 3, 4, 5], 2, None),
        ([1, 2, 3, 4, 5], 4, None),
        ([1, 2, 3, 4], 3, None),
        (
            [1, 2, 3, 4, 5, 6, 7],
            3,
            "the correct count is neither second smallest nor second largest",
        ),
        ([1, 2, 2, 4], 2, "duplicate counts"),
        ([1, 2, 3, 4], 9, "the correct count is not among the options"),
    ],
)
def test_check_count_options(values, correct, why):
    assert check_count_options(values, correct) == why


def test_cli_prints_lettered_options(capsys):
    from typer.testing import CliRunner

    from streamspatial.cli import app

    res = CliRunner().invoke(app, ["qc", "count-distractors", "--count", "7", "--seed", "3"])
    assert res.exit_code == 0, res.output
    values, letter = counting_distractors(7, 5, seed=3)
    lines = res.output.strip().splitlines()
    assert [int(line.split(". ")[1].split()[0]) for line in lines] == values
    assert [line[0] for line in lines if "← correct" in line] == [letter]
