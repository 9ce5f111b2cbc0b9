"""Writing analysis clips: frames in, an H.264 mp4 out, moved into place only once whole.

The looped clips (:mod:`.loop`) and the count overlays (:mod:`.overlay`) are re-encoded the same
way: x264 ``veryfast`` at CRF 18 (visually lossless for their flat test content), 4:2:0, into
``<name>.part<suffix>`` beside the destination, which replaces the destination when the encoder
has flushed, so an interrupted run never leaves a half-written video under the final name.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any


def write_h264(
    dst: Path,
    frames: Iterable[Any],
    *,
    rate: Fraction | int,
    size: tuple[int, int],
    time_base: Fraction | None = None,
) -> int:
    """Encode ``frames`` (PyAV video frames of ``size`` = (width, height), both even) at
    ``rate`` into ``dst``; ``time_base`` sets the codec's.  Returns the frames written."""
    import av

    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.stem + ".part" + dst.suffix)
    written = 0
    with av.open(str(tmp), mode="w") as out:
        stream = out.add_stream("h264", rate=rate)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        if time_base is not None:
            stream.codec_context.time_base = time_base
        stream.options = {"preset": "veryfast", "crf": "18"}
        for frame in frames:
            for packet in stream.encode(frame):
                out.mux(packet)
            written += 1
        for packet in stream.encode(None):
            out.mux(packet)
    tmp.replace(dst)
    return written


def even(width: int, height: int) -> tuple[int, int]:
    """The largest even size within ``width`` × ``height`` (4:2:0 needs even sides)."""
    return width - width % 2, height - height % 2


__all__ = ["even", "write_h264"]
