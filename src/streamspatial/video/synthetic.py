"""Test videos whose every frame says which frame it is.

Causality and single-pass tests need ground truth about *which* frame reached a model, after
H.264 encoding, decoding, resizing and JPEG compression.  We draw the frame index into the
pixels as a big-block binary barcode that fills the whole frame, so it survives every one of
those steps, and read it back from pixels alone.

Layout: a ``ROWS × COLS`` grid of cells.  The first ``DATA_BITS`` cells (row-major) carry the
frame index, most significant bit first; the remaining ``CHECK_BITS`` cells carry a checksum of
the index, so a frame that is not a barcode (or a damaged one) is rejected instead of silently
misread.  Black cells are bit 1, white cells bit 0.  A faint moving texture is added on top so
consecutive frames differ in more than a few cells, as in real video; its amplitude is far below
the black/white decision margin.
"""

from __future__ import annotations

import functools
import io
import math
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

from streamspatial.core.errors import InputError

ROWS = 4
COLS = 8
DATA_BITS = 24
CHECK_BITS = ROWS * COLS - DATA_BITS  # 8
MAX_INDEX = (1 << DATA_BITS) - 1
_BLACK = 24
_WHITE = 232
_TEXTURE = 14  # ± amplitude of the moving texture, well below (_WHITE - _BLACK) / 2


def _checksum(index: int) -> int:
    """8-bit check over the three index bytes; the constant makes all-white/all-black invalid."""
    b0, b1, b2 = (index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF
    return ((b0 * 7 + b1 * 13 + b2 * 31 + (b0 ^ b1 ^ b2)) & 0xFF) ^ 0x5A


def code_bits(value: int, data_bits: int, check_bits: int, checksum) -> list[int]:
    """``value`` then its ``checksum(value)``, most significant bit first: a visual code's cells."""
    word = (value << check_bits) | checksum(value)
    n = data_bits + check_bits
    return [(word >> (n - 1 - k)) & 1 for k in range(n)]


def _bits(index: int) -> list[int]:
    if not 0 <= index <= MAX_INDEX:
        raise ValueError(f"frame index {index} outside [0, {MAX_INDEX}]")
    return code_bits(index, DATA_BITS, CHECK_BITS, _checksum)


def draw_frame(index: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """The RGB image (H×W×3 uint8) that encodes ``index``; ``size`` is (width, height)."""
    gray = _draw_gray(index, size)
    return np.repeat(gray[:, :, None], 3, axis=2)


def _draw_gray(index: int, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    bits = np.array(_bits(index), dtype=np.uint8).reshape(ROWS, COLS)
    ys = (np.arange(height) * ROWS) // height
    xs = (np.arange(width) * COLS) // width
    cells = bits[ys[:, None], xs[None, :]]
    gray = np.where(cells == 1, _BLACK, _WHITE).astype(np.uint8)
    # Diagonal stripes drifting one pixel per frame: cheap, deterministic, non-static.
    gray += _stripes(width, height)[index % 16]
    return gray


@functools.lru_cache(maxsize=4)
def _stripes(width: int, height: int) -> np.ndarray:
    """16 phases of ±_TEXTURE diagonal stripes, as uint8 deltas (wrapping add = signed add)."""
    yy, xx = np.mgrid[0:height, 0:width]
    phases = [
        ((xx + yy + k) % 16 < 8).astype(np.int16) * (2 * _TEXTURE) - _TEXTURE for k in range(16)
    ]
    return np.stack(phases).astype(np.uint8)


def read_frame_index(image: np.ndarray) -> int:
    """Decode the index drawn by :func:`draw_frame` from an RGB (or gray) image of any size.

    Samples the central half of each cell, so block-edge ringing and resampling blur do not
    matter.  Raises :class:`ValueError` if the checksum does not match.
    """
    arr = np.asarray(image)
    if arr.ndim == 3:
        arr = arr[:, :, :3].mean(axis=2)
    arr = arr.astype(np.float32)
    height, width = arr.shape
    if height < 2 * ROWS or width < 2 * COLS:
        raise ValueError(f"image {width}×{height} too small to hold a frame-index barcode")
    bits: list[int] = []
    for r in range(ROWS):
        y0, y1 = (r * height) / ROWS, ((r + 1) * height) / ROWS
        ya, yb = int(y0 + (y1 - y0) / 4), max(int(y0 + (y1 - y0) / 4) + 1, int(y1 - (y1 - y0) / 4))
        for c in range(COLS):
            x0, x1 = (c * width) / COLS, ((c + 1) * width) / COLS
            xa = int(x0 + (x1 - x0) / 4)
            xb = max(xa + 1, int(x1 - (x1 - x0) / 4))
            bits.append(1 if arr[ya:yb, xa:xb].mean() < 128 else 0)
    word = 0
    for b in bits:
        word = (word << 1) | b
    index = word >> CHECK_BITS
    if word & ((1 << CHECK_BITS) - 1) != _checksum(index):
        raise ValueError("no valid frame-index barcode in image (checksum mismatch)")
    return index


def read_frame_index_jpeg(data: bytes) -> int:
    """:func:`read_frame_index` on JPEG (or any Pillow-readable) bytes."""
    with Image.open(io.BytesIO(data)) as img:
        return read_frame_index(np.asarray(img.convert("L")))


def read_timestamp(image: np.ndarray, fps: float) -> float:
    """The time in seconds of the frame drawn in ``image`` in a video at ``fps``."""
    return read_frame_index(image) / fps


def _rate(fps: float) -> Fraction:
    return Fraction(fps).limit_denominator(1001)


def write_timestamp_video(
    path: str | Path,
    *,
    seconds: float,
    fps: float = 30,
    size: tuple[int, int] = (320, 240),
    codec: str = "h264",
    gop: int | None = None,
    preset: str = "ultrafast",
) -> Path:
    """Write an mp4 of ``seconds`` whose frame ``i`` has ``pts = i / fps`` and shows ``i``.

    ``gop`` sets the keyframe interval (``None`` keeps the encoder's default, 250 for x264),
    which is what makes seeking expensive in real files.  ``size`` is (width, height), both even.
    """
    path = Path(path)
    n = round(seconds * fps)
    if n < 1:
        raise InputError(f"{path}: a timestamp video needs at least one frame (seconds * fps ≥ 1)")
    rate = _rate(fps)
    width, height = size
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(codec, rate=rate)
        stream.width = width
        stream.height = height
        stream.pix_fmt = "yuv420p"
        stream.codec_context.time_base = 1 / rate
        options = {}
        if codec in ("h264", "libx264"):
            options["preset"] = preset
        if gop is not None:
            stream.codec_context.gop_size = gop
            if codec in ("h264", "libx264"):
                options["keyint"] = str(gop)
                options["x264-params"] = f"keyint={gop}:min-keyint={gop}:scenecut=0"
        stream.options = options
        planes = np.full((height * 3 // 2, width), 128, dtype=np.uint8)
        for i in range(n):
            # Gray pictures go straight into the Y plane: no RGB→YUV conversion needed.
            planes[:height] = _draw_gray(i, size)
            frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
            frame.pts = i
            frame.time_base = 1 / rate
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path


def write_frame_folder(
    directory: str | Path,
    seconds: float,
    *,
    fps: float = 1.0,
    size: tuple[int, int] = (320, 240),
    start: int = 1,
    digits: int = 6,
    quality: int = 90,
) -> Path:
    """Write pre-extracted frames as numbered JPEGs (UCS-Bench App. C: 1 fps, one file a frame).

    File ``{k:0{digits}d}.jpg`` for ``k = start, start+1, ...``; the picture in file number
    ``start + i`` encodes ``i``, the frame's index in the stream, so its time is ``i / fps``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    n = max(1, math.floor(seconds * fps + 1e-9))
    for i in range(n):
        img = Image.fromarray(draw_frame(i, size))
        img.save(directory / f"{start + i:0{digits}d}.jpg", format="JPEG", quality=quality)
    return directory
