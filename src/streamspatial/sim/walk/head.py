"""How a walking person's head moves on top of the path: bob, glances, look-downs, drift.

These change only the eye height, yaw and pitch of each pose, never where the camera stands,
so the walk stays on free floor.  The draws come from the walk's own stream, after its path.
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.sim.walk.motion import Motion


def _smooth_noise(rng: np.random.Generator, n: int, fps: float, seconds: float) -> np.ndarray:
    """Unit-variance noise low-passed to a correlation time of ``seconds``."""
    k = max(1, round(seconds * fps))
    raw = rng.normal(size=n + 4 * k)
    win = np.hanning(4 * k + 1)
    out = np.convolve(raw, win / win.sum(), mode="same")[2 * k : 2 * k + n]
    return out / max(float(out.std()), 1e-9)


def head_motion(poses, motion: Motion, fps: float, rng: np.random.Generator):
    """Eye height, yaw offset and pitch offset per pose: bob, glances, look-downs, drift."""
    n = len(poses)
    moving = np.array([p[3] == "move" for p in poses], dtype=float)
    # Bob: a step-rate sine whose amplitude follows walking (eased in and out over ~0.3 s).
    ease = np.convolve(
        moving, np.ones(max(1, round(0.3 * fps))) / max(1, round(0.3 * fps)), mode="same"
    )
    phase = np.cumsum(moving) / fps * 2 * math.pi * motion.bob_hz
    z = (
        motion.eye_height
        + motion.bob_amplitude * ease * np.abs(np.sin(phase / 2)) * 2
        - (motion.bob_amplitude * ease)
    )
    dyaw = motion.drift * _smooth_noise(rng, n, fps, 1.5) if n > 1 else np.zeros(n)
    dpitch = motion.drift * _smooth_noise(rng, n, fps, 2.0) if n > 1 else np.zeros(n)
    # Glances: raised-cosine turns of the head, only while walking.
    i = 0
    while i < n:
        if moving[i] and rng.random() < motion.glance_rate / fps:
            length = max(2, round(float(rng.uniform(1.5, 2.5)) * fps))
            amp = float(rng.uniform(0.4, 1.0)) * motion.glance_angle * rng.choice([-1.0, 1.0])
            j = np.arange(min(length, n - i))
            dyaw[i : i + len(j)] += amp * 0.5 * (1 - np.cos(2 * math.pi * j / length))
            i += length
        i += 1
    # Look-downs: at a stop, now and then, at what stands on the furniture.
    still = np.array([p[3] in ("still", "sweep") for p in poses])
    i = 0
    while i < n:
        if still[i] and rng.random() < 0.3 / fps:
            length = max(2, round(float(rng.uniform(1.5, 3.0)) * fps))
            j = np.arange(min(length, n - i))
            dpitch[i : i + len(j)] -= (
                math.radians(15) * 0.5 * (1 - np.cos(2 * math.pi * j / length))
            )
            i += length
        i += 1
    return z, dyaw, dpitch


__all__ = ["head_motion"]
