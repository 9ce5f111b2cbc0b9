"""Procedural indoor simulator: houses, trajectories, rendering, video export, exploration env.

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
