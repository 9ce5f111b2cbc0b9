"""Frame cache: content-addressed keys, sizes, atomic writes, concurrent writers."""

from __future__ import annotations

import io
import multiprocessing
import threading

import numpy as np
import pytest
from PIL import Image

from streamspatial.core.errors import InputError
from streamspatial.video.cache import FrameCache, ResizeSpec, encode_jpeg
from streamspatial.video.synthetic import draw_frame, read_frame_index_jpeg


def test_keys_differ_by_content_time_and_resize_spec() -> None:
    base = FrameCache.key("a" * 40, 1.0, ResizeSpec(448))
    assert base == FrameCache.key("a" * 40, 1.0, ResizeSpec(448))
    others = {
        FrameCache.key("b" * 40, 1.0, ResizeSpec(448)),
        FrameCache.key("a" * 40, 1.0 + 1 / 30, ResizeSpec(448)),
        FrameCache.key("a" * 40, 1.0, ResizeSpec(336)),
        FrameCache.key("a" * 40, 1.0, ResizeSpec(448, max_pixels=50_176)),
        FrameCache.key("a" * 40, 1.0, ResizeSpec(448, quality=75)),
        FrameCache.key("a" * 40, 1.0, ResizeSpec(None)),
    }
    assert base not in others and len(others) == 6
    assert len(base) == 40 and int(base, 16) >= 0


@pytest.mark.parametrize(
    ("spec", "size", "expected"),
    [
        (ResizeSpec(448), (640, 480), (597, 448)),
        (ResizeSpec(448), (480, 640), (448, 597)),
        # never upscaled: 10x the image tokens for no information
        (ResizeSpec(448), (320, 240), (320, 240)),
        (ResizeSpec(240), (320, 240), (320, 240)),
        (ResizeSpec(200), (320, 240), (267, 200)),
        (ResizeSpec(None), (640, 480), (640, 480)),
        (ResizeSpec(448, max_pixels=50_176), (640, 480), (258, 193)),
        (ResizeSpec(None, max_pixels=100), (640, 480), (11, 8)),
    ],
)
def test_target_size(spec, size, expected) -> None:
    got = spec.target_size(*size)
    assert got == expected
    if spec.max_pixels:
        assert got[0] * got[1] <= spec.max_pixels


def test_bad_resize_spec() -> None:
    with pytest.raises(InputError, match="short_side"):
        ResizeSpec(0)
    with pytest.raises(InputError, match="quality"):
        ResizeSpec(448, quality=0)


def test_encode_resizes_and_keeps_the_picture() -> None:
    data = encode_jpeg(draw_frame(4321, (640, 480)), ResizeSpec(64))
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "JPEG" and img.size == (85, 64)
    assert read_frame_index_jpeg(data) == 4321


def test_put_get_and_fetch_once(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    spec = ResizeSpec(64)
    key = cache.key("c" * 40, 2.0, spec)
    assert cache.get(key) is None and not cache.has(key)
    calls = []

    def make() -> np.ndarray:
        calls.append(1)
        return draw_frame(60, (160, 120))

    first = cache.fetch("c" * 40, 2.0, spec, make)
    second = cache.fetch("c" * 40, 2.0, spec, make)
    assert first == second == cache.get(key) and len(calls) == 1
    assert cache.path(key).parent.name == key[:2]
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_video_info_round_trip(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    assert cache.get_video_info("d" * 40) is None
    cache.put_video_info("d" * 40, {"fps": 30.0, "n_frames": 3})
    assert FrameCache(tmp_path).get_video_info("d" * 40) == {"fps": 30.0, "n_frames": 3}


def _writer(root: str, seed: int) -> None:
    cache = FrameCache(root)
    for i in range(40):
        data = encode_jpeg(draw_frame(i, (96, 72)), ResizeSpec(None))
        cache.put(cache.key("e" * 40, i / 30, ResizeSpec(None)), data)


def test_concurrent_writers_leave_whole_files(tmp_path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), s)) for s in range(2)]
    threads = [threading.Thread(target=_writer, args=(str(tmp_path), 9)) for _ in range(2)]
    for w in (*procs, *threads):
        w.start()
    for w in (*procs, *threads):
        w.join()
    assert all(p.exitcode == 0 for p in procs)
    cache = FrameCache(tmp_path)
    for i in range(40):
        data = cache.get(cache.key("e" * 40, i / 30, ResizeSpec(None)))
        assert data is not None and read_frame_index_jpeg(data) == i
    assert not [p for p in tmp_path.rglob("*.tmp")]
