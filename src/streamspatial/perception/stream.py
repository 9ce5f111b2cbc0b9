"""The causal contract every perception provider obeys.

A provider is a stream: it is advanced in time order and hands out an observation for a frame
only once the stream has reached that frame's time, exactly like
:class:`~streamspatial.video.PrefixView` does for pixels.  Ground-truth providers *could* look
ahead (the whole metadata file is on disk), which is precisely why the check lives in the base
class and not in each provider: asking for a later frame is a :class:`CausalityError` — a bug,
never a user error.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

import numpy as np

from streamspatial.core.errors import CausalityError
from streamspatial.perception.types import Observation

_EPS = 1e-6


class PerceptionProvider(ABC):
    """A per-frame perception stream over one video (``n_frames`` 0: length unknown).

    ``needs_images`` says whether :meth:`observe` needs the frame's pixels (classical and
    model-based providers) or reads everything from annotations (ground truth), in which case
    :meth:`catch_up` can serve every frame up to the stream time without decoding anything.
    """

    name: str = "perception"
    needs_images: bool = False
    # Track ids that name one object for the whole stream (annotation instance ids): the
    # memory then never merges two tracks, as it must for a tracker's fragmented tracks.
    stable_tracks: bool = False
    # The object vocabulary and attribute words the provider can report (question matching);
    # empty when open-ended (a provider without a closed label set).
    labels: Sequence[str] = ()
    attributes: Sequence[str] = ()

    def __init__(self, fps: float, n_frames: int = 0):
        if not (fps > 0 and math.isfinite(fps)):
            raise ValueError(f"expected a positive frame rate, got {fps}")
        self.fps = float(fps)
        self.n_frames = int(n_frames)
        self._now = -math.inf
        self._last = -1

    # -- time -----------------------------------------------------------------------------
    @property
    def now(self) -> float:
        """The stream time: nothing recorded after it can be observed."""
        return self._now

    @property
    def last_index(self) -> int:
        """The last frame observed (-1 before the first)."""
        return self._last

    def time_of(self, index: int) -> float:
        return index / self.fps

    def advance(self, t: float) -> None:
        """Move the stream time forward to ``t``; time never goes back (use :meth:`reset`)."""
        if t < self._now - _EPS:
            raise CausalityError(
                f"{self.name}: stream time cannot go back from {self._now:.3f}s "
                f"to {t:.3f}s without a reset"
            )
        self._now = max(self._now, float(t))

    def reset(self) -> None:
        """Back to the start of the video, with every accumulated state (drift) cleared."""
        self._now = -math.inf
        self._last = -1
        self._reset_state()

    # -- observation ----------------------------------------------------------------------
    def observe(self, index: int, image: np.ndarray | None = None) -> Observation:
        """The observation of frame ``index``; refuses frames after the stream time."""
        t = self.time_of(index)
        if t > self._now + _EPS:
            raise CausalityError(
                f"{self.name}: frame {index} at {t:.3f}s asked for while the "
                f"stream is at {self._now:.3f}s"
            )
        if index <= self._last:
            raise ValueError(
                f"{self.name}: frames are observed once, in order; frame {index} "
                f"comes after frame {self._last}"
            )
        if index < 0 or (self.n_frames > 0 and index >= self.n_frames):
            raise ValueError(f"{self.name}: frame index {index} outside [0, {self.n_frames})")
        if self.needs_images and image is None:
            raise ValueError(f"{self.name}: frame {index} needs its pixels")
        obs = self._observe(index, t, image)
        self._last = index
        return obs

    def pending(self, t: float) -> range:
        """Frame indices after the last observed one whose time is ≤ ``t``."""
        last = math.floor(t * self.fps + 1e-9)
        if self.n_frames > 0:
            last = min(self.n_frames - 1, last)
        return range(self._last + 1, last + 1)

    def catch_up(self, t: float) -> Iterator[Observation]:
        """Advance to ``t`` and observe every frame not yet observed (annotation providers)."""
        if self.needs_images:
            raise ValueError(f"{self.name} reads pixels: feed frames through observe()")
        self.advance(t)
        for index in self.pending(t):
            yield self.observe(index)

    # -- to implement ---------------------------------------------------------------------
    @abstractmethod
    def _observe(self, index: int, time: float, image: np.ndarray | None) -> Observation: ...

    def _reset_state(self) -> None:  # noqa: B027 — optional hook
        """Clear accumulated state (noise drift, trackers)."""
