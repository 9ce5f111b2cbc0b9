"""Metric values computed by hand, the seeds' edge cases, and range/monotonicity invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from streamspatial.core.errors import CausalityError
from streamspatial.grading.metrics import (
    MRA_THRESHOLDS,
    accuracy,
    gaussian_precision_accuracy,
    mean_relative_accuracy,
    monotonicity_consistency,
    score_prediction,
    update_direction_accuracy,
)
from streamspatial.video.coverage import compression_ratio, evidence_bins, evidence_recall

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
counts = st.integers(min_value=0, max_value=500).map(float)


def test_accuracy() -> None:
    assert accuracy([True, False, True, True]) == 0.75
    assert accuracy([]) is None


def test_mra_thresholds_are_the_vsibench_ten() -> None:
    assert MRA_THRESHOLDS == (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


@pytest.mark.parametrize(
    ("pred", "gt", "expected"),
    [
        (100, 100, 1.0),
        (105, 100, 1.0),  # 5 % off: within every threshold (boundary included)
        (106, 100, 0.9),  # misses only θ = 0.95
        (110, 100, 0.9),  # 10 % off: θ ≤ 0.90 hit
        (130, 100, 0.5),  # 30 % off: θ ∈ {0.50 … 0.70}
        (150, 100, 0.1),  # 50 % off: only θ = 0.50
        (151, 100, 0.0),
        (0, 100, 0.0),
        (-2.2, -2.0, 0.9),  # negative truth uses |g|
        (0, 0, 1.0),  # gt == 0: exact match only
        (0.001, 0, 0.0),
        (math.inf, 3, 0.0),
    ],
)
def test_mra_known_values(pred: float, gt: float, expected: float) -> None:
    assert mean_relative_accuracy(pred, gt) == pytest.approx(expected)


@given(finite, finite)
def test_mra_in_unit_interval(p: float, g: float) -> None:
    assert 0.0 <= mean_relative_accuracy(p, g) <= 1.0


@given(finite, finite.filter(lambda g: g != 0))
def test_mra_is_one_exactly_within_five_percent(p: float, g: float) -> None:
    # MRA = 1 iff every threshold is hit, i.e. |p − g| ≤ 5 % of |g| (exact answers included).
    rel = abs(p - g) / abs(g)
    assume(abs(rel - 0.05) > 1e-6)
    assert (mean_relative_accuracy(p, g) == 1.0) == (rel < 0.05)
    assert mean_relative_accuracy(g, g) == 1.0


@given(finite.filter(lambda g: abs(g) > 1e-3), st.floats(0, 3), st.floats(0, 3))
def test_mra_monotone_in_error(g: float, e1: float, e2: float) -> None:
    small, large = sorted((e1, e2))
    assert mean_relative_accuracy(g + small * g, g) >= mean_relative_accuracy(g + large * g, g)


# --- VCBench eq. 1–3 ------------------------------------------------------------------------


def test_gpa_known_values() -> None:
    # σ = 0.05·max(g, 1): g = 10 → σ = 0.5; one off → exp(−1 / 0.5) = e^−2.
    assert gaussian_precision_accuracy([10, 11], [10, 10]) == pytest.approx((1 + math.exp(-2)) / 2)
    # g = 0 → σ = 0.05; predicting 1 → exp(−1 / 0.005) = e^−200.
    assert gaussian_precision_accuracy([1], [0]) == pytest.approx(math.exp(-200))
    assert gaussian_precision_accuracy([0], [0]) == 1.0
    # g = 40 → σ = 2; 3σ = 6 off → exp(−4.5).
    assert gaussian_precision_accuracy([46], [40]) == pytest.approx(math.exp(-4.5))


def test_gpa_leaves_invalid_points_out() -> None:
    assert gaussian_precision_accuracy([None, 10], [3, 10]) == 1.0
    assert gaussian_precision_accuracy([None, None], [3, 10]) is None
    with pytest.raises(ValueError, match="as many"):
        gaussian_precision_accuracy([1, 2], [1])


@pytest.mark.parametrize(
    ("preds", "expected"),
    [
        ([1, 2, 3], 1.0),  # no violation: v = n
        ([1, 1, 1, 1], 1.0),  # non-decreasing, the paper's all-zeros caveat
        ([1, 2, 1, 3], 1 / 3),  # first violation at i = 2: (2 − 1)/(4 − 1)
        ([3, 1, 2], 0.0),  # violation at i = 1
        ([1, 2, 3, 2], 2 / 3),
        ([1, None, 0], 0.0),  # invalid point dropped: [1, 0]
        ([5], None),  # n < 2: undefined
        ([None, 5], None),
    ],
)
def test_moc(preds: list, expected: float | None) -> None:
    assert monotonicity_consistency(preds) == expected


@pytest.mark.parametrize(
    ("preds", "gts", "expected"),
    [
        ([1, 2, 2], [1, 2, 3], 0.5),  # up/up hit; flat/up miss
        ([1, 2, 3], [1, 2, 3], 1.0),
        ([3, 2, 2], [1, 1, 1], 0.5),  # down/flat miss; flat/flat hit
        ([5, 5, 5], [5, 4, 6], 0.0),
        ([1, None, 3], [1, 2, 2], 1.0),  # bridges the invalid point: 1→3 vs 1→2
        ([1], [1], None),
    ],
)
def test_uda(preds: list, gts: list, expected: float | None) -> None:
    assert update_direction_accuracy(preds, gts) == expected


trajectory = st.lists(st.tuples(st.one_of(st.none(), counts), counts), min_size=1, max_size=12)


@given(trajectory)
def test_trajectory_metrics_in_unit_interval(pairs: list) -> None:
    preds = [p for p, _ in pairs]
    gts = [g for _, g in pairs]
    for value in (
        gaussian_precision_accuracy(preds, gts),
        monotonicity_consistency(preds),
        update_direction_accuracy(preds, gts),
    ):
        assert value is None or 0.0 <= value <= 1.0


@given(st.lists(counts, min_size=1, max_size=12))
def test_perfect_predictions_score_one(gts: list) -> None:
    assert gaussian_precision_accuracy(gts, gts) == 1.0
    if len(gts) >= 2:
        assert update_direction_accuracy(gts, gts) == 1.0
        assert monotonicity_consistency(sorted(gts)) == 1.0


# --- score_prediction -----------------------------------------------------------------------


def test_score_prediction() -> None:
    assert score_prediction("B", "B") == 1.0
    assert score_prediction("C", "B") == 0.0
    assert score_prediction(None, "B") == 0.0  # OVO-S: invalid is wrong
    assert score_prediction(110.0, 100.0) == pytest.approx(0.9)
    assert score_prediction(11.0, 10.0, number_metric="gpa") == pytest.approx(math.exp(-2))
    assert score_prediction(3.0, 3.0, number_metric="exact") == 1.0
    assert score_prediction("B", 3.0) == 0.0
    with pytest.raises(ValueError, match="number_metric"):
        score_prediction(1.0, 1.0, number_metric="rmse")


# --- ER / CR (OVO-S §4.3.3) -----------------------------------------------------------------


def test_compression_ratio_counts_reached_seconds() -> None:
    assert compression_ratio([0.5, 1.2, 1.8, 3.9], query_time=10.0) == pytest.approx(0.3)
    assert compression_ratio([0.0, 2.4], query_time=2.5) == pytest.approx(2 / 3)  # 3 bins
    assert compression_ratio([10.0], query_time=10.0) == pytest.approx(0.1)  # t_q in bin 9
    assert compression_ratio([], query_time=0.0) == 0.0
    assert compression_ratio([i / 30 for i in range(301)], query_time=10.0) == 1.0


def test_evidence_recall() -> None:
    assert evidence_bins([(12.5, 14.0)]) == {12, 13}
    assert evidence_bins([(3.0, 3.0)]) == {3}
    assert evidence_recall([13.2], [(12.5, 14.0)], query_time=20) == 0.5
    assert evidence_recall([0.1, 5.5], [(0, 1), (5, 6)], query_time=20) == 1.0
    assert evidence_recall([1.0], [], query_time=20) is None


def test_frames_after_query_time_are_a_causality_bug() -> None:
    with pytest.raises(CausalityError):
        compression_ratio([1.0, 10.5], query_time=10.0)


@given(st.lists(st.floats(0, 100), max_size=50), st.floats(0.1, 100))
def test_cr_in_unit_interval(times: list, tq: float) -> None:
    kept = [t for t in times if t <= tq]
    assert 0.0 <= compression_ratio(kept, tq) <= 1.0
