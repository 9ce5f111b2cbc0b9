"""How the camera moves on a walk: speeds, sweeps, the head's bob and glances, eye height.

A module of its own because both the walk's planner (:mod:`.nav`) and the head motion laid
over its path (:mod:`.head`) read it, and neither may import the other back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EYE_HEIGHT = 1.5


@dataclass(frozen=True)
class Motion:
    """How the camera moves; defaults are a calm walk-through."""

    walk_speed: float = 0.8  # m/s
    turn_speed: float = math.radians(45)  # rad/s when turning to face the path
    sweep_speed: float = math.radians(50)  # rad/s while sweeping at a stop
    sweep_angle: float = 2 * math.pi  # a full sweep; some stops sweep only 90–180°
    full_sweep_prob: float = 0.6  # at room centres
    pitch: float = math.radians(-10)  # slight look-down, like a hand-held camera
    eye_height: float = EYE_HEIGHT
    bob_amplitude: float = 0.02  # m, vertical head bob while walking
    bob_hz: float = 1.9  # steps per second
    glance_rate: float = 0.08  # glances aside per second of walking
    glance_angle: float = math.radians(40)  # the largest glance
    drift: float = math.radians(1.5)  # standard deviation of the slow head drift
    pause_prob: float = 0.25  # a stop starts with standing still for 0.5–2 s
    revisit_prob: float = 0.2  # the next stop goes back to a room already seen
    # Walk a doorway not yet walked between the current room and a room already seen as soon
    # as there is one: it closes a loop of the house, and OVO-S-Bench 3.3.2 (Obstacle-Aware
    # Rerouting) has an answer other than "no other way" only once the walk has shown a
    # second way.  Of 36 houses with a loop (seeds 24917, 38529, 777, 4242; 3-minute walks),
    # 24 walks closed one left to coverage, 32 with this.
    close_loops: bool = True
    postures: bool = True  # crouch or kneel at some stops (see .posture)


__all__ = ["EYE_HEIGHT", "Motion"]
