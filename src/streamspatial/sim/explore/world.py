"""The simulator as an exploration world: an episode's house, restored at a recorded pose.

``streamspatial.agents.exploration`` defines what an exploration world is (``episode_file``,
``restore``; the environment's ``step`` and ``close``); this module is the simulator's side of
that interface, written against it structurally so the simulator imports nothing above
``core``.  The environment is ``streamspatial/Explore-v0`` (:class:`~.env.ExploreEnv`) in the
episode's house, with the camera pose, pitch, eye height and field of view recorded at t_q.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from streamspatial.scene.types import CameraPose, EpisodeMeta, load_episode_meta, meta_path_for


@dataclass(frozen=True)
class ExploreStep:
    """What one action produced: its views as (seconds since t_q, RGB), and where it ended."""

    views: tuple[tuple[float, np.ndarray], ...]
    elapsed: float
    collided: bool
    new_objects: int
    position: tuple[float, float]
    yaw_deg: float
    # each view's ground truth (pose, room, visible objects), for agents that perceive from
    # annotations (the rules agent); never sent to a model
    records: tuple[Any, ...] = ()


def pose_at(meta: EpisodeMeta, t_q: float) -> CameraPose:
    """The camera pose an exploration at ``t_q`` starts from: that of the frame on screen at
    t_q, ⌊t_q · fps⌋, as recorded; never a later one."""
    n_q = min(math.floor(t_q * meta.fps + 1e-9), len(meta.frames) - 1)
    return meta.frames[n_q].pose


class EpisodeEnv:
    """``Explore-v0`` in an episode's house, standing where the camera stood at t_q."""

    def __init__(self, meta: EpisodeMeta, t_q: float):
        from streamspatial.sim.explore.env import ExploreEnv

        k = meta.intrinsics
        self.meta = meta
        self._env = ExploreEnv(
            size=(k.width, k.height),
            max_steps=1_000_000,  # the explorer's step limit applies, not the env's
            vfov_deg=math.degrees(2 * math.atan(k.height / (2 * k.fy))),
        )
        self.restart(t_q)

    def restart(self, t_q: float) -> None:
        """Stand where the camera stood at ``t_q`` (same pitch and eye height), as a new
        environment would, keeping the renderer: starting one takes seconds, and training data
        explores many query times of one episode."""
        from streamspatial.sim.walk.nav import Motion

        pose = pose_at(self.meta, t_q)
        self._env.motion = Motion(pitch=pose.pitch, eye_height=pose.position[2])
        x, y, _ = pose.position
        self.start_view, _ = self._env.reset(
            options={"house": self.meta.house, "start": (x, y, pose.yaw)}
        )

    def step(self, action: Mapping[str, Any]) -> ExploreStep:
        from streamspatial.sim.explore.actions import parse_action

        act = parse_action(dict(action))  # InputError for an action the env cannot do
        _, reward, _, _, info = self._env.step(act)
        pose = info["pose"]
        views = tuple(
            (float(rec.pose.time), rgb)
            for rgb, rec in zip(info["frames"], info["records"], strict=True)
        )
        return ExploreStep(
            views=views,
            elapsed=float(pose.time),
            collided=bool(info["collided"]),
            new_objects=int(reward),
            position=(float(pose.position[0]), float(pose.position[1])),
            yaw_deg=round(math.degrees(pose.yaw), 2),
            records=tuple(info["records"]),
        )

    def close(self) -> None:
        self._env.close()


class EpisodeWorld:
    """Explorable simulator episodes: metadata next to each video, read once per video."""

    def __init__(self, cached: int = 4):
        self._metas: OrderedDict[Path, EpisodeMeta] = OrderedDict()  # a few episodes' metadata
        self._cached = cached
        self._lock = threading.Lock()  # episodes are restored in worker threads

    def __getstate__(self) -> dict[str, Any]:
        """What travels to another process (a Ray worker): the settings, not the cache."""
        return {"cached": self._cached}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["cached"])  # type: ignore[misc]

    def episode_file(self, video: Path) -> Path:
        return meta_path_for(video)

    def episode_meta(self, video: Path) -> EpisodeMeta:
        """The episode's metadata, read once per video (every frame of a long episode is in
        it; consecutive explorable items of one video share it)."""
        with self._lock:
            meta = self._metas.get(video)
        if meta is None:
            meta = load_episode_meta(video)
            with self._lock:
                self._metas[video] = meta
                while len(self._metas) > self._cached:
                    self._metas.popitem(last=False)
        return meta

    def restore(self, video: Path, t_q: float) -> EpisodeEnv:
        return EpisodeEnv(self.episode_meta(video), t_q)


__all__ = ["EpisodeEnv", "EpisodeWorld", "ExploreStep", "pose_at"]
