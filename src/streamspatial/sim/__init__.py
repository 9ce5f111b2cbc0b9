"""Procedural indoor simulator: houses, trajectories, rendering, video export, exploration env.

Laid out as its pipeline, each step a subpackage whose docstring says what goes in and what
comes out: :mod:`.house` → :mod:`.walk` → :mod:`.events` → :mod:`.render` → :mod:`.qa`, run in
order by :mod:`.generate` through :mod:`.pipeline` (units of work, local or Ray executors,
stage times, the forecast of short families); :mod:`.explore` is the world an agent acts in.
An earlier step never imports a later one (``tests/project/test_import_graph.py``).  What the steps
share with everything that reads an episode — houses, trajectories, per-frame ground truth,
the schedule of what moves, the category vocabulary, the door-leaf convention, the camera's
field of view and visibility threshold, the random streams — is the scene contract,
:mod:`streamspatial.scene`, below this package.

Importing this package registers the Gymnasium environment ``streamspatial/Explore-v0`` (lazily:
MuJoCo is imported only when the environment is made).
"""

from __future__ import annotations

import os

# Headless GL by default; must happen before anything imports mujoco (see sim.render).
os.environ.setdefault("MUJOCO_GL", "egl")

ENV_ID = "streamspatial/Explore-v0"


def _register_env() -> None:
    try:
        import gymnasium
    except ImportError:  # the [sim] extra is not installed: nothing to register
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="streamspatial.sim.explore.env:ExploreEnv")


_register_env()

__all__ = ["ENV_ID"]
