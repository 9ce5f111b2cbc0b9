"""A video cut at a time: what a streaming-study participant's browser is allowed to download.

The watch page stops at each query time, but a page is a convenience, not a guard: with the
whole file in the browser's cache, anyone can open it in another player and see what comes
after the question.  So the server hands a participant only the prefix ``[0, until]`` of the
video being watched, where ``until`` is the next query time, as a file of its own.

Two ways to make it, both with PyAV:

* **remux** (stream copy, no re-encoding): every packet shown at or before ``until``.  Exact
  when packets are decoded in the order they are shown; fast whatever the video's length;
* **re-encode** (H.264): when the stream reorders frames (B-frames), a later frame can be a
  reference of an earlier one, so a copied prefix would either break or carry frames past
  ``until``; the frames up to ``until`` are decoded and encoded afresh, without B-frames.

Cuts are kept in a cache folder keyed by the source file (path, size, mtime) and ``until``, so
each participant reaching the same question costs one cut.
"""

from __future__ import annotations

import hashlib
import os
import threading
from fractions import Fraction
from pathlib import Path

from streamspatial.core.errors import AttemptFailed

EPS = 1e-6


class _Reordered(AttemptFailed):
    """The stream shows frames in another order than it decodes them: remux cannot cut it."""


def cut_key(source: Path, until: float) -> str:
    st = source.stat()
    raw = f"{source.resolve()}|{st.st_size}|{st.st_mtime_ns}|{until:.6f}"
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


class PrefixCuts:
    """``path(source, until)`` → a cached mp4 holding exactly the frames shown at ≤ ``until``."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()  # one cut at a time: they are CPU-bound anyway

    def path(self, source: Path, until: float) -> Path:
        target = self.folder / f"{cut_key(source, until)}.mp4"
        with self._lock:
            if not target.exists():
                self.folder.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(f"{target.stem}.{os.getpid()}.part.mp4")
                try:
                    cut_video(source, until, tmp)
                    os.replace(tmp, target)
                finally:
                    tmp.unlink(missing_ok=True)
        return target


def cut_video(source: Path, until: float, target: Path) -> None:
    """Write the frames of ``source`` shown at times ≤ ``until`` to ``target`` (mp4)."""
    try:
        _remux(source, until, target)
    except _Reordered:
        _reencode(source, until, target)


def _remux(source: Path, until: float, target: Path) -> None:
    import av

    with av.open(str(source)) as src:
        stream = src.streams.video[0]
        tb = stream.time_base
        start = stream.start_time or 0
        with av.open(str(target), "w", format="mp4", options={"movflags": "faststart"}) as dst:
            out = dst.add_stream_from_template(stream)
            last_pts: int | None = None
            for packet in src.demux(stream):
                if packet.dts is None or packet.pts is None:
                    continue
                if last_pts is not None and packet.pts < last_pts:
                    raise _Reordered
                last_pts = packet.pts
                if float((packet.pts - start) * tb) > until + EPS:
                    break  # decode order is display order: everything after is later too
                packet.stream = out
                dst.mux(packet)


def _reencode(source: Path, until: float, target: Path) -> None:
    import av

    with av.open(str(source)) as src:
        stream = src.streams.video[0]
        rate = stream.average_rate or stream.guessed_rate or Fraction(30)
        with av.open(str(target), "w", format="mp4", options={"movflags": "faststart"}) as dst:
            out = dst.add_stream("libx264", rate=rate)
            out.width = stream.codec_context.width
            out.height = stream.codec_context.height
            out.pix_fmt = "yuv420p"
            out.options = {"preset": "ultrafast", "crf": "18", "x264-params": "bframes=0"}
            origin = None
            for n, frame in enumerate(src.decode(stream)):
                t = (
                    float((frame.pts - (origin := frame.pts if origin is None else origin))
                          * frame.time_base)
                    if frame.pts is not None and frame.time_base is not None
                    else n / float(rate)
                )  # fmt: skip
                if t > until + EPS:
                    break
                frame = frame.reformat(format="yuv420p")
                frame.pts = None  # the encoder numbers frames at the stream's rate
                for packet in out.encode(frame):
                    dst.mux(packet)
            for packet in out.encode(None):
                dst.mux(packet)


__all__ = ["PrefixCuts", "cut_video"]
