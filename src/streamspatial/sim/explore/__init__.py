"""The simulator as a world an agent acts in (S3-Bench §4.3), beside the pipeline.

In: an episode's house and a recorded camera pose (or any house and pose).
Out: ``streamspatial/Explore-v0`` (:mod:`.env`), a Gymnasium environment with the seven
exploration actions (:mod:`.actions`), and :mod:`.world`, the simulator's side of the agents'
``ExplorationWorld`` interface, restoring an episode's house at the pose recorded at t_q;
:mod:`.plan` foresees which action sequences bring given objects into view (the labels of
training data's exploration examples).
"""
