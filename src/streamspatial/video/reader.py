"""The single-pass reader: decode a video once, in time order, for all of its queries.

Per-query harnesses open the file and seek for every question; with long GOPs that costs more
than decoding the whole file, once per query.  Here the runner tells the reader up front every
frame index any query of the video will need; the reader then decodes forward only as far as
the stream has to go, converts and stores just those frames in the frame cache, and stops after
the last one.  It is incremental — the streaming protocol — so query ``k`` is answered as soon as
the stream reaches ``t_k`` and before any later frame is decoded::

    reader = SinglePassReader(source, cache, ResizeSpec(448), needed)
    for query in sorted(queries, key=time):
        view = reader.view(query.time)      # decodes up to t_q, no further
        agent.build_request(view, ...)
    reader.close()

Frames already in the cache are not decoded; when all are, the container is never opened.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from streamspatial.video.cache import (
    FrameCache,
    PackedFrames,
    ResizeSpec,
    decode_jpeg,
    encode_jpeg,
    encode_jpeg_exact,
)
from streamspatial.video.frames import FrameSource
from streamspatial.video.prefix import PrefixView, query_frame_index

__all__ = ["SinglePassReader"]

_EPS = 1e-9


class SinglePassReader:
    """A :class:`~streamspatial.video.prefix.FrameStore` over one video, filled in one pass.

    ``needed`` is the union of every query's frame indices (the planner's job).  Counters for
    tests and benchmarks: ``stored`` (frames encoded into the cache by this reader),
    ``extra_passes`` (additional decoding passes forced by frames that were not planned — zero
    in a correct run), and the source's own ``decoded_frames`` / ``opens``.

    Thread-safe in the way the runner uses it: one thread advances the stream while others read
    frames the stream has already passed (those reads take no lock).
    """

    def __init__(
        self,
        source: FrameSource,
        cache: FrameCache,
        spec: ResizeSpec | None = None,
        needed: Iterable[int] = (),
    ):
        self.source = source
        self.cache = cache
        self.spec = spec or ResizeSpec()
        self.fps = float(source.fps)
        self.n_frames = int(source.n_frames)
        self._content_id = source.content_id()
        self._store: PackedFrames = cache.frames(self._content_id, self.spec)
        wanted = sorted({int(i) for i in needed})
        if wanted and (wanted[0] < 0 or wanted[-1] >= self.n_frames):
            raise IndexError(
                f"{source.uri}: needed frames must lie in [0, {self.n_frames - 1}], "
                f"got {wanted[0]}..{wanted[-1]}"
            )
        self.needed = wanted
        self._pending = [i for i in wanted if not self._store.has(self._time(i))]
        self._next = 0  # position in _pending
        self._frames: Iterator[tuple[int, Any]] | None = None
        self.position = -1  # highest frame index the stream has been advanced to
        self.stored = 0
        self.extra_passes = 0
        self._lock = threading.Lock()  # held while decoding
        self._closed = False

    # ------------------------------------------------------------------ streaming protocol

    def _time(self, index: int) -> float:
        return index / self.fps

    @property
    def pending(self) -> int:
        """Planned frames not yet in the cache."""
        return len(self._pending) - self._next

    def advance_to(self, t: float) -> int:
        """Decode and cache every planned frame with time ≤ ``t``; returns how many it stored."""
        if t == math.inf:
            target = self.n_frames - 1
        else:
            target = query_frame_index(t, self.fps, self.n_frames)
        return self._advance_index(target)

    def _advance_index(self, target: int) -> int:
        with self._lock:
            before = self.stored
            while self._next < len(self._pending) and self._pending[self._next] <= target:
                if self._closed:  # closed from another thread mid-step: stop here
                    break
                if self._frames is None:
                    self._frames = self._decode(self._pending[self._next :])
                index, picture = next(self._frames)
                assert index == self._pending[self._next], (index, self._pending[self._next])
                self._store.put(self._time(index), self._encode(picture))
                self.stored += 1
                self._next += 1
            if not self._closed:
                self.position = max(self.position, target)
            if self._next == len(self._pending) or self._closed:
                self._close_decoder()
            if self._closed:
                self._store.close()
            return self.stored - before

    def finish(self) -> int:
        """Decode the rest of the planned frames (e.g. before closing a run)."""
        return self.advance_to(math.inf)

    def view(self, t_q: float) -> PrefixView:
        """Advance the stream to ``t_q`` and return the causal view for a query there."""
        self.advance_to(t_q)
        return PrefixView(self, t_q)

    def views(self, times: Iterable[float]) -> Iterator[PrefixView]:
        """Views for ``times`` in increasing order, each produced as the stream reaches it."""
        for t in sorted(times):
            yield self.view(t)

    def _close_decoder(self) -> None:
        if self._frames is not None:
            close = getattr(self._frames, "close", None)
            if close is not None:
                close()
            self._frames = None

    def close(self) -> None:
        """Release the decoder (closes the container) and the cache's files; safe to call
        twice, and from another thread while a step decodes (that step ends early)."""
        self._closed = True
        if self._lock.acquire(blocking=False):
            try:
                self._close_decoder()
                self._store.close()
            finally:
                self._lock.release()

    def __enter__(self) -> SinglePassReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ decoding

    def _decode(self, indices: Sequence[int]) -> Iterator[tuple[int, Any]]:
        """(index, picture) in order: PyAV frames when the source offers them, so resizing runs
        in swscale before the RGB conversion; arrays otherwise."""
        raw = getattr(self.source, "read_video_frames", None)
        if raw is not None:
            return raw(indices)
        return ((f.index, f.image) for f in self.source.read(indices))

    def _encode(self, picture: Any) -> bytes:
        if isinstance(picture, np.ndarray):
            return encode_jpeg(picture, self.spec)
        width, height = self.spec.target_size(picture.width, picture.height)
        rgb = picture.reformat(width=width, height=height, format="rgb24", interpolation="AREA")
        return encode_jpeg_exact(rgb.to_ndarray(), self.spec.quality)

    # ------------------------------------------------------------------ FrameStore

    def jpeg_frames(self, indices: Sequence[int]) -> list[bytes]:
        """Cached bytes; frames the stream has not reached yet are reached first (still one pass),
        and frames nobody planned are decoded in one extra pass and counted."""
        if indices and max(indices) > self.position:
            self._advance_index(max(indices))
        out: dict[int, bytes] = {}
        missing: list[int] = []
        for i in indices:
            data = self._store.get(self._time(i))
            if data is None:
                missing.append(i)
            else:
                out[i] = data
        if missing:
            with self._lock:
                self.extra_passes += 1
                for index, picture in self._decode(sorted(set(missing))):
                    out[index] = self._encode(picture)
                    self._store.put(self._time(index), out[index])
                    self.stored += 1
        return [out[i] for i in indices]

    def array_frames(self, indices: Sequence[int]) -> list[np.ndarray]:
        return [decode_jpeg(b) for b in self.jpeg_frames(indices)]
