"""VSI-Bench's official answer reader, rule by rule: ``vision-x-nyu/thinking-in-space``,
``lmms_eval/tasks/vsibench/utils.py`` (``fuzzy_matching``, ``exact_match``, ``to_float``,
``mean_relative_accuracy``), quirks included.  VSI-SUPER's recall task reads its answers the
same way (:mod:`streamspatial.bench.vsisuper.score`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["vsi_exact_match", "vsi_first_token", "vsi_mra", "vsi_to_float"]

# --------------------------------------------------------------------------------------------
# VSI-Bench lmms_eval/tasks/vsibench/utils.py

# mean_relative_accuracy(start=.5, end=.95, interval=.05): int((.95 - .5) / .05 + 2) == 10
# thresholds from np.linspace, compared without tolerance, as the task computes them.
_VSI_CONF = np.linspace(0.5, 0.95, int((0.95 - 0.5) / 0.05 + 2))


def vsi_first_token(response: str | None) -> str:
    """``fuzzy_matching``: ``pred.split(' ')[0].rstrip('.').strip()`` (split on spaces only)."""
    return (response or "").split(" ")[0].rstrip(".").strip()


def vsi_exact_match(token: str, target: str) -> float:
    """``exact_match``: 1.0 when equal ignoring case."""
    return 1.0 if token.lower() == target.lower() else 0.0


def vsi_to_float(text: str | float | None) -> float | None:
    """``to_float``: Python's ``float``, None where it raises ("3 chairs" is None, "1e3" is
    1000, "nan" is nan)."""
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # the task catches BaseException; float raises only these
        return None


def vsi_mra(prediction: float | None, target: float | None) -> float:
    """``mean_relative_accuracy`` with the task's ``TypeError`` fallback to 0 (worst case).

    ``|p − t| / t ≤ 1 − θ`` over the ten float64 thresholds, no tolerance, divided by ``t``
    itself (not ``|t|``).  A target of 0 would raise ``ZeroDivisionError`` in the task; it is
    scored 0 here (VSI-Bench has no zero targets).
    """
    if prediction is None or target is None or target == 0:
        return 0.0
    rel = abs(prediction - target) / target
    return float((rel <= 1 - _VSI_CONF).mean())
