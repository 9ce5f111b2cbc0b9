"""Eye height over a walk: a person crouches, kneels and stands up again at a stop.

OVO-S-Bench 1.1.4 (Viewpoint Height Perception, App. D) asks for the observer's current
elevation above the floor, read from the frame at the query time.  A walk at one eye height
would make that answer a constant, so at some stops the person lowers the camera — crouching to
look at something low, or kneeling / sitting — holds it there for a few seconds and stands up
before walking on.  Walking is always at standing height; every change is a smooth raised-cosine
transition of at least a second, as a person's own.

The schedule is drawn from its own random stream (seeded from the walk's), so the path, headings
and head motion of a walk are those it had before postures existed: only the height changes.

Eye heights are adult anthropometry, rounded (e.g. Pheasant & Haslegrave, *Bodyspace*, 3rd ed.:
standing eye height ≈ 1.5–1.6 m, kneeling ≈ 1.1–1.2 m, sitting on a chair ≈ 1.15–1.25 m,
squatting ≈ 0.7–0.9 m), narrowed so that the three postures stay at least 0.2 m apart and
a viewer of the frame could not hesitate between two of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# The lowered postures: name → eye-height range (m), drawn uniformly per lowering.
# Standing is the walk's own eye height (``Motion.eye_height``, 1.5 m by default).
LOWERED: dict[str, tuple[float, float]] = {
    "crouching": (0.65, 0.85),  # squatting to look at something low
    "kneeling": (1.05, 1.20),  # kneeling, or sitting on a chair
}
TRANSITION_S = (1.0, 1.5)  # going down or getting up: never faster than a second
HOLD_S = (2.0, 5.0)  # "several seconds" held low
LOWER_PROB = 0.6  # share of long-enough stops at which the person lowers the camera
STOP_MOTIONS = ("still", "sweep", "turn")  # standing in place (turns are on the spot)


def _stops(motions: Sequence[str]) -> list[tuple[int, int]]:
    """Maximal runs ``[start, end)`` of frames in which the camera stands in place."""
    out: list[tuple[int, int]] = []
    start = None
    for i, m in enumerate([*motions, "move"]):
        if m in STOP_MOTIONS and start is None:
            start = i
        elif m not in STOP_MOTIONS and start is not None:
            out.append((start, i))
            start = None
    return out


def _ease(n: int) -> np.ndarray:
    """Raised cosine from 0 to 1 over ``n`` frames (both ends flat)."""
    return 0.5 * (1 - np.cos(np.pi * np.arange(1, n + 1) / n))


def eye_heights(
    motions: Sequence[str], standing: float, fps: float, rng: np.random.Generator
) -> tuple[np.ndarray, list[str]]:
    """Per-frame eye height (m, before the walking bob) and posture name.

    Lowers at a share ``LOWER_PROB`` of the stops long enough for going down, a hold of at
    least ``HOLD_S[0]`` and getting up again; the posture is drawn evenly among ``LOWERED``.
    Frames going down or getting up are labelled ``"transition"``.
    """
    n = len(motions)
    z = np.full(n, float(standing))
    names = ["standing"] * n
    kinds = sorted(LOWERED)
    for a, b in _stops(motions):
        down = max(1, round(float(rng.uniform(*TRANSITION_S)) * fps))
        up = max(1, round(float(rng.uniform(*TRANSITION_S)) * fps))
        hold = round(float(rng.uniform(*HOLD_S)) * fps)
        lower = rng.random() < LOWER_PROB
        kind = kinds[int(rng.integers(len(kinds)))]
        low = float(rng.uniform(*LOWERED[kind]))
        shortest = max(1, round(TRANSITION_S[0] * fps))
        if (b - a) - down - up < round(HOLD_S[0] * fps):
            down = up = shortest  # a short stop: going down and up at the quickest
        room = (b - a) - down - up
        if not lower or room < round(HOLD_S[0] * fps):
            continue
        hold = min(hold, room)
        s = a + int(rng.integers(room - hold + 1))
        e = s + down + hold  # first frame of getting up
        z[s : s + down] = standing + (low - standing) * _ease(down)
        z[s + down : e] = low
        z[e : e + up] = low + (standing - low) * _ease(up)
        names[s : s + down] = ["transition"] * down
        names[s + down : e] = [kind] * hold
        names[e : e + up] = ["transition"] * up
    return z, names


__all__ = ["HOLD_S", "LOWERED", "LOWER_PROB", "TRANSITION_S", "eye_heights"]
