"""Step 4 of the pipeline: frames, video and ground truth.

In: a :class:`~streamspatial.scene.types.House`, a :class:`~streamspatial.scene.types.Trajectory`
and optionally a :class:`~streamspatial.scene.schedule.Schedule`.
Out: an H.264 mp4 and its ``.meta.json.gz`` (:mod:`.episode`): per frame the camera pose and
every visible instance with its pixels, 2D box and depth.

:mod:`.renderer` draws RGB, depth, ids and visibility with MuJoCo, in a child process
(:mod:`.process`); :mod:`.structure`, :mod:`.meshes` and :mod:`.door_leaf` build the scene with
the catalogue models' scene builder (:mod:`streamspatial.sim.house.assets.mjcf`), :mod:`.actors`
poses what moves, :mod:`.darkness` darkens unlit rooms and :mod:`.camera` adds what a real camera
adds.  :mod:`.scene` is the house as boxes, which
:mod:`.raycast` draws as the renderer's reference; :mod:`.gallery` and :mod:`.realism` show and
measure the footage.
"""
