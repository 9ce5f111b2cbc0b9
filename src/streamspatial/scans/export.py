"""``scans export``: a generated benchmark's walks re-rendered and written as scans.

A benchmark folder holds videos and ground-truth records, no mesh and no depth.  Export reads
the folder's manifest, and for each walk its ground truth (the house and the camera poses,
functions of the manifest's house seeds), re-renders every pose with the simulator's own
renderer (colour through the same camera model as the walk's video, metric depth), takes the
house's mesh from the renderer's model (:mod:`.house_mesh`) and writes the walk in a dataset's
layout (:mod:`.layouts`).  The scene is static: people, carried props and swinging doors of a
walk with events are not drawn, since a scan holds none.  The exact answers are then known
for every reader: the boxes are the house's, the visibility the renderer's instance ids.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from streamspatial.core.errors import InputError, Problem
from streamspatial.scene.types import CameraPose, EpisodeMeta, load_episode_meta

from .house_mesh import house_mesh
from .layouts import WRITERS, Frame
from .types import Camera

FORMATS = tuple(WRITERS)
Progress = Callable[[str, int, int], None]  # (walk, frames done, frames in the walk)


def camera_to_world(pose: CameraPose) -> np.ndarray:
    """The pose as a camera-to-world matrix in OpenCV axes (x right, y down, z forward)."""
    from streamspatial.sim.render.scene import camera_axes

    right, up, forward = camera_axes(pose)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = right, -up, forward
    m[:3, 3] = pose.position
    return m


def opencv_camera(meta: EpisodeMeta) -> Camera:
    i = meta.intrinsics
    # the renderer's pixel centres sit at +0.5 (GL), OpenCV's at integers
    return Camera(i.width, i.height, i.fx, i.fy, i.cx - 0.5, i.cy - 0.5)


def walks_of(sim_dir: Path) -> list[tuple[str, Path]]:
    """The walks (episode name, video) of a generated benchmark, from its manifest."""
    from streamspatial.sim.qa.export import episode_dir

    manifest = Path(sim_dir) / "manifest.json"
    if not manifest.is_file():
        raise InputError(
            Problem(file=str(manifest), field="", expected="a benchmark made by sim generate")
        )
    try:
        info = json.loads(manifest.read_text())
        episodes = [str(e) for e in info["episodes"]]
        seeds = {int(s) for s in info["house_seeds"]}
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(
            Problem(file=str(manifest), field=str(e), expected="episodes and house_seeds")
        ) from None
    out = []
    for name in episodes:
        if not name.endswith("-walk"):
            continue  # the spin probe turns in place: no scan is filmed like that
        video = episode_dir(Path(sim_dir)) / f"{name}.mp4"
        meta = load_episode_meta(video)
        if meta.house.seed not in seeds:
            raise InputError(
                Problem(
                    file=str(video),
                    field="house.seed",
                    expected=f"one of the manifest's house seeds, got {meta.house.seed}",
                )
            )
        out.append((name, video))
    if not out:
        raise InputError(
            Problem(file=str(manifest), field="episodes", expected="at least one walk")
        )
    return out


def render_frames(meta: EpisodeMeta, tick: Callable[[int], None] | None = None) -> Iterator[Frame]:
    """Each pose of the walk rendered again: colour as the video shows it, metric depth."""
    from streamspatial.sim.render.camera import CameraLook
    from streamspatial.sim.render.process import RenderProcess

    house = meta.house
    size = (meta.intrinsics.width, meta.intrinsics.height)
    look = CameraLook(size, house.seed) if house.style == "textured" else None
    poses = [f.pose for f in meta.frames]
    with RenderProcess(house, size, meta.intrinsics.vfov_deg, None) as renderer:
        for i, (pose, frame) in enumerate(zip(poses, renderer.render_many(poses), strict=True)):
            rgb = frame.rgb if look is None else look.apply(frame.rgb, i)
            yield Frame(pose.time, np.ascontiguousarray(rgb), frame.depth, camera_to_world(pose))
            if tick is not None:
                tick(i + 1)


def export_scans(
    sim_dir: Path, fmt: str, out: Path, progress: Progress | None = None
) -> list[Path]:
    """Write every walk of the benchmark in ``sim_dir`` as a ``fmt`` scan under ``out``."""
    if fmt not in WRITERS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    walks = walks_of(Path(sim_dir))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, video in walks:
        meta = load_episode_meta(video)
        size = (meta.intrinsics.width, meta.intrinsics.height)
        mesh = house_mesh(meta.house, size, meta.intrinsics.vfov_deg)
        total = len(meta.frames)

        def tick(done: int, name: str = name, total: int = total) -> None:
            if progress is not None:
                progress(name, done, total)

        frames = render_frames(meta, tick)
        written.append(WRITERS[fmt](out, name, mesh, meta.house, opencv_camera(meta), frames))
    return written
