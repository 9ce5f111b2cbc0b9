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

from dataclasses import dataclass, field

from streamspatial.core.geometry import Intrinsics, Pose, Vec3

# The camera at one instant (position, heading, tilt; :class:`~streamspatial.core.geometry.Pose`).
EgoPose = Pose


# Pinhole intrinsics in pixels (:class:`~streamspatial.core.geometry.Intrinsics`, the
# simulator's own).
CameraIntrinsics = Intrinsics


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
