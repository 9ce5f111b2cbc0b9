"""The on-disk frame cache: resized frames as JPEG bytes, content-addressed.

A frame's key is the SHA-1 of (video content id, frame time, resize spec) (seed 000 G.3/G.8),
so a re-run, another model with the same resolution, or another process reads the very bytes
the first run wrote — bit-for-bit identical inputs — and the bytes go to model APIs as they are,
never re-encoded.  Writes are atomic (temporary file + rename in the same folder), so concurrent
runs sharing a cache can only ever race to write the same bytes.

Layout under ``root``::

    frames/ab/abcdef....jpg      one file per (video, time, resize spec); ab = first 2 hex digits
    videos/<content id>.json     probe metadata of a video (fps, frame count, size), so a fully
                                 cached run need not open the video at all
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from streamspatial.core.errors import InputError, Problem

__all__ = ["FrameCache", "ResizeSpec", "encode_jpeg"]


@dataclass(frozen=True)
class ResizeSpec:
    """How cached frames are sized and encoded; part of every key.

    ``short_side``: the shorter side is scaled down to this (the longer side keeps the aspect
    ratio), as model recipes prescribe (seed 000 G.3); a frame already smaller keeps its size —
    upscaling adds image tokens and no information; ``None`` keeps the source size.
    ``max_pixels``: then, if width × height exceeds it, both sides shrink to fit (Qwen-style
    per-frame pixel caps).  ``quality``: JPEG quality.
    """

    short_side: int | None = 448
    max_pixels: int | None = None
    quality: int = 90

    def __post_init__(self) -> None:
        if self.short_side is not None and self.short_side < 1:
            raise InputError(Problem("resize spec", "short_side", f"≥ 1, got {self.short_side}"))
        if self.max_pixels is not None and self.max_pixels < 1:
            raise InputError(Problem("resize spec", "max_pixels", f"≥ 1, got {self.max_pixels}"))
        if not 1 <= self.quality <= 100:
            raise InputError(Problem("resize spec", "quality", f"1..100, got {self.quality}"))

    def __str__(self) -> str:
        # "short<=": frames are never upscaled (keys of older, upscaling caches do not match)
        return f"short<={self.short_side}/maxpx={self.max_pixels}/q={self.quality}"

    def target_size(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) a ``width × height`` frame is resized to."""
        w, h = float(width), float(height)
        if self.short_side is not None and min(w, h) > self.short_side:
            scale = self.short_side / min(w, h)
            w, h = w * scale, h * scale
        if self.max_pixels is not None and w * h > self.max_pixels:
            scale = math.sqrt(self.max_pixels / (w * h))
            w, h = w * scale, h * scale
            # Rounding may overshoot the cap by a pixel row; floor keeps it honest.
            return max(1, math.floor(w)), max(1, math.floor(h))
        return max(1, round(w)), max(1, round(h))


def encode_jpeg(image: np.ndarray, spec: ResizeSpec) -> bytes:
    """Resize an RGB array per ``spec`` (area-averaging when shrinking) and encode it."""
    img = Image.fromarray(np.ascontiguousarray(image[:, :, :3]))
    size = spec.target_size(img.width, img.height)
    if size != img.size:
        img = img.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return _jpeg(img, spec.quality)


def encode_jpeg_exact(image: np.ndarray, quality: int) -> bytes:
    """Encode an array that is already at its target size."""
    return _jpeg(Image.fromarray(np.ascontiguousarray(image)), quality)


def _jpeg(img: Image.Image, quality: int) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def decode_jpeg(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGB"))


class FrameCache:
    """JPEG frames on disk under ``root``, keyed by :meth:`key`; safe for concurrent runs."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._frames = self.root / "frames"
        self._videos = self.root / "videos"
        self._frames.mkdir(parents=True, exist_ok=True)
        self._videos.mkdir(parents=True, exist_ok=True)
        self._made_dirs: set[str] = set()

    @staticmethod
    def key(content_id: str, time: float, spec: ResizeSpec) -> str:
        """SHA-1 of (content id, frame time to the microsecond, resize spec)."""
        text = f"{content_id}|{time:.6f}|{spec}"
        return hashlib.sha1(text.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self._frames / key[:2] / f"{key}.jpg"

    def get(self, key: str) -> bytes | None:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            return None

    def has(self, key: str) -> bool:
        return self.path(key).is_file()

    def put(self, key: str, data: bytes) -> None:
        folder = key[:2]
        if folder not in self._made_dirs:
            (self._frames / folder).mkdir(exist_ok=True)
            self._made_dirs.add(folder)
        _atomic_write(self.path(key), data)

    def fetch(
        self, content_id: str, time: float, spec: ResizeSpec, make: Callable[[], np.ndarray]
    ) -> bytes:
        """The cached bytes for this frame, or ``make()``'s picture encoded, stored and returned."""
        key = self.key(content_id, time, spec)
        data = self.get(key)
        if data is None:
            data = encode_jpeg(make(), spec)
            self.put(key, data)
        return data

    # Video metadata, so that a fully cached run never opens the container.
    def get_video_info(self, content_id: str) -> dict | None:
        try:
            return json.loads((self._videos / f"{content_id}.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put_video_info(self, content_id: str, info: object) -> None:
        payload = asdict(info) if hasattr(info, "__dataclass_fields__") else dict(info)  # type: ignore[call-overload]
        _atomic_write(self._videos / f"{content_id}.json", json.dumps(payload).encode())


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
