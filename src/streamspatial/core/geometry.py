"""The camera in the world — its pose, its pinhole intrinsics — and angle arithmetic: one home
for the simulator, perception and the memory agents.

World convention (fixed; question generators and rules depend on it): metres, ``x`` east,
``y`` north, ``z`` up; yaw counter-clockwise from ``+x`` in radians; pitch positive looking up.
A camera with yaw ``θ`` and pitch 0 looks along ``(cos θ, sin θ, 0)``.  Egocentric relations
are computed in the horizontal plane from the camera's heading, so roll and pitch never change
"left" or "in front".

Two wraps, which differ only at exactly ±π: :func:`wrap_angle` into ``(-π, π]`` (the headings
the simulator stores) and :func:`wrap_pi` into ``[-π, π)`` (turns and bearings as perception,
the memory and the question generators compute them).  Both are kept: every released file and
every recorded answer was computed with its own, and a heading of exactly π is common (a
camera facing west).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

Vec3 = tuple[float, float, float]


def wrap_angle(a: float) -> float:
    """Wrap an angle to ``(-pi, pi]`` so equal headings compare equal."""
    a = math.fmod(a + math.pi, 2 * math.pi)
    if a <= 0:
        a += 2 * math.pi
    return a - math.pi


def wrap_pi(a: float) -> float:
    """An angle in ``[-pi, pi)``."""
    return (a + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class Pose:
    """The camera at one instant: eye position, heading (yaw) and tilt (pitch), world frame."""

    time: float
    position: Vec3
    yaw: float
    pitch: float = 0.0

    @property
    def forward(self) -> Vec3:
        """The unit vector the camera looks along."""
        cp = math.cos(self.pitch)
        return (cp * math.cos(self.yaw), cp * math.sin(self.yaw), math.sin(self.pitch))

    def rotation(self) -> np.ndarray:
        """Camera-to-world rotation in the OpenCV camera convention (x right, y down, z ahead).

        Columns are the camera's right, down and forward axes expressed in the world frame.
        """
        cy, sy = math.cos(self.yaw), math.sin(self.yaw)
        cp, sp = math.cos(self.pitch), math.sin(self.pitch)
        forward = np.array([cp * cy, cp * sy, sp])
        right = np.array([sy, -cy, 0.0])
        down = np.cross(forward, right)
        return np.stack([right, down, forward], axis=1)

    def to_ego(self, point: Vec3 | np.ndarray) -> tuple[float, float, float]:
        """``(ahead, left, up)`` metres of a world point in the horizontal egocentric frame."""
        dx = float(point[0]) - self.position[0]
        dy = float(point[1]) - self.position[1]
        dz = float(point[2]) - self.position[2]
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (c * dx + s * dy, -s * dx + c * dy, dz)

    def from_camera(self, point_cam: np.ndarray) -> np.ndarray:
        """World coordinates of points given in the OpenCV camera frame (N×3 or 3)."""
        return np.asarray(point_cam) @ self.rotation().T + np.asarray(self.position)

    def to_camera(self, point_world: np.ndarray) -> np.ndarray:
        """OpenCV camera-frame coordinates of world points (N×3 or 3)."""
        return (np.asarray(point_world) - np.asarray(self.position)) @ self.rotation()


@dataclass(frozen=True)
class Pinhole:
    """A pinhole camera's image: its size, focal lengths and principal point, in pixels.

    Where a pixel's centre sits is the convention of the subclass, not of this record: the
    renderer's :class:`Intrinsics` put pixel ``(i, j)``'s centre at ``(j + 0.5, i + 0.5)``,
    the scan datasets' cameras (``scans.types.Camera``) at ``(j, i)``.  The projection below
    holds in either, given points in the same convention.
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1.0]])

    def backproject(self, u: np.ndarray, v: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """Pixels with metric depth (along the optical axis) to camera-frame points, N×3."""
        z = np.asarray(depth, dtype=float)
        x = (np.asarray(u, dtype=float) - self.cx) / self.fx * z
        y = (np.asarray(v, dtype=float) - self.cy) / self.fy * z
        return np.stack([x, y, z], axis=-1)

    def project(self, points_cam: np.ndarray) -> np.ndarray:
        """Camera-frame points (N×3, z > 0) to pixel coordinates, N×2."""
        p = np.asarray(points_cam, dtype=float)
        return np.stack(
            [self.fx * p[:, 0] / p[:, 2] + self.cx, self.fy * p[:, 1] / p[:, 2] + self.cy], axis=1
        )

    @property
    def vfov_deg(self) -> float:
        return math.degrees(2 * math.atan((self.height / 2) / self.fy))

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan((self.width / 2) / self.fx))


@dataclass(frozen=True)
class Intrinsics(Pinhole):
    """The renderer's pinhole intrinsics: pixel centres at ``+0.5`` (GL), so the principal
    point of a centred camera is the image's centre ``(width / 2, height / 2)``; they are what
    an episode's metadata records."""

    @classmethod
    def from_hfov(cls, width: int, height: int, hfov_deg: float = 60.0) -> Intrinsics:
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2)

    @classmethod
    def from_vfov(cls, width: int, height: int, vfov_deg: float) -> Intrinsics:
        f = (height / 2) / math.tan(math.radians(vfov_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "fx": float(self.fx),
            "fy": float(self.fy),
            "cx": float(self.cx),
            "cy": float(self.cy),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Intrinsics:
        return cls(
            int(d["width"]),
            int(d["height"]),
            float(d["fx"]),
            float(d["fy"]),
            float(d["cx"]),
            float(d["cy"]),
        )


__all__ = ["Intrinsics", "Pinhole", "Pose", "Vec3", "wrap_angle", "wrap_pi"]
