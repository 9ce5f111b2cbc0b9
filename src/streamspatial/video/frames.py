"""The frame and source types shared by every video reader.

A source knows its frame rate and length and can yield frames for a sorted list of indices in
one forward pass.  Nothing outside :mod:`streamspatial.video` touches a source directly: the
rest of the system receives frames only through :class:`~streamspatial.video.PrefixView`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Frame:
    index: int
    time: float  # seconds from the start of the video
    image: np.ndarray  # H×W×3 uint8 RGB


@runtime_checkable
class FrameSource(Protocol):
    uri: str
    fps: float
    n_frames: int

    @property
    def duration(self) -> float: ...

    def content_id(self) -> str:
        """SHA-1 identifying the content (the video file's bytes, or the folder's frames)."""
        ...

    def read(self, indices: Sequence[int]) -> Iterator[Frame]:
        """Yield the frames at ``indices`` (sorted, unique) in one forward pass."""
        ...
