"""Count overlay (VCBench §4.3.1): draw "Current count: N" on every frame of a counting video.

The oracle experiment separates *seeing* from *counting*: with the running count written in
the upper-left corner, a model no longer has to align events in time, so what remains of its
error is numerical reasoning.  N at a frame is the number of annotated occurrences that have
happened by that frame's time (a point event at t counts from t on; an interval counts once
it has ended), exactly the quantity VCBench asks for at its query points.

Next to the text, the count is also drawn as a row of black/white blocks (12 bits + a 4-bit
check), so tools and tests can read the drawn count back from pixels after re-encoding,
the same way :mod:`streamspatial.video.synthetic` encodes frame indices.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from streamspatial.analysis.h264 import even, write_h264
from streamspatial.bench.vcbench.occurrences import EVENT_SUBCATEGORIES, overlay_items
from streamspatial.video.synthetic import code_bits

COUNT_BITS, CHECK_BITS = 12, 4
MAX_COUNT = (1 << COUNT_BITS) - 1
_BLACK, _WHITE = 0, 255


def occurrence_ends(raw: Any) -> list[float]:
    """The time each annotated occurrence has happened by, sorted.

    ``raw`` is VCBench's ``occurrence_times``: a list of times, ``{start: [...], end: [...]}``,
    or a list of ``[start, end]`` / ``{start, end}`` intervals.
    """
    if raw is None:
        return []
    if isinstance(raw, dict):
        return sorted(float(e) for e in raw.get("end") or [])
    out = []
    for e in raw:
        if isinstance(e, dict):
            out.append(float(e["end"]))
        elif isinstance(e, (list, tuple)):
            out.append(float(e[1]))
        else:
            out.append(float(e))
    return sorted(out)


def count_at(ends: Sequence[float], t: float, eps: float = 1e-6) -> int:
    """Occurrences that have happened by time ``t`` (``ends`` sorted)."""
    return bisect.bisect_right(ends, t + eps)


def _check(n: int) -> int:
    return ((n * 7) ^ (n >> 4) ^ (n >> 8) ^ 0b1010) & 0xF


def _bits(n: int) -> list[int]:
    if not 0 <= n <= MAX_COUNT:
        raise ValueError(f"count {n} outside [0, {MAX_COUNT}]")
    return code_bits(n, COUNT_BITS, CHECK_BITS, _check)


def layout(width: int, height: int) -> tuple[int, int, int, int]:
    """(margin, font size, block size, block row y) for a frame of this size."""
    margin = max(4, height // 40)
    font_size = max(12, height // 14)
    block = max(6, height // 40)
    return margin, font_size, block, margin + font_size + margin


def draw_count(image: np.ndarray, n: int) -> np.ndarray:
    """A copy of ``image`` (H×W×3 uint8) with "Current count: n" and its code drawn top-left."""
    height, width = image.shape[:2]
    margin, font_size, block, y = layout(width, height)
    if margin + block * (COUNT_BITS + CHECK_BITS) > width or y + block > height:
        raise ValueError(f"frame {width}x{height} is too small for the count overlay")
    pic = Image.fromarray(image)
    draw = ImageDraw.Draw(pic)
    font = ImageFont.load_default(size=font_size)
    text = f"Current count: {n}"
    box = draw.textbbox((margin, margin), text, font=font)
    draw.rectangle((box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3), fill=(0, 0, 0))
    draw.text((margin, margin), text, font=font, fill=(255, 255, 255))
    out = np.asarray(pic).copy()
    # A white frame around the block row so the outermost bits keep their contrast.
    out[y - 2 : y + block + 2, margin - 2 : margin + block * (COUNT_BITS + CHECK_BITS) + 2] = _WHITE
    for k, bit in enumerate(_bits(n)):
        x = margin + k * block
        out[y : y + block, x : x + block] = _BLACK if bit else _WHITE
    return out


def read_count(image: np.ndarray) -> int | None:
    """The count drawn by :func:`draw_count`, or None when the code does not check out."""
    height, width = image.shape[:2]
    margin, _, block, y = layout(width, height)
    gray = image.mean(axis=2) if image.ndim == 3 else image
    inner = max(1, block // 4)
    bits = []
    for k in range(COUNT_BITS + CHECK_BITS):
        x = margin + k * block
        cell = gray[y + inner : y + block - inner, x + inner : x + block - inner]
        bits.append(1 if float(cell.mean()) < 128 else 0)
    word = 0
    for b in bits:
        word = (word << 1) | b
    n, check = word >> CHECK_BITS, word & 0xF
    return n if _check(n) == check else None


def overlay_video(src: Path, dst: Path, ends: Sequence[float]) -> int:
    """Re-encode ``src`` into ``dst`` (H.264, same frame rate and timestamps) with the running
    count drawn on every frame; returns the number of frames written."""
    import av

    dst.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(src)) as inp:
        vin = inp.streams.video[0]
        rate = vin.average_rate or vin.guessed_rate or 30
        width, height = even(vin.codec_context.width, vin.codec_context.height)

        def drawn():
            for i, frame in enumerate(inp.decode(vin)):
                t = float(frame.time) if frame.time is not None else i / float(rate)
                rgb = frame.to_ndarray(format="rgb24")[:height, :width]
                new = av.VideoFrame.from_ndarray(draw_count(rgb, count_at(ends, t)), format="rgb24")
                new.pts = frame.pts
                new.time_base = frame.time_base
                yield new

        return write_h264(dst, drawn(), rate=rate, size=(width, height))


__all__ = [
    "EVENT_SUBCATEGORIES",
    "count_at",
    "draw_count",
    "occurrence_ends",
    "overlay_items",
    "overlay_video",
    "read_count",
]
