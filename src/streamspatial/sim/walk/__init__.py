"""Step 2 of the pipeline: a walk through the house.

In: a :class:`~streamspatial.scene.types.House`, a duration, a frame rate and the benchmark seed.
Out: a :class:`~streamspatial.scene.types.Trajectory` — camera poses at ``i / fps`` that look like
a person scanning a home: :mod:`.nav` picks the stops and the route between them, :mod:`.route`
finds and smooths the legs on the occupancy grid, :mod:`.head` moves the head as a walking
person's does, :mod:`.posture` lowers the eye at some stops; :mod:`.spin` is the
rotating-camera probe (a camera turning in place).
"""
