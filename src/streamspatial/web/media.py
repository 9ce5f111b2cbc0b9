"""Serving video files safely: only from the configured folders, and in byte ranges.

Why both matter: the server is a small local tool, but it still receives paths from a browser,
so every requested path is resolved (symlinks and ``..`` included) and must land inside one of
the configured roots; and an hour-long walkthrough must start playing at once and seek without
downloading the whole file, which is what HTTP range requests (206 + ``Content-Range``) give.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from streamspatial.core.errors import RequestRefused
from streamspatial.video.sources import VIDEO_SUFFIXES

CHUNK = 256 * 1024

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class MediaError(RequestRefused):
    """A media request that must be refused; ``status`` is the HTTP status to answer."""


def resolve_media(roots: Sequence[Path], relative: str) -> Path:
    """The file ``relative`` names under one of ``roots``; refuses anything outside them.

    The check is on the fully resolved path, so ``../``, absolute paths, encoded separators
    and symlinks pointing out of the folder are all refused the same way.
    """
    if not relative or "\x00" in relative:
        raise MediaError(404, "no such video")
    for root in roots:
        base = root.resolve()
        candidate = (base / relative).resolve()
        if not candidate.is_relative_to(base):
            continue
        if candidate.is_file():
            return candidate
    raise MediaError(404, f"no such video: {relative}")


def resolve_video(roots: Sequence[Path], relative: str) -> Path:
    """Like :func:`resolve_media`, for video files only: the videos folder also holds what
    must never reach a participant (the simulator's ``*.meta.json.gz`` ground truth, capture
    annotations, question files), so nothing but a video is ever served from it."""
    path = resolve_media(roots, relative)
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        raise MediaError(404, f"no such video: {relative}")
    return path


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """``(start, end)`` inclusive for a single ``bytes=`` range, ``None`` for the whole file.

    Raises :class:`MediaError` 416 for a range that cannot be satisfied (RFC 9110 §14.1.2);
    several ranges in one request are answered with the first only, which browsers accept.
    """
    if not header:
        return None
    first = header.split(",", 1)[0].strip()
    m = _RANGE.match(first)
    if m is None or (not m.group(1) and not m.group(2)):
        raise MediaError(416, f"bad range {header!r}")
    if not m.group(1):  # suffix range: the last N bytes
        n = int(m.group(2))
        if n == 0 or size == 0:
            raise MediaError(416, f"bad range {header!r}")
        return max(0, size - n), size - 1
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else size - 1
    if start >= size or end < start:
        raise MediaError(416, f"range {header!r} outside a {size}-byte file")
    return start, min(end, size - 1)


def iter_file(path: Path, start: int, end: int) -> Iterator[bytes]:
    """Bytes ``start..end`` (inclusive) of ``path`` in chunks, read lazily."""
    with path.open("rb") as fh:
        fh.seek(start)
        left = end - start + 1
        while left > 0:
            data = fh.read(min(CHUNK, left))
            if not data:
                break
            left -= len(data)
            yield data


def media_type(path: Path) -> str:
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def list_videos(root: Path) -> list[str]:
    """Video files under ``root`` (recursively), as POSIX paths relative to it, sorted."""
    base = root.resolve()
    out = [
        p.relative_to(base).as_posix()
        for p in base.rglob("*")
        if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES
    ]
    return sorted(out)


__all__ = [
    "MediaError",
    "iter_file",
    "list_videos",
    "media_type",
    "parse_range",
    "resolve_media",
    "resolve_video",
]
