"""The scene contract: what a simulated (or scanned) episode is, below everything that reads one.

The simulator (:mod:`streamspatial.sim`) produces episodes; the question generators, the
ground-truth perception, the memory agents, the real-scan reader and the training export read
them.  What they must agree on lives here, so that reading an episode never pulls in the
simulator (MuJoCo, the furniture library, the renderer):

* :mod:`.types` — houses, camera trajectories, per-frame visibility and the episode metadata
  file (:class:`~.types.EpisodeMeta`), with the world's conventions;
* :mod:`.schedule` — what moves, switches or changes in a dynamic episode, as a function of time;
* :mod:`.catalog` — the vocabulary: room programs, object categories, the colour names;
* :mod:`.doors` — the door-leaf convention (the numbers of a swinging leaf's track), which the
  event planner writes and the renderer draws;
* :mod:`.camera` — the field of view and the pixels an object needs to count as seen;
* :mod:`.streams` — every random stream's number, so each step draws from its own.

Nothing here imports anything of the project but :mod:`streamspatial.core`, or a third-party
package but NumPy.
"""
