"""The metrics of the seed papers, one small function each, with their edge cases pinned.

All scores are fractions in [0, 1]; tables scale them to percent when they print.  ``None`` in
a prediction sequence is an invalid (unparseable) answer.  What happens to it is the
benchmark's policy, not the metric's: OVO-S-Bench scores it wrong (use
:func:`score_prediction`, which returns 0 for choice items), VCBench leaves it out of the metric
and reports the invalid rate (the trajectory metrics below drop ``None`` points).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

# VSI-Bench MRA confidence thresholds θ ∈ {0.50, 0.55, …, 0.95}, written out so nobody has to
# trust a linspace.
MRA_THRESHOLDS: tuple[float, ...] = (0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95)
_EPS = 1e-9  # absorbs float representation: |105−100|/100 ≤ 1−0.95 must hold

GPA_SIGMA_FRACTION = 0.05  # VCBench eq. 1: σ_i = 0.05 · max(g_i, 1)


def accuracy(correct: Sequence[bool]) -> float | None:
    """Share of True; None for an empty sequence (no items means no score, not 0)."""
    if not correct:
        return None
    return sum(1 for c in correct if c) / len(correct)


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the non-None values; None when there are none."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def mean_relative_accuracy(pred: float, gt: float) -> float:
    """VSI-Bench Mean Relative Accuracy of one numeric answer.

    MRA = (1/10) Σ_θ 1[|p − g| / |g| ≤ 1 − θ] over θ ∈ :data:`MRA_THRESHOLDS`: a prediction
    within 5 % of the truth scores 1, one 50 % off or more scores 0, with 0.1 steps between.

    ``gt == 0`` (VSI-Bench divides by zero there; S3 counts can be 0) is defined as exact
    match: 1.0 when ``pred == 0``, else 0.0, since every relative error against 0 is infinite.
    A negative ground truth uses ``|g|``.  Non-finite predictions score 0.
    """
    if not math.isfinite(pred):
        return 0.0
    if not math.isfinite(gt):
        raise ValueError(f"expected a finite ground truth, got {gt!r}")
    if gt == 0:
        return 1.0 if pred == 0 else 0.0
    rel = abs(pred - gt) / abs(gt)
    hits = sum(1 for theta in MRA_THRESHOLDS if rel <= 1 - theta + _EPS)
    return hits / len(MRA_THRESHOLDS)


def score_prediction(
    prediction: str | float | None, answer: str | float, *, number_metric: str = "mra"
) -> float:
    """The per-query score used by accuracy-style tables: 0 for an invalid answer.

    Choice answers score 1/0 by letter; numbers by ``number_metric``: ``"mra"`` (S3-Bench,
    VSI-Bench), ``"gpa"`` (one point of VCBench eq. 1) or ``"exact"``.
    """
    if prediction is None:
        return 0.0
    if isinstance(answer, str):
        return 1.0 if isinstance(prediction, str) and prediction == answer else 0.0
    if isinstance(prediction, str):
        return 0.0
    if number_metric == "mra":
        return mean_relative_accuracy(float(prediction), float(answer))
    if number_metric == "gpa":
        return _gaussian_point(float(prediction), float(answer))
    if number_metric == "exact":
        return 1.0 if float(prediction) == float(answer) else 0.0
    raise ValueError(f"expected number_metric mra, gpa or exact, got {number_metric!r}")


# --------------------------------------------------------------------------------------------
# VCBench trajectory metrics (§3.3, eq. 1–3)


def _gaussian_point(p: float, g: float) -> float:
    if not math.isfinite(p):
        return 0.0
    sigma = GPA_SIGMA_FRACTION * max(g, 1.0)
    return math.exp(-((p - g) ** 2) / (2 * sigma**2))


def _valid_pairs(preds: Sequence[float | None], gts: Sequence[float]) -> list[tuple[float, float]]:
    if len(preds) != len(gts):
        raise ValueError(
            f"expected as many predictions as answers, got {len(preds)} and {len(gts)}"
        )
    return [(float(p), float(g)) for p, g in zip(preds, gts, strict=True) if p is not None]


def gaussian_precision_accuracy(
    preds: Sequence[float | None], gts: Sequence[float]
) -> float | None:
    """VCBench GPA of one question (eq. 1).

    GPA_q = (1/n) Σ_i exp(−(p_i − g_i)² / (2σ_i²)), σ_i = 0.05 · max(g_i, 1): 5 % of the truth,
    so predictions beyond ~15 % off (3σ) score near 0, and a truth of 0 gets σ = 0.05.  Invalid
    (None) points are left out of n (VCBench reports them as the invalid rate instead); a
    question with no valid point has no GPA (None).
    """
    pairs = _valid_pairs(preds, gts)
    if not pairs:
        return None
    return sum(_gaussian_point(p, g) for p, g in pairs) / len(pairs)


def monotonicity_consistency(preds: Sequence[float | None]) -> float | None:
    """VCBench MoC of one question (eq. 2): how far the trajectory stays non-decreasing.

    With v = min{i : p_{i+1} < p_i} (1-based; v = n when there is no violation),
    MoC_q = (v − 1) / (n − 1).  Defined for n ≥ 2 only: fewer valid points give None.  Invalid
    points are dropped first, so the comparison bridges them.  Note the paper's own caveat
    (App. 0.E.3): an all-zero trajectory scores 1.
    """
    p = [float(x) for x in preds if x is not None]
    n = len(p)
    if n < 2:
        return None
    v = next((i for i in range(1, n) if p[i] < p[i - 1]), n)  # 1-based first violation
    return (v - 1) / (n - 1)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def update_direction_accuracy(preds: Sequence[float | None], gts: Sequence[float]) -> float | None:
    """VCBench UDA of one question (eq. 3): does the prediction move when the truth moves?

    UDA_q = (1/(n−1)) Σ_{i<n} 1[sign(p_{i+1} − p_i) = sign(g_{i+1} − g_i)].  Defined for
    n ≥ 2 valid points (None otherwise); invalid points are dropped with their answers, so
    the step compares the neighbouring valid points.
    """
    pairs = _valid_pairs(preds, gts)
    if len(pairs) < 2:
        return None
    hits = sum(
        1 for (p0, g0), (p1, g1) in itertools.pairwise(pairs) if _sign(p1 - p0) == _sign(g1 - g0)
    )
    return hits / (len(pairs) - 1)
