"""One scan, whatever dataset it came from: a labelled mesh, object boxes and posed frames.

Conventions (fixed; :mod:`.episode` relies on them):

* World frame in metres, ``z`` up (every reader leaves the dataset's gravity-aligned frame
  as it is; :mod:`.episode` moves the floor to ``z = 0``).
* Cameras in OpenCV's convention: ``x`` right, ``y`` down, ``z`` forward; ``camera_to_world``
  maps camera points to world points; intrinsics ``K`` put pixel ``(row i, column j)``'s
  centre at ``(u, v) = (j, i)``.
* Instance ids are positive integers unique within the scan; ``0`` is "no object" (walls,
  floor, unannotated surface).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from streamspatial.core.geometry import Pinhole

# Labels that are the room itself, never an object a question is about (ScanNet's and
# ScanNet++'s structural classes); floor faces give the room's area.
STRUCTURE = frozenset({"wall", "floor", "ceiling", "remove", "split", "object"})
FLOOR = frozenset({"floor", "carpet", "rug_floor"})


@dataclass(frozen=True, eq=False)
class ScanMesh:
    """The reconstructed surface: vertices, triangles, colours and per-vertex labels."""

    vertices: np.ndarray  # (N, 3) float64, world
    faces: np.ndarray  # (M, 3) int64
    colors: np.ndarray  # (N, 3) uint8
    instance: np.ndarray  # (N,) int32, 0 = no object
    floor: np.ndarray  # (N,) bool: labelled floor

    def face_instance(self) -> np.ndarray:
        """Each triangle's instance: the one at least two of its vertices share, else none
        (a triangle across a segment border, or a floor triangle with one corner in a box)."""
        a, b, c = (self.instance[self.faces[:, i]] for i in range(3))
        return np.where((a == b) | (a == c), a, np.where(b == c, b, 0)).astype(np.int32)


@dataclass(frozen=True)
class Box:
    """A gravity-aligned box: centre, full extents along its own axes, yaw about ``z``."""

    center: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw: float


@dataclass(frozen=True)
class ScanObject:
    instance_id: int
    category: str  # snake_case: "coffee_table"
    label: str  # the dataset's own label
    box: Box


@dataclass(frozen=True)
class Camera(Pinhole):
    """Pinhole intrinsics of one image stream, in OpenCV's convention (pixel centres at
    integers, as the datasets store ``K``)."""

    def scaled(self, width: int, height: int) -> Camera:
        sx, sy = width / self.width, height / self.height
        # pixel centres at integers: the image edge (-0.5) stays the edge
        return Camera(
            width,
            height,
            self.fx * sx,
            self.fy * sy,
            (self.cx + 0.5) * sx - 0.5,
            (self.cy + 0.5) * sy - 0.5,
        )


@dataclass(frozen=True)
class ScanFrame:
    """One captured frame: when, from where, and its image files."""

    time: float  # seconds from the scan's first frame
    camera_to_world: np.ndarray = field(repr=False)  # (4, 4)
    color: Path = Path()
    depth: Path | None = None  # uint16 PNG in millimetres (0: no reading)
    color_camera: Camera | None = None
    depth_camera: Camera | None = None


@dataclass(frozen=True)
class Scan:
    dataset: str  # "scannet" | "arkitscenes" | "scannetpp"
    scene_id: str
    mesh: ScanMesh
    objects: tuple[ScanObject, ...]
    frames: tuple[ScanFrame, ...]
    source: Path = Path()

    def object(self, instance_id: int) -> ScanObject:
        for o in self.objects:
            if o.instance_id == instance_id:
                return o
        raise KeyError(instance_id)


def category_of(label: str) -> str:
    """A dataset label as a category name: ``"Coffee Table"`` → ``coffee_table``."""
    out = "".join(c if c.isalnum() else "_" for c in label.strip().lower())
    return "_".join(p for p in out.split("_") if p)
