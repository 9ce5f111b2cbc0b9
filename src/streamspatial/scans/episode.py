"""A scan as the simulator's episode record: one room, its objects, a frame record per video frame.

The question generators, the ground-truth perception and the rules agent all read an
:class:`~streamspatial.scene.types.EpisodeMeta`; a scan becomes one here:

* the floor is moved to ``z = 0`` (:func:`.rooms.floor_level`), as the simulator's world has it;
* the house is one room (``room``), its outline the floor's convex hull and its area VSI-Bench's
  alpha-shape area (:mod:`.rooms`); no doors, no walls;
* every object keeps its box; its colour is the palette name most of its vertices get
  (:func:`streamspatial.sim.house.colors.name_pixels`, as the simulator names rendered
  pixels); an object whose box stands on the floor is furniture, any other is small;
* the video runs at ``fps`` (24, S3-Bench's normalisation): frame ``n`` shows the last capture
  at or before ``n / fps`` (never a later one), and its record is that capture's visibility
  (:mod:`.visibility`), counted at the video's size, and its camera pose;
* the camera's motion at each frame (``move``, ``turn``, ``still``) comes from the poses
  :data:`MOTION_WINDOW_S` around it, since the generators pick moving frames for displacement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from streamspatial.core.geometry import Intrinsics
from streamspatial.scene.types import CameraPose, EpisodeMeta, FrameRecord, House, Room, SceneObject

from .rooms import alpha_area, floor_level, floor_points, outline
from .types import Camera, Scan, ScanFrame
from .visibility import instance_image, read_depth, visible_records

VIDEO_FPS = 24.0  # S3-Bench §3.2: real videos normalised to 640×480 at 24 fps
VIDEO_SIZE = (640, 480)
ROOM_ID = 1
ON_FLOOR = 0.15  # m: a box whose bottom is this close to the floor stands on it
MOTION_WINDOW_S = 0.5
MOVE_SPEED = 0.15  # m/s
TURN_RATE = math.radians(15)  # rad/s

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ScanEpisode:
    meta: EpisodeMeta
    sources: tuple[int, ...]  # the scan frame each video frame shows
    video_camera: Camera  # OpenCV convention, at the video's size


def scan_house(scan: Scan, floor: float) -> House:
    mesh = scan.mesh
    pts = floor_points(mesh, floor)
    pts = pts if len(pts) else mesh.vertices[:, :2]
    room = Room(ROOM_ID, "room", "room", outline(pts), round(alpha_area(pts), 4))
    from streamspatial.sim.house.colors import name_pixels

    objects = []
    for o in scan.objects:
        colors = mesh.colors[mesh.instance == o.instance_id]
        color, rgb = name_pixels(colors) if len(colors) else ("gray", (0.5, 0.5, 0.5))
        cx, cy, cz = o.box.center
        bottom = cz - o.box.size[2] / 2 - floor
        objects.append(
            SceneObject(
                instance_id=o.instance_id,
                category=o.category,
                room_id=ROOM_ID,
                position=(round(cx, 4), round(cy, 4), round(cz - floor, 4)),
                size=tuple(round(float(s), 4) for s in o.box.size),  # type: ignore[arg-type]
                yaw=round(o.box.yaw, 5),
                color=color,
                rgb=rgb,
                material="",
                kind="furniture" if bottom <= ON_FLOOR else "small",
            )
        )
    top = float(np.percentile(mesh.vertices[:, 2], 98)) - floor if len(mesh.vertices) else 2.6
    return House(
        scan.scene_id, 0, (room,), (), (), tuple(objects), round(max(top, 2.0), 3), style="scan"
    )


def video_frames(scan: Scan, fps: float) -> tuple[int, ...]:
    """The scan frame each video frame shows: the last captured at or before its time."""
    times = np.array([f.time for f in scan.frames])
    n = math.floor(times[-1] * fps + 1e-9) + 1
    at = np.arange(n) / fps
    return tuple(int(i) for i in np.searchsorted(times, at + 1e-9, side="right") - 1)


def camera_pose(frame: ScanFrame, time: float, floor: float, motion: str) -> CameraPose:
    c2w = frame.camera_to_world
    x, y, z = (float(v) for v in c2w[:3, 3])
    fwd = c2w[:3, 2] / (np.linalg.norm(c2w[:3, 2]) + 1e-12)
    yaw = math.atan2(fwd[1], fwd[0])
    pitch = math.asin(max(-1.0, min(1.0, float(fwd[2]))))
    return CameraPose(time=time, position=(x, y, z - floor), yaw=yaw, pitch=pitch, motion=motion)


def motions(poses: list[CameraPose], fps: float) -> list[str]:
    half = max(1, round(MOTION_WINDOW_S * fps / 2))
    out = []
    for i in range(len(poses)):
        a, b = poses[max(0, i - half)], poses[min(len(poses) - 1, i + half)]
        dt = max(b.time - a.time, 1e-9)
        speed = math.dist(a.position[:2], b.position[:2]) / dt
        turn = abs(math.atan2(math.sin(b.yaw - a.yaw), math.cos(b.yaw - a.yaw))) / dt
        out.append("move" if speed >= MOVE_SPEED else "turn" if turn >= TURN_RATE else "still")
    return out


def scan_episode(
    scan: Scan,
    *,
    fps: float = VIDEO_FPS,
    size: tuple[int, int] = VIDEO_SIZE,
    video: str = "",
    progress: Progress | None = None,
) -> ScanEpisode:
    """The scan's episode record at ``fps`` and ``size`` (visibility of each capture shown)."""
    floor = floor_level(scan.mesh)
    house = scan_house(scan, floor)
    sources = video_frames(scan, fps)
    used = sorted(set(sources))
    vis: dict[int, tuple] = {}
    for n, i in enumerate(used):
        f = scan.frames[i]
        cam = f.depth_camera or f.color_camera
        assert cam is not None
        depth = read_depth(f.depth, cam) if f.depth is not None and f.depth_camera else None
        inst, d = instance_image(scan.mesh, f, cam, depth)
        vis[i] = visible_records(inst, d, (size[0] / cam.width, size[1] / cam.height))
        if progress is not None:
            progress(n + 1, len(used))
    color = scan.frames[0].color_camera
    assert color is not None
    cam = color.scaled(*size)
    raw = [camera_pose(scan.frames[i], round(n / fps, 5), floor, "") for n, i in enumerate(sources)]
    labels = motions(raw, fps)
    frames = tuple(
        FrameRecord(
            index=n,
            pose=CameraPose(p.time, p.position, p.yaw, p.pitch, motion=labels[n]),
            room_id=ROOM_ID,
            visible=vis[sources[n]],
        )
        for n, p in enumerate(raw)
    )
    # the simulator's intrinsics put pixel centres at +0.5 (GL); OpenCV's at integers
    intr = Intrinsics(size[0], size[1], cam.fx, cam.fy, cam.cx + 0.5, cam.cy + 0.5)
    meta = EpisodeMeta(house=house, intrinsics=intr, fps=fps, frames=frames, video=video)
    return ScanEpisode(meta, sources, cam)
