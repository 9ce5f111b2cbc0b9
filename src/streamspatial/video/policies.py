"""Frame-sampling policies: which frame indices of the prefix ``[0, n_q]`` a query gets.

The definitions follow OVO-S-Bench App. A.1 exactly, plus the UCS-Bench streaming
window (UCS-Bench App. C) and a text-only ``none``.  Every policy is a pure function of
``(spec, n_q, fps, evidence)`` and returns sorted, unique indices in ``[0, n_q]`` — so it can
never select content posterior to the query, and :class:`~streamspatial.video.PrefixView`
double-checks that anyway.

Rounding is round-half-up done in exact integer arithmetic (``round(p/q) = (2p + q) // 2q``),
so results do not depend on float error or on banker's rounding.  Where rounding produces the
same index twice the duplicate is dropped; the cases where that can shrink the set are listed
per policy below.

======================  ======================================================================
spec                    frames
======================  ======================================================================
``none``                ``[]`` (text-only baseline)
``single@query``        ``[n_q]``
``nearest-N@Ffps``      ``n_q - kΔ`` for ``0 ≤ k < N`` while ``≥ 0``, ``Δ = max(1, round(f/F))``
                        (``nearest-16f@4fps`` is accepted as the paper spells it)
``uniform-N``           ``round(k n_q / (N-1))``, ``0 ≤ k < N``; all of ``[0, n_q]`` when
                        ``n_q + 1 ≤ N`` (so it never repeats a frame); ``uniform-1`` is
                        ``[n_q]``
``log-decay-N``         bands of the last 30 s / 30–300 s / older with weights .6/.3/.1,
                        each sampled uniformly (see :func:`_log_decay`)
``oracle-evidence-N``   budget split over evidence intervals (offline; see :func:`_oracle`)
``window-K@Ffps/Ws``    the most recent K frames at F fps within the last W seconds
                        (UCS-Bench streaming window); ``window-K/Ws`` uses every frame
======================  ======================================================================

Those are the *paper* rules.  ``rules="official"`` computes the same policies the way
OVO-S-Bench's official code does (floor linspace, Python rounding, its log-decay and oracle as
coded; see :mod:`streamspatial.video.official_sampling`), which is what ``--scorer official``
runs with; the window policy has no official implementation and is the same under both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from streamspatial.core.errors import InputError, Problem
from streamspatial.video import official_sampling as off

__all__ = ["PolicySpec", "parse_policy", "select_frames"]

LOG_DECAY_BANDS_S = (30.0, 300.0)
# Policies whose frames are evenly spaced in time (PolicySpec.evenly_spaced).
EVEN_KINDS = frozenset({"single", "nearest", "uniform", "window"})
LOG_DECAY_WEIGHTS = (Fraction(6, 10), Fraction(3, 10), Fraction(1, 10))
ORACLE_DEFAULT_N = 128

_NUM = r"(\d+(?:\.\d+)?)"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("none", re.compile(r"none")),
    ("single", re.compile(r"single@query")),
    ("nearest", re.compile(rf"nearest-(\d+)f?@{_NUM}fps")),
    ("uniform", re.compile(r"uniform-(\d+)")),
    ("log-decay", re.compile(r"log-decay-(\d+)")),
    ("oracle-evidence", re.compile(r"oracle-evidence(?:-(\d+))?")),
    ("window", re.compile(rf"window-(\d+)(?:@{_NUM}fps)?/{_NUM}s")),
]
_EXPECTED = (
    "expected one of none, single@query, nearest-N@Ffps, uniform-N, log-decay-N, "
    "oracle-evidence[-N], window-K@Ffps/Ws (N, K ≥ 1; F, W > 0)"
)


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy spec.  ``offline`` is true only for oracle-evidence, which reads answers'
    evidence and therefore must be labelled offline wherever its results appear."""

    kind: str
    n: int = 0  # frame budget (K for window); 0 for none, 1 for single@query
    rate: float | None = None  # F, sampling rate in fps (nearest, window)
    window_s: float | None = None  # W (window)

    @property
    def offline(self) -> bool:
        return self.kind == "oracle-evidence"

    @property
    def evenly_spaced(self) -> bool:
        """Whether the frames it picks are evenly spaced in time (to a frame's rounding), so
        they may go to a model as one video: uniform, nearest, window and single picks are;
        log-decay's bands and the oracle's evidence spans are not."""
        return self.kind in EVEN_KINDS

    def __str__(self) -> str:
        if self.kind == "none":
            return "none"
        if self.kind == "single":
            return "single@query"
        if self.kind == "nearest":
            return f"nearest-{self.n}@{_fmt(self.rate)}fps"
        if self.kind == "window":
            rate = "" if self.rate is None else f"@{_fmt(self.rate)}fps"
            return f"window-{self.n}{rate}/{_fmt(self.window_s)}s"
        return f"{self.kind}-{self.n}"


def _fmt(x: float | None) -> str:
    assert x is not None
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def parse_policy(spec: str | PolicySpec) -> PolicySpec:
    """Parse a spec string; a bad one raises :class:`InputError` naming it and the grammar."""
    if isinstance(spec, PolicySpec):
        return spec
    text = str(spec).strip()
    for kind, pattern in _PATTERNS:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        if kind == "none":
            return PolicySpec("none", 0)
        if kind == "single":
            return PolicySpec("single", 1)
        if kind == "oracle-evidence":
            n = int(m.group(1)) if m.group(1) else ORACLE_DEFAULT_N
            result = PolicySpec(kind, n)
        elif kind == "nearest":
            result = PolicySpec(kind, int(m.group(1)), rate=float(m.group(2)))
        elif kind == "window":
            rate = float(m.group(2)) if m.group(2) else None
            result = PolicySpec(kind, int(m.group(1)), rate=rate, window_s=float(m.group(3)))
        else:
            result = PolicySpec(kind, int(m.group(1)))
        if result.n < 1 or result.rate == 0 or result.window_s == 0:
            break
        return result
    raise InputError(Problem(file="policy spec", field="", expected=f"got {text!r}; {_EXPECTED}"))


RULES = ("paper", "official")


def select_frames(
    spec: str | PolicySpec,
    n_q: int,
    fps: float,
    evidence: Iterable[tuple[float, float]] | None = None,
    *,
    rules: str = "paper",
    t_q: float | None = None,
) -> list[int]:
    """Frame indices (sorted, unique, within ``[0, n_q]``) that ``spec`` feeds a query at ``n_q``.

    ``evidence`` is a list of ``(start_s, end_s)`` intervals in seconds, read only by the
    paper's oracle-evidence; every other policy ignores it.  ``rules="official"`` follows
    OVO-S-Bench's code, which works from the query time ``t_q`` itself (``n_q / fps`` when not
    given) and is clipped to ``[0, n_q]``.
    """
    policy = parse_policy(spec)
    if n_q < 0:
        raise ValueError(f"n_q must be ≥ 0, got {n_q}")
    if fps <= 0:
        raise ValueError(f"fps must be > 0, got {fps}")
    if rules not in RULES:
        raise ValueError(f"rules must be one of {', '.join(RULES)}, got {rules!r}")
    if rules == "official" and policy.kind != "window":
        return _official(policy, n_q, fps, n_q / fps if t_q is None else t_q)
    kind = policy.kind
    if kind == "none":
        return []
    if kind == "single":
        return [n_q]
    if kind == "nearest":
        assert policy.rate is not None
        return _recent(n_q, policy.n, _step(fps, policy.rate), lowest=0)
    if kind == "window":
        assert policy.window_s is not None
        step = 1 if policy.rate is None else _step(fps, policy.rate)
        lowest = max(0, n_q - math.floor(policy.window_s * fps + 1e-9))
        return _recent(n_q, policy.n, step, lowest=lowest)
    if kind == "uniform":
        return uniform_frames(n_q, policy.n)
    if kind == "log-decay":
        return _log_decay(n_q, policy.n, fps)
    return _oracle(n_q, policy.n, fps, list(evidence or ()))


def _official(policy: PolicySpec, n_q: int, fps: float, t_q: float) -> list[int]:
    kind = policy.kind
    if kind == "none":
        return []
    if kind == "single":
        wanted = off.official_single(t_q, fps)
    elif kind == "nearest":
        assert policy.rate is not None
        wanted = off.official_nearest(t_q, fps, policy.n, policy.rate)
    elif kind == "log-decay":
        wanted = off.official_log_decay(t_q, fps, policy.n)
    else:  # uniform, and oracle-evidence (the official oracle never sees evidence)
        wanted = off.official_uniform(t_q, fps, policy.n)
    return off.clip_to_prefix(wanted, n_q)


def _round_div(p: int, q: int) -> int:
    """round(p / q), halves up, exactly (q > 0)."""
    return (2 * p + q) // (2 * q)


def _step(fps: float, rate: float) -> int:
    ratio = Fraction(fps).limit_denominator(1001) / Fraction(rate).limit_denominator(1001)
    return max(1, _round_div(ratio.numerator, ratio.denominator))


def _recent(n_q: int, count: int, step: int, *, lowest: int) -> list[int]:
    """``n_q, n_q - step, ...`` — at most ``count`` of them, none below ``lowest``."""
    return sorted(n_q - k * step for k in range(count) if n_q - k * step >= lowest)


def linspace_frames(start: int, end: int, count: int) -> list[int]:
    """``round(linspace(start, end, count))`` without duplicates; ``count == 1`` gives ``start``
    (numpy's convention) and ``count ≥ end - start + 1`` gives every frame of the range."""
    if count <= 0 or end < start:
        return []
    if count == 1:
        return [start]
    span = end - start
    if count >= span + 1:
        return list(range(start, end + 1))
    return [start + _round_div(k * span, count - 1) for k in range(count)]


def uniform_frames(n_q: int, n: int) -> list[int]:
    """uniform-N over ``[0, n_q]``; ``n == 1`` gives the query frame (the causal choice)."""
    if n == 1:
        return [n_q]
    return linspace_frames(0, n_q, n)


def _apportion(total: int, weights: Sequence[Fraction], sizes: Sequence[int]) -> list[int]:
    """Split ``total`` by ``weights`` as App. A.1 does (round every share but the last, which
    takes the remainder), never giving a band more than its ``sizes`` frames: a band's surplus
    rolls into the others, in proportion to their weights.  A missing band has size 0."""
    alloc = [0] * len(weights)
    active = [i for i, s in enumerate(sizes) if s > 0]
    remaining = min(total, sum(sizes))
    while active and remaining > 0:
        w_sum = sum(weights[i] for i in active)
        share: dict[int, int] = {}
        for i in active[:-1]:
            q = weights[i] * remaining / w_sum
            share[i] = _round_div(q.numerator, q.denominator)
        share[active[-1]] = remaining - sum(share.values())
        over = [i for i in active if share[i] > sizes[i]]
        if not over:
            if share[active[-1]] < 0:  # only possible for tiny totals: take it from the largest
                share[max(active[:-1], key=lambda i: share[i])] += share[active[-1]]
                share[active[-1]] = 0
            for i in active:
                alloc[i] = share[i]
            break
        for i in over:
            alloc[i] = sizes[i]
            remaining -= sizes[i]
            active.remove(i)
    return alloc


def _log_decay(n_q: int, n: int, fps: float) -> list[int]:
    """Three recency bands, most recent first: ``[n_q - β1 f, n_q]``, ``[n_q - β2 f, n_q - β1 f)``
    and ``[0, n_q - β2 f)``, budgets ``round(.6N)``, ``round(.3N)``, the rest.

    Bands are made disjoint (the older band stops one frame before the newer one starts) so the
    shared boundary frame is not counted twice.  A band the prefix does not reach is missing and
    its budget rolls into the surviving bands by weight; so does the surplus of a band with fewer
    frames than its budget.  Hence the result has exactly ``min(N, n_q + 1)`` frames.
    """
    b1 = max(0, n_q - math.floor(LOG_DECAY_BANDS_S[0] * fps + 1e-9))
    b2 = max(0, n_q - math.floor(LOG_DECAY_BANDS_S[1] * fps + 1e-9))
    bands = [(b1, n_q), (b2, b1 - 1), (0, b2 - 1)]
    sizes = [max(0, e - s + 1) for s, e in bands]
    budgets = _apportion(n, LOG_DECAY_WEIGHTS, sizes)
    chosen: set[int] = set()
    for (s, e), m in zip(bands, budgets, strict=True):
        chosen.update(linspace_frames(s, e, m))
    return sorted(chosen)


def _oracle(n_q: int, n: int, fps: float, evidence: list[tuple[float, float]]) -> list[int]:
    """oracle-evidence-N: intervals mapped to frames (``floor(t f)``) and clipped to ``n_q``;
    ``N_i = max(1, round(N L_i / ΣL))`` with ``L_i = ẽ_i - s̃_i``, the rounding error corrected
    on the longest interval (first among equals); each interval sampled by linspace.

    Intervals entirely after the query are dropped; with none left — or no evidence at all — the
    policy is uniform-N.  Overlapping intervals, or intervals shorter than their budget, yield
    fewer than N distinct frames: the oracle does not invent frames outside the evidence.
    If every interval is a single frame (ΣL = 0) each gets one frame.
    """
    frames: list[tuple[int, int]] = []
    for start_s, end_s in evidence:
        s = max(0, math.floor(float(start_s) * fps + 1e-9))
        e = min(n_q, math.floor(float(end_s) * fps + 1e-9))
        if s <= n_q and e >= s:
            frames.append((s, e))
    if not frames:
        return uniform_frames(n_q, n)
    lengths = [e - s for s, e in frames]
    total = sum(lengths)
    if total == 0:
        budgets = [1] * len(frames)
    else:
        budgets = [max(1, _round_div(n * length, total)) for length in lengths]
        longest = max(range(len(frames)), key=lambda i: (lengths[i], -i))
        budgets[longest] = max(1, budgets[longest] + n - sum(budgets))
    chosen: set[int] = set()
    for (s, e), m in zip(frames, budgets, strict=True):
        chosen.update(linspace_frames(s, e, m))
    return sorted(chosen)
