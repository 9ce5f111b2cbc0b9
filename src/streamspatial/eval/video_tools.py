"""How the runner touches video: open a source and make its single-pass reader, over the
frame cache (``--cache-dir``) or a temporary folder removed with the run."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from streamspatial.video import FrameCache, ResizeSpec, SinglePassReader


class VideoTools:
    """How the runner touches video: open a source, and make its single-pass reader.

    Frames live in the frame cache (``--cache-dir``) or, without one, in a temporary folder
    removed with this object; either way the reader decodes each video once, in time order,
    and a re-run with a cache decodes nothing.  One object so tests can count opens and passes.
    """

    def __init__(
        self, *, frame_size: int = 448, max_pixels: int | None = None, cache_dir: Path | None = None
    ):
        self.frame_size = frame_size
        self.max_pixels = max_pixels  # a model recipe's per-frame pixel cap
        self.cache_dir = cache_dir
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._frame_cache: FrameCache | None = None
        self._lock = threading.Lock()

    def open(self, path: Path, files: Sequence[Path] | None = None) -> Any:
        """The video's source; its content id and probe come from the frame cache when known,
        so a cached re-run neither hashes nor probes the file.  ``files``: the video is these
        still images, one per second (OST-Bench), and ``path`` only names it."""
        from streamspatial.video.sources import open_source

        return open_source(path, cache=self._cache(), files=files)

    def _cache(self) -> FrameCache:
        with self._lock:  # sources and readers are made in worker threads, several at once
            if self._frame_cache is None:
                if self.cache_dir is not None:
                    root = self.cache_dir
                else:
                    # A run stopped mid-video (a dead endpoint, Ctrl-C) may still have a
                    # decoding thread writing here: its cleanup must not mask why it stopped.
                    self._tmp = tempfile.TemporaryDirectory(
                        prefix="streamspatial-frames-", ignore_cleanup_errors=True
                    )
                    root = Path(self._tmp.name)
                self._frame_cache = FrameCache(root)
            return self._frame_cache

    def reader(self, source: Any, needed: list[int]) -> SinglePassReader:
        spec = ResizeSpec(short_side=self.frame_size, max_pixels=self.max_pixels)
        return SinglePassReader(source, self._cache(), spec, needed)

    def close(self) -> None:
        self._frame_cache = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
