"""The on-disk frame cache: resized frames as JPEG bytes, packed per video.

A frame is identified by (video content id, frame time, resize spec) (OVO-S-Bench G.3), so a
re-run, another model with the same resolution, or another process reads the very bytes the
first run wrote — bit-for-bit identical inputs — and the bytes go to model APIs as they are,
never re-encoded.

Frames of one (video, resize spec) live together in *pack files*: append-only files of
``[header | JPEG]`` records, one pack per writer, read back through an in-memory index built
when the video is opened.  One file per frame cost a create, a write and a rename per frame
(a fifth of decoding time) and hundreds of thousands of inodes per benchmark; a pack costs one
``write`` per frame.  No locks are needed, also on a shared filesystem: a pack has a single
writer (its name is unique), readers take only whole records (each carries its length and a
CRC-32, so a record torn by a crash is ignored and decoded again), and two runs that decode the
same frame at once merely store it twice.

Layout under ``root``::

    packs/ab/<sha1(content id | spec)>/<writer>.pack   the frames of one video at one spec
    videos/<content id>.json                            probe metadata (fps, frame count, size)
    ids/<sha1(path | size | mtime | inode)>             a file's content id, so a re-run need
                                                        not read the file to hash it
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import struct
import threading
import uuid
import zlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from streamspatial.core.errors import InputError, Problem

__all__ = ["FrameCache", "PackedFrames", "ResizeSpec", "encode_jpeg"]


@dataclass(frozen=True)
class ResizeSpec:
    """How cached frames are sized and encoded; part of every key.

    ``short_side``: the shorter side is scaled down to this (the longer side keeps the aspect
    ratio), as model recipes prescribe (OVO-S-Bench G.3); a frame already smaller keeps its size —
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


# A record: magic, frame time in microseconds, length, CRC-32 of the bytes; then the bytes.
_RECORD = struct.Struct("<4sqII")
_MAGIC = b"SSF1"


def _micros(time: float) -> int:
    """A frame's time to the microsecond: the unit frames are stored under."""
    return round(time * 1_000_000)


class PackedFrames:
    """The cached frames of one video at one resize spec: ``get``/``put``/``has`` by frame time.

    Thread-safe: a decoding thread may ``put`` while other threads ``get``.  Frames written by
    another process after this object was made are not seen (they would be decoded again).
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self._index: dict[int, tuple[int, int, int, int]] = {}  # µs → (fd, offset, length, crc)
        self._fds: list[int] = []
        self._own: int | None = None  # this writer's pack (fd), made on the first put
        self._own_size = 0
        self._lock = threading.Lock()
        if folder.is_dir():
            for pack in sorted(folder.glob("*.pack")):
                self._scan(pack)

    def _scan(self, pack: Path) -> None:
        try:
            fd = os.open(pack, os.O_RDONLY)
        except OSError:  # removed meanwhile (a cache being cleaned): nothing to read
            return
        n = os.fstat(fd).st_size
        offset, found = 0, False
        while offset + _RECORD.size <= n:  # headers only: the frames stay on disk
            header = os.pread(fd, _RECORD.size, offset)
            if len(header) < _RECORD.size:
                break
            magic, micros, length, crc = _RECORD.unpack(header)
            start = offset + _RECORD.size
            if magic != _MAGIC or start + length > n:
                break  # a record cut by a crash: the rest of this pack is ignored
            self._index.setdefault(micros, (fd, start, length, crc))
            offset, found = start + length, True
        if found:
            self._fds.append(fd)
        else:
            os.close(fd)

    def __len__(self) -> int:
        return len(self._index)

    def has(self, time: float) -> bool:
        return _micros(time) in self._index

    def get(self, time: float) -> bytes | None:
        """The frame's bytes, or None when absent (or damaged on disk: decode it again)."""
        entry = self._index.get(_micros(time))
        if entry is None:
            return None
        fd, offset, length, crc = entry
        try:
            data = os.pread(fd, length, offset)
        except OSError:  # closed under us: treat as not cached
            return None
        if len(data) != length or zlib.crc32(data) != crc:
            return None
        return data

    def put(self, time: float, data: bytes) -> None:
        """Append the frame to this writer's pack (a frame already stored is kept as it is)."""
        micros = _micros(time)
        with self._lock:
            if micros in self._index:
                return
            if self._own is None:
                self._own_size = 0
                self.folder.mkdir(parents=True, exist_ok=True)
                name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}.pack"
                self._own = os.open(
                    self.folder / name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644
                )
                self._fds.append(self._own)
            crc = zlib.crc32(data)
            record = memoryview(_RECORD.pack(_MAGIC, micros, len(data), crc) + data)
            try:
                while record:
                    record = record[os.write(self._own, record) :]
            except OSError:
                # A torn record ends what readers take from this pack: later frames go to a
                # new one (a full disk still raises, once).
                self._own = None
                raise
            start = self._own_size + _RECORD.size
            self._own_size = start + len(data)
            self._index[micros] = (self._own, start, len(data), crc)

    def missing(self, times: Iterable[float]) -> list[float]:
        return [t for t in times if _micros(t) not in self._index]

    def close(self) -> None:
        """Release the open packs; safe to call twice."""
        with self._lock:
            fds, self._fds, self._own = self._fds, [], None
            self._index.clear()
        for fd in fds:
            os.close(fd)

    def __del__(self) -> None:  # a reader dropped without close() must not leak descriptors
        for fd in getattr(self, "_fds", ()):
            with contextlib.suppress(OSError):
                os.close(fd)


class FrameCache:
    """JPEG frames on disk under ``root``, packed per video; safe for concurrent runs."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._packs = self.root / "packs"
        self._videos = self.root / "videos"
        self._ids = self.root / "ids"
        for folder in (self._packs, self._videos, self._ids):
            folder.mkdir(parents=True, exist_ok=True)

    def frames(self, content_id: str, spec: ResizeSpec) -> PackedFrames:
        """The frames of one video at one resize spec (read what earlier runs stored)."""
        key = hashlib.sha1(f"{content_id}|{spec}".encode()).hexdigest()
        return PackedFrames(self._packs / key[:2] / key)

    # Video metadata, so that a fully cached run never opens the container.
    def get_video_info(self, content_id: str) -> dict | None:
        try:
            return json.loads((self._videos / f"{content_id}.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put_video_info(self, content_id: str, info: object) -> None:
        payload = asdict(info) if hasattr(info, "__dataclass_fields__") else dict(info)  # type: ignore[call-overload]
        _atomic_write(self._videos / f"{content_id}.json", json.dumps(payload).encode())

    # A file's content id by what stat() says of it, so a re-run need not hash the file.
    @staticmethod
    def _stat_key(path: Path) -> str:
        st = path.stat()
        text = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}"
        return hashlib.sha1(text.encode()).hexdigest()

    def get_content_id(self, path: str | Path) -> str | None:
        try:
            text = (self._ids / self._stat_key(Path(path))).read_text().strip()
        except (FileNotFoundError, OSError):
            return None
        return text if len(text) == 40 else None

    def put_content_id(self, path: str | Path, content_id: str) -> None:
        _atomic_write(self._ids / self._stat_key(Path(path)), content_id.encode())


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
