"""A house as a list of coloured boxes: what the renderer and the ray caster both draw.

Keeping one list for both is what makes the ray caster a meaningful reference for the
renderer: they can only disagree about how they draw, never about what is in the scene.
Camera geometry (rotation, pixel rays) lives here too for the same reason.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from streamspatial.scene import catalog
from streamspatial.scene.types import CameraPose, House, Intrinsics, Room

FLOOR_THICKNESS = 0.02
CEILING_THICKNESS = 0.02


@dataclass(frozen=True)
class Box:
    name: str  # "floor_0_1", "wall_3", "ceiling", "obj_12"
    center: tuple[float, float, float]
    half: tuple[float, float, float]  # half extents along the local axes
    yaw: float
    rgb: tuple[float, float, float]
    instance_id: int  # 0 for structure


def scene_boxes(house: House) -> list[Box]:
    boxes: list[Box] = []
    for room in house.rooms:
        rgb = catalog.FLOOR_RGB.get(room.room_type, (0.6, 0.55, 0.5))
        for j, (x0, y0, x1, y1) in enumerate(_rectangles(room)):
            boxes.append(
                Box(
                    f"floor_{room.room_id}_{j}",
                    ((x0 + x1) / 2, (y0 + y1) / 2, -FLOOR_THICKNESS / 2),
                    ((x1 - x0) / 2, (y1 - y0) / 2, FLOOR_THICKNESS / 2),
                    0.0,
                    rgb,
                    0,
                )
            )
    (bx0, by0), (bx1, by1) = house.bounds
    m = 0.5
    boxes.append(
        Box(
            "ceiling",
            ((bx0 + bx1) / 2, (by0 + by1) / 2, house.wall_height + CEILING_THICKNESS / 2),
            ((bx1 - bx0) / 2 + m, (by1 - by0) / 2 + m, CEILING_THICKNESS / 2),
            0.0,
            catalog.CEILING_RGB,
            0,
        )
    )
    for i, w in enumerate(house.walls):
        c, s = w.box()
        boxes.append(Box(f"wall_{i}", c, (s[0] / 2, s[1] / 2, s[2] / 2), 0.0, catalog.WALL_RGB, 0))
    for o in house.objects:
        boxes.append(
            Box(
                f"obj_{o.instance_id}",
                o.position,
                (o.size[0] / 2, o.size[1] / 2, o.size[2] / 2),
                o.yaw,
                o.rgb,
                o.instance_id,
            )
        )
    return boxes


def _rectangles(room: Room) -> list[tuple[float, float, float, float]]:
    """Split a rectilinear polygon into rectangles (row strips merged where they line up)."""
    xs = sorted({p[0] for p in room.polygon})
    ys = sorted({p[1] for p in room.polygon})
    out: list[tuple[float, float, float, float]] = []
    for y0, y1 in itertools.pairwise(ys):
        row: list[tuple[float, float]] = []
        for x0, x1 in itertools.pairwise(xs):
            if room.contains((x0 + x1) / 2, (y0 + y1) / 2):
                if row and row[-1][1] == x0:
                    row[-1] = (row[-1][0], x1)
                else:
                    row.append((x0, x1))
        for x0, x1 in row:
            out.append((x0, y0, x1, y1))
    return out


def camera_axes(pose: CameraPose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, forward) unit vectors of a camera with the pose's yaw and pitch."""
    cy, sy = math.cos(pose.yaw), math.sin(pose.yaw)
    cp, sp = math.cos(pose.pitch), math.sin(pose.pitch)
    forward = np.array([cp * cy, cp * sy, sp])
    right = np.array([sy, -cy, 0.0])
    up = np.cross(right, forward)
    return right, up, forward


def pixel_rays(pose: CameraPose, intr: Intrinsics) -> np.ndarray:
    """(H, W, 3) world directions through pixel centres, scaled so depth == ray parameter."""
    right, up, forward = camera_axes(pose)
    u = (np.arange(intr.width) + 0.5 - intr.cx) / intr.fx
    v = (np.arange(intr.height) + 0.5 - intr.cy) / intr.fy
    uu, vv = np.meshgrid(u, v)
    return uu[..., None] * right + (-vv)[..., None] * up + forward
