"""Render a trajectory to an H.264 mp4 plus its ground-truth metadata file.

The metadata goes next to the video as ``<video>.meta.json.gz`` (gzipped JSON, see
:func:`~streamspatial.scene.types.load_episode_meta`): the house, the intrinsics and, per
frame, the camera pose, the room the camera stands in and every visible instance with its
visible pixel count, 2D box and mean depth.  Gzipped JSON rather than npz because the
records are ragged (a different number of visible objects per frame), and any language can
read it; a minute at 10 fps is about 60 kB.
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from streamspatial.core.errors import InputError
from streamspatial.scene.camera import DEFAULT_VFOV
from streamspatial.scene.schedule import Schedule
from streamspatial.scene.types import (
    EpisodeMeta,
    FrameRecord,
    House,
    Trajectory,
    meta_path_for,
    save_episode_meta,
)
from streamspatial.sim.render.camera import CameraLook
from streamspatial.sim.render.encoder import CRF, VideoWriter
from streamspatial.sim.render.process import RenderProcess, RenderProcesses

Progress = Callable[[int, int], None]  # (frames done, frames total)


@dataclass(frozen=True)
class EpisodePaths:
    video: Path
    meta: Path
    render_cpu: float = 0.0  # CPU seconds the render process(es) spent on it


def render_episode(
    house: House,
    trajectory: Trajectory,
    out_dir: str | Path,
    size: tuple[int, int] = (320, 240),
    *,
    name: str | None = None,
    vfov_deg: float = DEFAULT_VFOV,
    progress: Progress | None = None,
    crf: int = CRF,
    timings: MutableMapping[str, float] | None = None,
    schedule: Schedule | None = None,
    processes: int = 1,
) -> EpisodePaths:
    """Render every pose of ``trajectory`` to ``out_dir/<name>.mp4`` and its metadata.

    The GL passes run in a :class:`~streamspatial.sim.render.process.RenderProcess` (see
    there why), a couple of frames ahead of the encoder.  ``timings``, when given, accumulates
    the seconds spent per stage (``render`` — waiting for the render process, and visibility
    —, ``encode``, ``metadata``), which is how ``benchmarks/sim.py`` breaks a minute of video
    down.  ``schedule`` makes the episode dynamic: its actors and light switches are drawn,
    each frame records the actors seen in ``FrameRecord.dynamic`` (and only house objects in
    ``visible``) and whether the camera's room is lit, and the metadata keeps the schedule.
    ``processes`` > 1 spreads the frames over that many render processes
    (:class:`~streamspatial.sim.render.process.RenderProcesses`, for GPU machines); the files
    are the same.
    """
    clock = {"render": 0.0, "encode": 0.0, "metadata": 0.0}
    if trajectory.house_id != house.house_id:
        raise InputError(f"trajectory is for house {trajectory.house_id!r}, not {house.house_id!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = name or house.house_id
    video = out_dir / f"{name}.mp4"
    records: list[FrameRecord] = []
    total = len(trajectory.poses)
    # Textured houses are filmed through a camera model; the box world stays exact pixels.
    look = CameraLook(size, house.seed) if house.style == "textured" else None
    with (
        (
            RenderProcess(house, size, vfov_deg, schedule)
            if processes <= 1
            else RenderProcesses(house, size, vfov_deg, schedule, processes)
        ) as renderer,
        VideoWriter(video, size, trajectory.fps, crf) as writer,
    ):
        frames = renderer.render_many(trajectory.poses)
        for i, pose in enumerate(trajectory.poses):
            t0 = time.perf_counter()
            frame = next(frames)
            x, y, _ = pose.position
            room = house.room_at(x, y)
            if schedule is None:
                rec = FrameRecord(index=i, pose=pose, room_id=room, visible=frame.visibility())
            else:
                static, dynamic = frame.split_visibility()
                rec = FrameRecord(i, pose, room, static, dynamic=dynamic, lit=frame.lit)
            records.append(rec)
            t1 = time.perf_counter()
            writer.write(frame.rgb if look is None else look.apply(frame.rgb, i))
            clock["render"] += t1 - t0
            clock["encode"] += time.perf_counter() - t1
            if progress is not None:
                progress(i + 1, total)
        intrinsics = renderer.intrinsics
        t1 = time.perf_counter()
    clock["encode"] += time.perf_counter() - t1  # flushing the encoder on close
    t0 = time.perf_counter()
    meta = EpisodeMeta(
        house=house,
        intrinsics=intrinsics,
        fps=trajectory.fps,
        frames=tuple(records),
        keypoints=trajectory.keypoints,
        video=video.name,
        schedule=schedule,
    )
    meta_path = save_episode_meta(meta, meta_path_for(video))
    clock["metadata"] = time.perf_counter() - t0
    if timings is not None:
        for k, v in clock.items():
            timings[k] = timings.get(k, 0.0) + v
    return EpisodePaths(video=video, meta=meta_path, render_cpu=renderer.cpu_seconds)
