"""What a perception provider hands a memory agent for one frame.

The types are deliberately geometric and small: a camera pose in the world frame, the objects
detected in the frame with world-frame anchors, and a scene tag.  Every provider — simulator
ground truth, 3D-annotated captures, classical ego-motion, learned depth and detection —
produces the same :class:`Observation`, so the scene-graph memory never knows where its input
came from and the effect of imperfect perception can be measured by swapping providers.

World convention: :mod:`streamspatial.core.geometry` (the simulator's): metres, ``z`` up, yaw
counter-clockwise from ``+x``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from streamspatial.core.geometry import Pose, Vec3

# The camera at one instant (position, heading, tilt; :class:`~streamspatial.core.geometry.Pose`).
EgoPose = Pose


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole intrinsics in pixels (mirrors :class:`streamspatial.sim.types.Intrinsics`)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    @classmethod
    def from_hfov(cls, width: int, height: int, hfov_deg: float = 60.0) -> CameraIntrinsics:
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2)

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


@dataclass(frozen=True)
class Detection:
    """One object seen in one frame, anchored in the world frame.

    ``track_id`` is the tracker's identity (ground truth: the instance id; a mask tracker: its
    track number) and ``None`` when the detector gives none — association then falls back to
    3D proximity and label.  ``attributes`` are words a question may use to pick the object
    out ("red"); ``visibility`` is what keyframe selection maximises (visible pixels).
    """

    label: str
    position: Vec3
    track_id: int | None = None
    score: float = 1.0
    attributes: tuple[str, ...] = ()
    bbox: tuple[int, int, int, int] | None = None  # x0, y0, x1, y1 pixels
    visibility: float = 0.0
    depth: float | None = None  # metres along the optical axis
    size: Vec3 | None = None


@dataclass(frozen=True)
class Observation:
    """Everything a provider perceived in one frame, available from ``time`` on."""

    index: int
    time: float
    pose: EgoPose
    detections: tuple[Detection, ...] = ()
    scene: str | None = None  # frame-level scene tag (room type): "kitchen"
    extra: dict[str, object] = field(default_factory=dict, compare=False)
