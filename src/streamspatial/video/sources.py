"""Frame sources: a video file decoded with PyAV, or a folder of pre-extracted frames.

A source is addressed by *frame index* ``i``, whose nominal time is ``i / fps``.  For a video
file, frame ``i`` is the picture on screen at time ``i / fps``: the last decoded frame whose
presentation timestamp is not after it.  That keeps the mapping causal and robust to files
whose timestamps are irregular (VFR, dropped or duplicated frames), and it means a frame's
index and time are known without decoding — which is what lets a cached run skip the decoder.

Bad inputs (missing, empty, truncated, audio-only or non-video files; folders with gaps in
their numbering) raise :class:`~streamspatial.core.errors.InputError` with one clear line.

Over 400 lines on purpose: the two kinds of source share one contract (index ↔ time,
probing, errors), and keeping them side by side keeps that contract one reading.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import av
import numpy as np
from PIL import Image

from streamspatial.core.errors import InputError, Problem
from streamspatial.video.frames import Frame, FrameSource

__all__ = [
    "IMAGE_SUFFIXES",
    "VIDEO_SUFFIXES",
    "FrameFolderSource",
    "ImageSequenceSource",
    "PyAVSource",
    "VideoInfo",
    "file_content_id",
    "open_source",
    "probe_duration",
    "probe_video",
]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
# The video files the project opens, in the order a benchmark naming its videos without a
# suffix (UCS-Bench's ``video_uid``) looks for them; the web tools list and serve exactly these.
VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".m4v", ".avi", ".ogv")
_CHUNK = 1 << 20


def _problem(path: str | Path, expected: str) -> InputError:
    return InputError(Problem(file=str(path), field="", expected=expected))


# --------------------------------------------------------------------------- content ids

_content_ids: dict[tuple[str, int, int], str] = {}


def file_content_id(path: str | Path) -> str:
    """SHA-1 of the file's bytes, memoised per (path, mtime, size) so each file is hashed once."""
    path = Path(path).resolve()
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    cached = _content_ids.get(key)
    if cached is None:
        digest = hashlib.sha1()
        with path.open("rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
        cached = _content_ids[key] = digest.hexdigest()
    return cached


# --------------------------------------------------------------------------- video files


@dataclass(frozen=True)
class VideoInfo:
    """What a cheap probe of the container tells us: enough to plan without decoding."""

    fps: float
    n_frames: int
    duration: float
    width: int
    height: int


def _check_file(path: Path) -> None:
    if not path.exists():
        raise _problem(path, "file not found")
    if path.is_dir():
        raise _problem(path, "expected a video file, found a folder")
    if path.stat().st_size == 0:
        raise _problem(path, "empty file (0 bytes), expected a video")


def _open(path: Path) -> av.container.InputContainer:
    try:
        return av.open(str(path), mode="r")
    except av.FFmpegError as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise _problem(
            path, f"not a readable video (truncated or not a video file: {reason})"
        ) from None


_probes: dict[tuple[str, int, int], VideoInfo] = {}


def probe_video(path: str | Path) -> VideoInfo:
    """Frame rate, frame count and duration from container/stream metadata; decodes nothing.

    Memoised per (path, mtime, size): validating a benchmark probes each video, and the run
    that follows reads the same answer instead of opening the file again.
    """
    path = Path(path)
    _check_file(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    info = _probes.get(key)
    if info is None:
        info = _probes[key] = _probe(path)
    return info


def _probe(path: Path) -> VideoInfo:
    with _open(path) as container:
        if not container.streams.video:
            kinds = sorted({s.type for s in container.streams}) or ["no"]
            raise _problem(path, f"no video stream (found {', '.join(kinds)} stream(s))")
        stream = container.streams.video[0]
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        if not rate or rate <= 0:
            raise _problem(path, "video stream has no frame rate")
        fps = float(rate)
        duration = None
        if stream.duration is not None and stream.time_base is not None:
            duration = float(stream.duration * stream.time_base)
        elif container.duration is not None:
            duration = container.duration / 1_000_000
        n_frames = int(stream.frames or 0)
        if duration is None or duration <= 0:
            if n_frames <= 0:
                raise _problem(path, "video stream has no duration and no frames")
            duration = n_frames / fps
        if n_frames <= 0:
            n_frames = max(1, round(duration * fps))
        return VideoInfo(
            fps=fps,
            n_frames=n_frames,
            duration=n_frames / fps,
            width=stream.codec_context.width,
            height=stream.codec_context.height,
        )


def probe_duration(path: str | Path, *, fps: float = 1.0) -> float:
    """Duration in seconds from metadata alone (a folder counts ``n_frames / fps``)."""
    path = Path(path)
    if path.is_dir():
        return FrameFolderSource(path, fps=fps).duration
    return probe_video(path).duration


class PyAVSource:
    """A video file read with PyAV in one forward pass.

    Metadata comes from a probe on first use, or from ``info`` when the caller already knows it
    (the frame cache stores it), so a run served entirely from the cache never opens the file.
    ``decoded_frames`` and ``opens`` count the work done, for tests and benchmarks.
    """

    def __init__(
        self, path: str | Path, *, info: VideoInfo | None = None, content_id: str | None = None
    ):
        self.path = Path(path)
        self.uri = str(self.path)
        _check_file(self.path)
        self._info = info
        self._content_id = content_id
        self.decoded_frames = 0
        self.opens = 0

    @property
    def info(self) -> VideoInfo:
        if self._info is None:
            self._info = probe_video(self.path)
        return self._info

    @property
    def fps(self) -> float:
        return self.info.fps

    @property
    def n_frames(self) -> int:
        return self.info.n_frames

    @property
    def duration(self) -> float:
        return self.info.duration

    def content_id(self) -> str:
        if self._content_id is None:
            self._content_id = file_content_id(self.path)
        return self._content_id

    def frame_time(self, index: int) -> float:
        return index / self.fps

    def read(self, indices: Sequence[int]) -> Iterator[Frame]:
        """Decode once from the start, converting to RGB only the frames in ``indices``; stop
        decoding after the last one.  ``indices`` must be sorted and unique."""
        for index, image in self.read_video_frames(indices):
            yield Frame(
                index=index, time=self.frame_time(index), image=image.to_ndarray(format="rgb24")
            )

    def read_video_frames(self, indices: Sequence[int]) -> Iterator[tuple[int, av.VideoFrame]]:
        """Like :meth:`read` but yields PyAV frames, so a caller can resize in swscale before
        converting (much cheaper than converting the full picture and resizing after)."""
        wanted = _validated(indices, self.n_frames, self.uri)
        if not wanted:
            return
        fps = self.fps
        self.opens += 1
        with _open(self.path) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            tick = float(stream.time_base) if stream.time_base is not None else 0.0
            tolerance = tick + 1e-6  # timestamps are rounded to the stream's time base
            origin: int | None = None
            previous: av.VideoFrame | None = None
            j = 0
            count = 0
            try:
                for frame in container.decode(stream):
                    self.decoded_frames += 1
                    if frame.pts is None:
                        t = count / fps
                    else:
                        origin = frame.pts if origin is None else origin
                        t = (frame.pts - origin) * tick
                    count += 1
                    # Every wanted index whose time is before this frame is shown by `previous`.
                    while (
                        j < len(wanted) and previous is not None and t > wanted[j] / fps + tolerance
                    ):
                        yield wanted[j], previous
                        j += 1
                    # A frame at a wanted time is that index's frame: no need to see the next.
                    while j < len(wanted) and abs(t - wanted[j] / fps) <= tolerance:
                        yield wanted[j], frame
                        j += 1
                    if j == len(wanted):
                        return
                    previous = frame
            except av.FFmpegError as exc:
                raise _problem(
                    self.path, f"video is corrupt or truncated after frame {count}: {exc}"
                ) from None
            # End of stream: the last frame stays on screen — but only when the stream really
            # ended.  A file cut short (its index written first, so it still opens) decodes to
            # fewer frames than its index lists: the frames past the cut must not be served as
            # copies of the last one that survived.
            if previous is None:
                raise _problem(self.path, "video stream contains no decodable frames")
            last_t = t
            listed = int(stream.frames or 0)
            if 0 < count < listed - 1 or wanted[-1] / fps > last_t + max(1.0, 2 / fps):
                raise _problem(
                    self.path,
                    f"video stream ends at {last_t:.2f} s ({count} frames) but its metadata says "
                    f"{self.duration:.2f} s ({listed or self.n_frames} frames): truncated file?",
                )
            while j < len(wanted):
                yield wanted[j], previous
                j += 1


def _validated(indices: Sequence[int], n_frames: int, uri: str) -> list[int]:
    wanted = [int(i) for i in indices]
    for a, b in itertools.pairwise(wanted):
        if b <= a:
            raise ValueError(f"indices must be sorted and unique, got {a} before {b}")
    if wanted and (wanted[0] < 0 or wanted[-1] >= n_frames):
        raise IndexError(f"{uri}: frame index outside [0, {n_frames - 1}]: {wanted}")
    return wanted


# --------------------------------------------------------------------------- frame folders

_NUMBER = re.compile(r"(\d+)(?!.*\d)")


class ImageSequenceSource:
    """An ordered list of image files shown one per ``1 / fps`` seconds: frame ``i`` is the
    ``i``-th file.  A benchmark that releases still images instead of video (OST-Bench's
    per-turn observations) is streamed through this, in the order its items show them."""

    def __init__(self, files: Sequence[str | Path], *, fps: float = 1.0, uri: str | None = None):
        self.files: list[Path] = [Path(f) for f in files]
        self.path = Path(uri) if uri is not None else (self.files[0].parent if files else Path())
        self.uri = str(self.path)
        if fps <= 0:
            raise _problem(self.path, f"image-sequence fps must be > 0, got {fps}")
        self.fps = float(fps)
        if not self.files:
            raise _problem(self.path, "no frame images")
        for f in self.files:
            if not f.is_file():
                raise _problem(f, "image not found")
        self.n_frames = len(self.files)
        self.decoded_frames = 0
        self._content_id: str | None = None

    @property
    def duration(self) -> float:
        return self.n_frames / self.fps

    def frame_time(self, index: int) -> float:
        return index / self.fps

    def content_id(self) -> str:
        """SHA-1 over the file names in order and their bytes (each file's id is memoised)."""
        if self._content_id is None:
            digest = hashlib.sha1()
            for f in self.files:
                digest.update(f.name.encode() + b"\0" + file_content_id(f).encode() + b"\n")
            self._content_id = digest.hexdigest()
        return self._content_id

    def read(self, indices: Sequence[int]) -> Iterator[Frame]:
        for index in _validated(indices, self.n_frames, self.uri):
            try:
                with Image.open(self.files[index]) as img:
                    image = np.asarray(img.convert("RGB"))
            except OSError as exc:
                raise _problem(self.files[index], f"not a readable image: {exc}") from None
            self.decoded_frames += 1
            yield Frame(index=index, time=self.frame_time(index), image=image)


class FrameFolderSource(ImageSequenceSource):
    """A folder of pre-extracted frames (UCS-Bench App. C: numbered JPEGs at 1 fps).

    Files are ordered by the last number in their name; numbering must be contiguous, since a
    gap would silently shift every later frame's time.  Frame ``i`` is the ``i``-th file.
    """

    def __init__(self, directory: str | Path, *, fps: float = 1.0):
        path = Path(directory)
        if fps <= 0:
            raise _problem(path, f"frame-folder fps must be > 0, got {fps}")
        if not path.is_dir():
            raise _problem(path, "frame folder not found")
        numbered: dict[int, Path] = {}
        for entry in path.iterdir():
            if entry.name.startswith(".") or entry.suffix.lower() not in IMAGE_SUFFIXES:
                continue  # hidden files (e.g. macOS "._0001.jpg") are not frames
            if not entry.is_file():
                continue
            m = _NUMBER.search(entry.stem)
            if m is None:
                raise _problem(entry, "frame file name has no frame number")
            number = int(m.group(1))
            if number in numbered:
                raise _problem(
                    path,
                    f"frame number {number} appears twice ({numbered[number].name}, {entry.name})",
                )
            numbered[number] = entry
        if not numbered:
            raise _problem(path, f"no frame images ({', '.join(IMAGE_SUFFIXES)}) in folder")
        numbers = sorted(numbered)
        missing = sorted(set(range(numbers[0], numbers[-1] + 1)) - set(numbers))
        if missing:
            shown = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
            raise _problem(
                path, f"gap in frame numbering: {len(missing)} missing (numbers {shown})"
            )
        super().__init__([numbered[n] for n in numbers], fps=fps, uri=str(path))


# --------------------------------------------------------------------------- dispatch


def open_source(
    path: str | Path,
    *,
    fps: float | None = None,
    info: VideoInfo | None = None,
    cache: Any = None,
    files: Sequence[str | Path] | None = None,
) -> FrameSource:
    """A :class:`FrameFolderSource` for a folder (``fps`` defaults to 1), an
    :class:`ImageSequenceSource` when ``files`` lists the images (``path`` names it), else a
    :class:`PyAVSource` (its fps comes from the file; a different ``fps`` is an error).

    With a :class:`~streamspatial.video.cache.FrameCache`, a video's content id (by what
    ``stat`` says of the file) and probe metadata are read from (or saved to) the cache, so a run
    whose frames are all cached neither reads the file to hash it nor opens the container.
    """
    path = Path(path)
    if files is not None:
        return ImageSequenceSource(files, fps=1.0 if fps is None else fps, uri=str(path))
    if not path.exists():
        raise _problem(path, "video not found (expected a video file or a frame folder)")
    if path.is_dir():
        return FrameFolderSource(path, fps=1.0 if fps is None else fps)
    _check_file(path)
    cid = None
    if cache is not None:
        cid = cache.get_content_id(path)
        if cid is None:
            cid = file_content_id(path)
            cache.put_content_id(path, cid)
        if info is None:
            stored = cache.get_video_info(cid)
            if stored is not None:
                info = VideoInfo(**stored)
            else:
                info = probe_video(path)
                cache.put_video_info(cid, info)
    if info is None:
        info = probe_video(path)
    if fps is not None and not math.isclose(info.fps, fps, rel_tol=1e-3):
        raise _problem(path, f"fps {fps} given, but the video's frame rate is {info.fps}")
    return PyAVSource(path, info=info, content_id=cid)
