"""Step 3 of the pipeline: dynamic happenings placed where the camera will look.

In: a :class:`~streamspatial.scene.types.House`, its walk (a
:class:`~streamspatial.scene.types.Trajectory`), the benchmark seed and the frame's aspect.
Out: the walk edited with watch holds and glance-backs (:mod:`.manoeuvres`) and a
:class:`~streamspatial.scene.schedule.Schedule` — actors, light switches and the events questions
count.  :mod:`.plan` runs the planner; :mod:`.holds`, :mod:`.carries` and :mod:`.changes` plan
what happens in a manoeuvre, :mod:`.lights_doors` what happens on the finished walk;
:mod:`.scene` and :mod:`.sightline` say where things can be and what the camera sees;
:mod:`.params` holds every constant with its source.
"""
