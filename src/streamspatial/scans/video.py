"""The scan's video: its captures at 640×480 and 24 fps, S3-Bench's normalisation (§3.2).

Video frame ``n`` (at ``n / fps`` s) is the last capture at or before that time
(:func:`.episode.video_frames`), resized to the video's size, encoded with the simulator's
H.264 writer.  The question times the generators ask at are frame times of this video.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from streamspatial.core.errors import InputError, Problem

from .types import Scan


def write_video(
    scan: Scan,
    sources: tuple[int, ...],
    path: Path,
    *,
    fps: float,
    size: tuple[int, int],
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    from streamspatial.sim.render.episode import VideoWriter

    part = path.with_name(path.name + ".part.mp4")
    last, rgb = -1, None
    with VideoWriter(part, size, fps) as writer:
        for n, i in enumerate(sources):
            if i != last:
                img = scan.frames[i].color
                try:
                    with Image.open(img) as im:
                        rgb = np.asarray(im.convert("RGB").resize(size, Image.BILINEAR))
                except OSError as e:
                    raise InputError(
                        Problem(file=str(img), field="", expected=f"an image ({e})")
                    ) from None
                last = i
            writer.write(rgb)
            if progress is not None:
                progress(n + 1, len(sources))
    part.replace(path)
    return path
