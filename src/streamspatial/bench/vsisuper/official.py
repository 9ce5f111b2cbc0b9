"""VSI-SUPER's official scoring code, rule by rule.

Each function restates one piece of a benchmark's published scoring code, quirks included, so
``--scorer official`` gives the leaderboard's reading of the same text; where that code would
crash, the function returns None and the caller records an invalid answer.  Sources
(repository: file, function):

* VSI-SUPER — the Cambrian-S lmms-eval tasks ``cambrians_vsr/utils.py`` (``fuzzy_matching``,
  ``exact_match``), ``cambrians_vsc/utils.py`` (``float(results[0])``,
  ``mean_relative_accuracy``) and ``cambrians_vsc_streaming/utils.py`` (``json.loads``, the
  ``abs_dist_norm`` that returns 0.0 on any error).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------------
# VSI-SUPER

_CONF = np.linspace(0.5, 0.95, int((0.95 - 0.5) / 0.05 + 2))


def vsisuper_count(response: str, truth: float) -> float | None:
    """``cambrians_vsc``: ``float(results[0])`` of the whole reply, MRA over the thresholds of
    ``np.linspace(.5, .95, 10)`` with ``<=`` and no tolerance (its 0.8 is 0.8000000000000000444,
    so a 20 % error scores 0.6, not 0.7); None where the task raises ("5 chairs", or a ground
    truth of 0)."""
    try:
        pred = float(response)
    except ValueError:
        return None
    if truth == 0:
        return None
    return float((abs(pred - truth) / truth <= 1 - _CONF).mean())


def vsisuper_stream_value(response: str) -> Any:
    """One element of the streaming reply list as ``json.loads`` gives it (the raw text when it
    is not JSON)."""
    try:
        return json.loads(response)
    except ValueError:
        return response


def vsisuper_stream(value: Any, truth: float) -> float:
    """``cambrians_vsc_streaming``: MRA whose ``abs_dist_norm`` returns 0.0 on any error — a
    non-number, or a ground truth of 0 — so such an answer scores a perfect 1.0."""
    try:
        rel = abs(value - truth) / truth
    except Exception:  # the task catches BaseException
        rel = 0.0
    return float((rel <= 1 - _CONF).mean())


__all__ = [
    "vsisuper_count",
    "vsisuper_stream",
    "vsisuper_stream_value",
]
