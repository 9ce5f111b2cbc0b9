"""Procedural indoor simulator: houses, trajectories, rendering, video export, exploration env.

Laid out as its pipeline, each step a subpackage whose docstring says what goes in and what
comes out: :mod:`.house` → :mod:`.walk` → :mod:`.events` → :mod:`.render` → :mod:`.qa`, run in
order by :mod:`.generate` through :mod:`.pipeline` (units of work, local or Ray executors,
stage times, the forecast of short families); :mod:`.explore` is the world an agent acts in.
The steps share three contracts: :mod:`.types` (houses, trajectories, per-frame ground truth),
:mod:`.schedule` (what moves, as a function of time) and :mod:`.streams` (every random
stream's number).

Importing this package registers the Gymnasium environment ``streamspatial/Explore-v0`` (lazily:
MuJoCo is imported only when the environment is made).
"""

from __future__ import annotations

import os

# Headless GL by default; must happen before anything imports mujoco (see sim.render).
os.environ.setdefault("MUJOCO_GL", "egl")

from streamspatial.sim.types import (
    CameraPose,
    Door,
    EpisodeMeta,
    FrameRecord,
    House,
    Intrinsics,
    Room,
    SceneObject,
    Trajectory,
    Visible,
    WallSegment,
    load_episode_meta,
    meta_path_for,
    save_episode_meta,
)

ENV_ID = "streamspatial/Explore-v0"


def _register_env() -> None:
    try:
        import gymnasium
    except ImportError:  # the [sim] extra is not installed: nothing to register
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="streamspatial.sim.explore.env:ExploreEnv")


_register_env()

__all__ = [
    "ENV_ID",
    "CameraPose",
    "Door",
    "EpisodeMeta",
    "FrameRecord",
    "House",
    "Intrinsics",
    "Room",
    "SceneObject",
    "Trajectory",
    "Visible",
    "WallSegment",
    "load_episode_meta",
    "meta_path_for",
    "save_episode_meta",
]
