"""Every random stream of the simulator, by number, and why each step draws from its own.

A benchmark is a pure function of ``(split, seed)``.  Each step draws from a NumPy PCG64
stream seeded by a short list of integers, ``np.random.default_rng([house seed, tag])`` for
what belongs to a house and ``np.random.default_rng([house seed, walk seed, tag])`` for what
belongs to one walk through it.  A step gets a stream of its own when it was added after the
steps it follows, or when it must be switchable without moving them: with its own stream, the
house, the path and the frames drawn before it stay exactly what they were.

The numbers are the seeds of every benchmark made so far: changing one changes every video
drawn from it, so they stay as they are (their values are arbitrary, their distinctness is not).

Streams keyed by text rather than numbers (``random.Random`` seeded by a string):

* ``"houses:{split}:{seed}"`` — the house seeds of a split
  (:func:`~streamspatial.sim.pipeline.config.house_seeds`);
* ``"{seed}:{episode}:{family}"``, ``"{seed}:letters:{family}"``, ``"{seed}:arrange"`` — which
  frames each question family tries, the letter order of its options and the order of the
  items (:class:`~streamspatial.sim.qa.QuestionGenerator`); the letters and order of the
  g-th group of walks asked together (:mod:`~streamspatial.sim.pipeline.jobs`, g ≥ 1) draw from
  ``"{seed}/{g}:letters:{family}"`` and ``"{seed}/{g}:arrange"``;
* ``"ibp:{seed}"``, ``"fill:{seed}"`` — Iterative Bias Pruning and the reserve it fills from
  (:mod:`streamspatial.qc.prune`).
"""

from __future__ import annotations

# -------------------------------------------------- a house's: [house seed, tag]
HOUSE = 4  # the layout: room count, program, plan, doors, furniture, small objects
LOOP_DOORS = 41  # the extra doors that close loops (added after the door tree)
CLEARED_TOPS = 43  # which supporting tops stay clear (added after the small objects)
STRUCTURE = 77  # the rooms' looks: surface patterns, windows, baked images, pictures
SKIN = 78  # the render of the outer walls, apart from the rooms' looks
DOOR_LEAF = 91  # [house seed, DOOR_LEAF, door id]: how each door's own leaf hangs, door by door

# -------------------------------------------------- a walk's: [house seed, walk seed, tag]
WALK = 7  # the walk: stops, route, pauses, sweeps, head motion
SPIN = 11  # the rotating-camera probe: which room centre it stands at, its first heading
POSTURE = 13  # crouching and kneeling at stops (added after the head motion)
EVENTS = 23  # the event planner (a walk with --no-events is the same walk without them)

# -------------------------------------------------- fixed: the same in every house
GRAIN = 12345  # the fine grain texture shared by every untextured part
NOISE_BANK = 2024  # the noise fields the surface patterns crop from

# Per frame, the camera's sensor noise draws from [house seed, frame index]
# (:class:`~streamspatial.sim.render.camera.CameraLook`), and a window's curtains from the
# CRC-32 of the window's geom name (:mod:`streamspatial.sim.render.structure`).

__all__ = [
    "CLEARED_TOPS",
    "DOOR_LEAF",
    "EVENTS",
    "GRAIN",
    "HOUSE",
    "LOOP_DOORS",
    "NOISE_BANK",
    "POSTURE",
    "SKIN",
    "SPIN",
    "STRUCTURE",
    "WALK",
]
