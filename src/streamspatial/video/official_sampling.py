"""The frame-sampling policies as OVO-S-Bench's official code computes them.

``--scorer official`` picks frames the way ``utils/frame_utils.py`` of the OVO-S-Bench
repository does, because a leaderboard number was produced by that code, not by the formulas
of App. A.1.  Where the two differ:

* the query frame is ``int(t_q · fps)`` (truncation), and ``uniform`` / ``log-decay`` /
  ``oracle-evidence`` lift a query frame of 0 to 1 (``if end_frame <= 0: end_frame = 1``);
* ``uniform-N`` is ``np.linspace(0, end, N, dtype=int)``, which *floors* (App. A.1 rounds),
  then de-duplicates; ``uniform-1`` is frame 0 (numpy's convention), not the query frame;
* ``nearest-N@Ffps`` steps by ``max(1, int(round(fps / F)))`` — Python's ``round``, which
  rounds halves to even — over ``range(max(0, end - (N-1)·step), end + 1, step)``, so a window
  clipped at the start of the video is anchored at frame 0 and may miss the query frame;
* ``log-decay-N`` samples each band ``[start, end - 1]``: the query frame itself is never
  shown; a band the prefix does not reach gives its budget to nobody but the last band, which
  takes ``N`` minus the frames already chosen (counting duplicates);
* ``oracle-evidence-N`` is uniform-N: ``inference.py`` builds each query without its
  ``evidence_times``, so ``extract_evidence_only`` always takes its no-evidence fallback.

Each function returns what the official code would request, before the video is read; the
caller clips to the prefix (:func:`clip_to_prefix`): decord clamps indices to the last frame,
and streamspatial never shows a frame after the query (the official uniform policy asks for
frame 1 at a query before the second frame; that one frame is the single deviation).

Arithmetic is numpy's float64 arithmetic, reproduced in plain Python so the module needs no
array library; the property tests compare it with numpy on random inputs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = [
    "clip_to_prefix",
    "floor_linspace",
    "official_end_frame",
    "official_log_decay",
    "official_nearest",
    "official_single",
    "official_uniform",
]

# log_decay bands of frame_utils.py: (seconds before the query, budget share), newest first.
LOG_DECAY_NEAR_S = 30
LOG_DECAY_MID_S = 300
LOG_DECAY_SHARES = (0.60, 0.30, 0.10)


def floor_linspace(start: int, stop: int, num: int) -> list[int]:
    """``np.linspace(start, stop, num, dtype=int).tolist()`` for integer ends.

    numpy computes ``k · ((stop - start) / (num - 1)) + start`` in float64, sets the last
    element to ``stop`` exactly, and floors (integer dtypes round toward −∞); ``num == 1``
    gives ``[start]``.
    """
    if num < 0:
        raise ValueError(f"num must be ≥ 0, got {num}")
    if num == 0:
        return []
    if num == 1:
        return [start]
    div = num - 1
    delta = float(stop - start)
    step = delta / div
    out = []
    for k in range(num):
        y = (float(k) / div) * delta if step == 0 else float(k) * step
        out.append(math.floor(y + start))
    out[-1] = stop
    return out


def official_end_frame(t_q: float, fps: float) -> int:
    """``int(query_time * video_fps)``: truncation, no tolerance for float error."""
    return int(t_q * fps)


def _lifted_end(t_q: float, fps: float) -> int:
    """``end_frame`` of the fixed-count samplers: 0 is lifted to 1."""
    end = official_end_frame(t_q, fps)
    return 1 if end <= 0 else end


def official_uniform(t_q: float, fps: float, n: int) -> list[int]:
    """``extract_frames_fixed_count`` (also the oracle's no-evidence fallback)."""
    return sorted(set(floor_linspace(0, _lifted_end(t_q, fps), n)))


def official_single(t_q: float, fps: float) -> list[int]:
    """``extract_single_frame_at_query``: ``max(0, int(t_q · fps))``."""
    return [max(0, official_end_frame(t_q, fps))]


def official_nearest(t_q: float, fps: float, n: int, rate: float) -> list[int]:
    """``extract_recent_window`` with ``nframes=n`` and ``window_fps=rate``."""
    end = max(0, official_end_frame(t_q, fps))
    step = max(1, round(fps / rate))  # int(round(...)) as coded: Python rounds halves to even
    start = max(0, end - (n - 1) * step)
    targets = list(range(start, end + 1, step))
    if len(targets) > n:
        targets = targets[-n:]
    return sorted(set(targets))


def official_log_decay(t_q: float, fps: float, n: int) -> list[int]:
    """``extract_log_decay``: bands of the last 30 s, 30 s–5 min and older, as coded."""
    end = max(1, official_end_frame(t_q, fps))
    near_start = max(0, end - int(LOG_DECAY_NEAR_S * fps))
    mid_start = max(0, end - int(LOG_DECAY_MID_S * fps))
    bands = (
        (near_start, end, LOG_DECAY_SHARES[0]),
        (mid_start, near_start, LOG_DECAY_SHARES[1]),
        (0, mid_start, LOG_DECAY_SHARES[2]),
    )
    targets: list[int] = []
    leftover = n
    for i, (s, e, share) in enumerate(bands):
        if e <= s:
            continue
        n_band = n - len(targets) if i == len(bands) - 1 else round(n * share)
        n_band = min(n_band, leftover)
        if n_band <= 0:
            continue
        targets += floor_linspace(s, e - 1, n_band)
        leftover -= n_band
        if leftover <= 0:
            break
    return sorted(set(targets)) or [0]


def clip_to_prefix(indices: Iterable[int], n_q: int) -> list[int]:
    """Clamp requested indices into ``[0, n_q]`` and de-duplicate, as decord's clamp to the
    last frame does; ``n_q`` is never past the query, so no later frame survives."""
    return sorted({min(max(int(i), 0), n_q) for i in indices})
