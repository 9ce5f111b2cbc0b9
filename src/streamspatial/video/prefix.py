"""``PrefixView``: the only object that hands frames to agents, cut at the query time.

Causality is enforced here and nowhere else needs to be trusted: a view for a query at ``t_q``
refuses — with :class:`~streamspatial.core.errors.CausalityError`, before doing any work — every
frame index above ``n_q = ⌊t_q · fps⌋`` and every time after ``t_q``.  It reads frames from a
*store* (the single-pass reader backed by the frame cache, see :mod:`streamspatial.video.reader`)
or, for simple uses and tests, straight from a source.

Frames come out as JPEG bytes (what model requests carry, straight from the cache) or as RGB
arrays decoded from those same bytes (for agents that compute on pixels), so both kinds of
consumer see exactly the same picture.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from streamspatial.core.errors import CausalityError
from streamspatial.video.cache import FrameCache, ResizeSpec, decode_jpeg, encode_jpeg
from streamspatial.video.frames import Frame, FrameSource
from streamspatial.video.policies import select_frames

__all__ = ["FrameStore", "JpegFrame", "PrefixView", "SourceStore", "query_frame_index"]

_EPS = 1e-9


@dataclass(frozen=True)
class JpegFrame:
    """A frame as the JPEG bytes a model request carries, with its index and time (seconds)."""

    index: int
    time: float
    jpeg: bytes


@runtime_checkable
class FrameStore(Protocol):
    """Where a view gets frames from.  Indices passed in are already causality-checked."""

    fps: float
    n_frames: int

    def jpeg_frames(self, indices: Sequence[int]) -> list[bytes]: ...

    def array_frames(self, indices: Sequence[int]) -> list[np.ndarray]: ...


def query_frame_index(t_q: float, fps: float, n_frames: int) -> int:
    """``n_q = ⌊t_q · fps⌋`` (OVO-S-Bench A.1), clipped to the last frame.

    A tiny tolerance absorbs float error (``0.29 * 100`` is ``28.999…``); it never admits a
    frame whose nominal time is after ``t_q`` by more than 1e-9 s.
    """
    if t_q < 0 or math.isnan(t_q):
        raise ValueError(f"query time must be ≥ 0, got {t_q}")
    if n_frames < 1:
        raise ValueError("the video has no frames")
    return min(math.floor(t_q * fps + _EPS), n_frames - 1)


class SourceStore:
    """A store reading a source directly (one pass per call), optionally through a cache.

    Fine for tests and one-off use; a run over many queries uses the single-pass reader.
    """

    def __init__(
        self,
        source: FrameSource,
        *,
        cache: FrameCache | None = None,
        spec: ResizeSpec | None = None,
    ):
        self.source = source
        self.fps = source.fps
        self.n_frames = source.n_frames
        self.cache = cache
        self.spec = spec or ResizeSpec(short_side=None)

    def _images(self, indices: Sequence[int]) -> dict[int, np.ndarray]:
        return {f.index: f.image for f in self.source.read(sorted(set(indices)))}

    def jpeg_frames(self, indices: Sequence[int]) -> list[bytes]:
        out: dict[int, bytes] = {}
        todo = list(indices)
        store = None
        if self.cache is not None:
            store = self.cache.frames(self.source.content_id(), self.spec)
            for i in todo:
                data = store.get(i / self.fps)
                if data is not None:
                    out[i] = data
            todo = [i for i in todo if i not in out]
        try:
            if todo:
                for i, image in self._images(todo).items():
                    out[i] = encode_jpeg(image, self.spec)
                    if store is not None:
                        store.put(i / self.fps, out[i])
        finally:
            if store is not None:
                store.close()
        return [out[i] for i in indices]

    def array_frames(self, indices: Sequence[int]) -> list[np.ndarray]:
        return [decode_jpeg(b) for b in self.jpeg_frames(indices)]


class PrefixView:
    """The prefix ``[0, t_q]`` of a video, and nothing after it.

    ``source_or_store`` is a :class:`FrameStore` (normally the single-pass reader) or a plain
    :class:`~streamspatial.video.frames.FrameSource`, wrapped in a :class:`SourceStore`.
    """

    __slots__ = ("_store", "fps", "n_frames", "n_q", "t_q")

    def __init__(self, source_or_store: FrameStore | FrameSource, t_q: float):
        store = source_or_store
        if not hasattr(store, "jpeg_frames"):
            store = SourceStore(store)  # type: ignore[arg-type]
        self._store: FrameStore = store  # type: ignore[assignment]
        self.t_q = float(t_q)
        self.fps = float(store.fps)
        self.n_frames = int(store.n_frames)
        self.n_q = query_frame_index(self.t_q, self.fps, self.n_frames)

    def __repr__(self) -> str:
        return f"PrefixView(t_q={self.t_q}, fps={self.fps}, n_q={self.n_q})"

    def frame_time(self, index: int) -> float:
        """Nominal time (seconds) of frame ``index``."""
        return index / self.fps

    def index_at(self, time: float) -> int:
        """The frame on screen at ``time`` (≤ ``t_q``)."""
        if time > self.t_q + _EPS:
            raise CausalityError(f"time {time} s is after the query time {self.t_q} s")
        if time < 0:
            raise ValueError(f"time must be ≥ 0, got {time}")
        return min(math.floor(time * self.fps + _EPS), self.n_q)

    def check(self, indices: Iterable[int]) -> list[int]:
        """The indices as ints, or :class:`CausalityError` if any is after the query."""
        out: list[int] = []
        for raw in indices:
            i = int(raw)
            if i != raw:
                raise TypeError(f"frame index must be an integer, got {raw!r}")
            if i > self.n_q:
                raise CausalityError(
                    f"frame {i} (t={self.frame_time(i):.3f} s) requested from a prefix that ends "
                    f"at frame {self.n_q} (t_q={self.t_q} s)"
                )
            if i < 0:
                raise IndexError(f"frame index must be ≥ 0, got {i}")
            out.append(i)
        return out

    def select(self, spec: str, evidence: Iterable[tuple[float, float]] | None = None) -> list[int]:
        """Indices a sampling policy picks for this query (see :mod:`~.policies`)."""
        return select_frames(spec, self.n_q, self.fps, evidence)

    def get(self, indices: Iterable[int]) -> list[JpegFrame]:
        """JPEG frames at ``indices`` (in the order given), straight from the cache."""
        wanted = self.check(indices)
        if not wanted:
            return []
        data = self._store.jpeg_frames(wanted)
        return [JpegFrame(i, self.frame_time(i), d) for i, d in zip(wanted, data, strict=True)]

    def get_at(self, times: Iterable[float]) -> list[JpegFrame]:
        """JPEG frames on screen at ``times`` (seconds, each ≤ ``t_q``)."""
        return self.get([self.index_at(t) for t in list(times)])

    def arrays(self, indices: Iterable[int]) -> list[Frame]:
        """RGB frames at ``indices``, decoded from the same JPEG bytes :meth:`get` returns."""
        wanted = self.check(indices)
        if not wanted:
            return []
        images = self._store.array_frames(wanted)
        return [
            Frame(index=i, time=self.frame_time(i), image=im)
            for i, im in zip(wanted, images, strict=True)
        ]
