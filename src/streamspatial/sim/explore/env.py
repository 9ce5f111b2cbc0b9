"""``streamspatial/Explore-v0``: a Gymnasium environment for active exploration (S3-Bench §4.3).

The agent stands in a house at eye height and acts with the seven actions of
:mod:`streamspatial.sim.explore.actions`.  Moves translate in the camera's horizontal frame and stop
at the last free position before a wall or piece of furniture (the same occupancy grid the
trajectories use, radius 0.25 m); rotations turn in place.  ``scan_forward`` and
``sweep_around`` return several frames, so the observation is the *last* frame and
``info["frames"]`` holds every frame the action produced, in order, with their ground truth
in ``info["records"]``.  The reward is the number of objects seen for the first time
(at least ``min_pixels`` visible pixels), a plain coverage signal; episodes never terminate
on their own and are truncated after ``max_steps`` actions.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from streamspatial.core.errors import InputError
from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.camera import DEFAULT_VFOV
from streamspatial.scene.types import CameraPose, FrameRecord, House
from streamspatial.sim.explore.actions import ACTIONS, MAX_DISTANCE, MOVES, Action, parse_action
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.house.occupancy import Occupancy, occupancy
from streamspatial.sim.render.process import RenderProcess
from streamspatial.sim.walk.nav import Motion, keypoints

_STEP = 0.02  # collision check resolution along a move (m)
_SCAN = (45.0, 22.5, 0.0, -22.5, -45.0, 0.0)  # yaw offsets (deg) of scan_forward's frames


class ExploreEnv(gym.Env):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = "rgb_array",
        size: tuple[int, int] = (320, 240),
        max_steps: int = 50,
        n_rooms: int | None = None,
        min_pixels: int = 20,
        vfov_deg: float = DEFAULT_VFOV,
        motion: Motion | None = None,
    ):
        if render_mode not in (None, "rgb_array"):
            raise InputError(f"render_mode must be 'rgb_array' or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.size = (int(size[0]), int(size[1]))
        self.max_steps = max_steps
        self.n_rooms = n_rooms
        self.min_pixels = min_pixels
        self.vfov_deg = vfov_deg
        self.motion = motion or Motion(pitch=0.0)
        w, h = self.size
        self.observation_space = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
        self.action_space = spaces.Dict(
            {
                "action": spaces.Discrete(len(ACTIONS)),
                "distance": spaces.Box(0.0, MAX_DISTANCE, shape=(), dtype=np.float32),
            }
        )
        self.house: House | None = None
        self.occ: Occupancy | None = None
        self._renderer: RenderProcess | None = None
        self.pose: CameraPose | None = None
        self._frame_index = 0
        self._steps = 0
        self._seen: set[int] = set()
        self._last: np.ndarray | None = None

    # ------------------------------------------------------------------ gym API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        house = options.get("house")
        if isinstance(house, dict):
            house = House.from_dict(house, source="options['house']")
        if house is None:
            house_seed = options.get("house_seed")
            if house_seed is None:
                house_seed = int(self.np_random.integers(0, 2**31 - 1))
            house = generate_house(int(house_seed), n_rooms=options.get("n_rooms", self.n_rooms))
        if not isinstance(house, House):
            raise InputError("options['house'] must be a House or its dict")
        if self._renderer is None or self.house is None or self.house != house:
            self._close_renderer()
            self.house = house
            self.occ = occupancy(house)
            self._renderer = RenderProcess(house, self.size, self.vfov_deg)
        assert self.occ is not None
        start = options.get("start")
        if start is None:
            kps = [k for k in keypoints(house, self.occ, self.np_random) if k.kind == "center"]
            k = kps[int(self.np_random.integers(len(kps)))]
            x, y = k.x, k.y
            yaw = float(self.np_random.uniform(-math.pi, math.pi))
        else:
            if isinstance(start, CameraPose):
                x, y, yaw = start.position[0], start.position[1], start.yaw
            else:
                try:
                    x, y, yaw = (float(v) for v in start)
                except (TypeError, ValueError):
                    raise InputError("options['start'] must be (x, y, yaw)") from None
            if not self.occ.is_free(x, y):
                raise InputError(f"options['start'] ({x:.2f}, {y:.2f}) is not on free floor")
        self.pose = self._pose(0.0, x, y, yaw, "still")
        self._frame_index = 0
        self._steps = 0
        self._seen = set()
        frames, records, new = self._capture([self.pose])
        return frames[-1], self._info(frames, records, new, collided=False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.pose is None or self.occ is None:
            raise RuntimeError("call reset() before step()")
        act = self._to_action(action)
        poses, collided = self._plan(act)
        self.pose = poses[-1]
        frames, records, new = self._capture(poses)
        self._steps += 1
        truncated = self._steps >= self.max_steps
        info = self._info(frames, records, new, collided)
        info["action"] = {"action": act.name, "distance": act.distance}
        return frames[-1], float(len(new)), False, truncated, info

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        return None if self._last is None else self._last.copy()

    def close(self) -> None:
        self._close_renderer()

    # ------------------------------------------------------------------ internals

    def _close_renderer(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def _to_action(self, action: Any) -> Action:
        if isinstance(action, (int, np.integer)):
            return parse_action({"action": int(action), "distance": 1.0})
        if isinstance(action, dict) and isinstance(action.get("action"), (int, np.integer)):
            idx = int(action["action"])
            d = float(action.get("distance", 0.0))
            name = ACTIONS[idx] if 0 <= idx < len(ACTIONS) else None
            if name is None:
                raise InputError(f"action index {idx} is not in 0..{len(ACTIONS) - 1}")
            return parse_action({"action": name, "distance": d}) if d > 0 else Action(name)
        return parse_action(action)

    def _pose(self, t: float, x: float, y: float, yaw: float, motion: str) -> CameraPose:
        return CameraPose(
            time=round(t, 5),
            position=(round(float(x), 4), round(float(y), 4), self.motion.eye_height),
            yaw=round(wrap_angle(float(yaw)), 5),
            pitch=self.motion.pitch,
            motion=motion,
        )

    def _plan(self, act: Action) -> tuple[list[CameraPose], bool]:
        """The poses an action passes through (the last one is where it ends)."""
        assert self.pose is not None and self.occ is not None
        return action_poses(self.pose, act, self.occ, self.motion)

    def _capture(
        self, poses: list[CameraPose]
    ) -> tuple[list[np.ndarray], list[FrameRecord], list[int]]:
        assert self._renderer is not None and self.house is not None
        frames, records, new = [], [], []
        for pose in poses:
            f = self._renderer.render(pose)
            vis = f.visibility()
            frames.append(f.rgb)
            records.append(
                FrameRecord(
                    index=self._frame_index,
                    pose=pose,
                    room_id=self.house.room_at(pose.position[0], pose.position[1]),
                    visible=vis,
                )
            )
            self._frame_index += 1
            for v in vis:
                if v.pixels >= self.min_pixels and v.instance_id not in self._seen:
                    self._seen.add(v.instance_id)
                    new.append(v.instance_id)
        self._last = frames[-1]
        return frames, records, new

    def _info(
        self,
        frames: list[np.ndarray],
        records: list[FrameRecord],
        new: list[int],
        collided: bool,
    ) -> dict[str, Any]:
        assert self.pose is not None
        return {
            "pose": self.pose,
            "time": self.pose.time,
            "room_id": records[-1].room_id,
            "visible": records[-1].visible,
            "frames": frames,
            "records": records,
            "new_instances": new,
            "seen": sorted(self._seen),
            "collided": collided,
        }


def action_poses(
    pose: CameraPose, act: Action, occ: Occupancy, motion: Motion
) -> tuple[list[CameraPose], bool]:
    """The poses ``act`` passes through from ``pose`` (the last one is where it ends) and
    whether a move was stopped by an obstacle: the environment's motion, without rendering, so
    a planner can foresee what an action will show (:mod:`.plan`).  Times run on from
    ``pose.time`` at the walking, turning and sweeping speeds of ``motion``."""
    x, y, z = pose.position
    t = pose.time

    def at(t: float, x: float, y: float, yaw: float, kind: str) -> CameraPose:
        return CameraPose(
            time=round(t, 5),
            position=(round(float(x), 4), round(float(y), 4), z),
            yaw=round(wrap_angle(float(yaw)), 5),
            pitch=pose.pitch,
            motion=kind,
        )

    if act.name in MOVES:
        heading = pose.yaw + {"move_forward": 0.0, "move_left": math.pi / 2}.get(
            act.name, -math.pi / 2
        )
        dx, dy = math.cos(heading), math.sin(heading)
        n = math.ceil(act.distance / _STEP)
        done = 0.0
        for i in range(1, n + 1):
            d = min(act.distance, i * _STEP)
            # The pose keeps 4 decimals: test the point it will hold, or a step that ends on
            # free space's edge could be rounded just past it.
            if not occ.is_free(round(x + dx * d, 4), round(y + dy * d, 4)):
                break
            done = d
        collided = done < act.distance - 1e-9
        t += done / motion.walk_speed
        return [at(t, x + dx * done, y + dy * done, pose.yaw, "move")], collided
    if act.name in ("rotate_left", "rotate_right"):
        sign = 1.0 if act.name == "rotate_left" else -1.0
        t += math.radians(45) / motion.turn_speed
        return [at(t, x, y, pose.yaw + sign * math.radians(45), "turn")], False
    if act.name == "scan_forward":
        out, prev = [], 0.0
        for off in _SCAN:
            t += math.radians(abs(off - prev)) / motion.sweep_speed
            prev = off
            out.append(at(t, x, y, pose.yaw + math.radians(off), "sweep"))
        return out, False
    out = []  # sweep_around
    for k in range(1, 9):
        t += math.radians(45) / motion.sweep_speed
        out.append(at(t, x, y, pose.yaw + k * math.pi / 4, "sweep"))
    return out, False
