"""Coverage: which seconds of the prefix reached the model (OVO-S-Bench §4.3.3, CR and ER).

The compression ratio (CR) is the share of the prefix's one-second bins that some retained
frame — or memory entry resting on a frame — falls in; evidence recall (ER) is the share of
the annotated evidence bins that did.  Both are computed per query from *times* only, so any
agent can report them (frames sent, keyframes shown, seconds a memory summarises) and the
report plots them the same way whatever built the request.  A time after the query is a
causality bug and raises, never a user error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from streamspatial.core.errors import CausalityError

_EPS = 1e-9


def _prefix_bins(query_time: float, bin_s: float) -> int:
    return max(1, math.ceil(query_time / bin_s - _EPS))


def retained_bins(kept_times: Iterable[float], query_time: float, bin_s: float = 1.0) -> set[int]:
    """The 1-s bins of the prefix that at least one retained frame falls in.

    A retained frame at time t covers bin ⌊t / bin_s⌋ — the seed's Figure 5a works in
    "retained 1-s bins".  A frame at exactly t_q counts in the last prefix bin.  A frame after
    t_q is a causality bug, never a user error.
    """
    n = _prefix_bins(query_time, bin_s)
    bins = set()
    for t in kept_times:
        if t > query_time + _EPS or t < 0:
            raise CausalityError(
                f"retained frame at {t:.3f}s is outside the prefix [0, {query_time:.3f}]s"
            )
        bins.add(min(int(t // bin_s), n - 1))
    return bins


def compression_ratio(kept_times: Iterable[float], query_time: float, bin_s: float = 1.0) -> float:
    """CR (§4.3.3): the share of the prefix's seconds that reached the model.

    A second "reached" the model when a retained frame lies in it; the prefix [0, t_q] has
    ⌈t_q⌉ one-second bins (at least one).  A uniform-128 policy on a 600 s prefix has CR
    128/600; keeping every frame of a 30 fps stream has CR 1.
    """
    return len(retained_bins(kept_times, query_time, bin_s)) / _prefix_bins(query_time, bin_s)


def evidence_bins(evidence: Iterable[tuple[float, float]], bin_s: float = 1.0) -> set[int]:
    """The 1-s bins that the annotated evidence intervals overlap (a point interval: its bin)."""
    bins: set[int] = set()
    for start, end in evidence:
        first = int(start // bin_s)
        last = max(first, math.ceil(end / bin_s - _EPS) - 1)
        bins.update(range(first, last + 1))
    return bins


def evidence_recall(
    kept_times: Iterable[float],
    evidence: Iterable[tuple[float, float]],
    query_time: float,
    bin_s: float = 1.0,
) -> float | None:
    """ER (§4.3.3): the share of annotated evidence seconds that reached the model.

    Evidence [12.5, 14.0] covers bins 12 and 13; a retained frame at 13.2 s reaches bin 13, so
    ER = 0.5.  Evidence annotated past the query time (releases annotate ``[t_start, t_q]`` or
    beyond) counts only up to ``t_q``: no frame after it may reach the model.  None when the
    query has no annotated evidence.
    """
    clipped = [(s, min(e, query_time)) for s, e in evidence if s <= query_time]
    wanted = evidence_bins(clipped, bin_s)
    if not wanted:
        return None
    return len(wanted & retained_bins(kept_times, query_time, bin_s)) / len(wanted)


@dataclass(frozen=True)
class Coverage:
    """CR and ER of one query, from the seconds that reached the model."""

    compression_ratio: float
    evidence_recall: float | None


def coverage(
    kept_times: Iterable[float], evidence: Iterable[tuple[float, float]], query_time: float
) -> Coverage:
    """CR and ER of one query from the times that reached the model (each ≤ ``query_time``)."""
    kept = [float(t) for t in kept_times]
    return Coverage(
        compression_ratio(kept, query_time), evidence_recall(kept, evidence, query_time)
    )


def within_prefix(times: Iterable[float], query_time: float) -> list[float]:
    """The distinct times in ``[0, t_q]``, sorted: what a memory's bookkeeping bounds (a node's
    first and last sighting, a fold's window) contribute to its coverage."""
    return sorted({float(t) for t in times if 0 <= t <= query_time})
