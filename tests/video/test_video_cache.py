"""Frame cache: content-addressed keys, sizes, atomic writes, concurrent writers."""

from __future__ import annotations

import io
import multiprocessing
import threading

import pytest
from PIL import Image

from streamspatial.core.errors import InputError
from streamspatial.video.cache import FrameCache, ResizeSpec, encode_jpeg
from streamspatial.video.synthetic import draw_frame, read_frame_index_jpeg


def test_frames_are_kept_apart_by_content_and_resize_spec(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    base = cache.frames("a" * 40, ResizeSpec(448))
    base.put(1.0, b"frame")
    others = [
        cache.frames("b" * 40, ResizeSpec(448)),
        cache.frames("a" * 40, ResizeSpec(336)),
        cache.frames("a" * 40, ResizeSpec(448, max_pixels=50_176)),
        cache.frames("a" * 40, ResizeSpec(448, quality=75)),
        cache.frames("a" * 40, ResizeSpec(None)),
    ]
    assert all(o.get(1.0) is None for o in others)
    again = cache.frames("a" * 40, ResizeSpec(448))
    assert again.get(1.0) == b"frame"
    assert again.get(1.0 + 1 / 30) is None and not again.has(1.000002)
    assert again.has(1.0000004)  # frames are stored under their time to the microsecond


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


def test_put_get_in_one_pack_and_a_frame_stored_twice_keeps_the_first(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    frames = cache.frames("c" * 40, ResizeSpec(64))
    assert frames.get(2.0) is None and not frames.has(2.0) and len(frames) == 0
    for i in range(50):
        frames.put(i / 30, encode_jpeg(draw_frame(i, (160, 120)), ResizeSpec(64)))
    frames.put(0.0, b"not this")
    assert read_frame_index_jpeg(frames.get(0.0)) == 0
    assert [read_frame_index_jpeg(frames.get(i / 30)) for i in range(50)] == list(range(50))
    frames.close()
    frames.close()
    packs = list(tmp_path.rglob("*.pack"))
    assert len(packs) == 1
    reopened = cache.frames("c" * 40, ResizeSpec(64))
    assert len(reopened) == 50 and read_frame_index_jpeg(reopened.get(49 / 30)) == 49
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_a_record_torn_by_a_crash_or_damaged_on_disk_is_a_miss(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    frames = cache.frames("f" * 40, ResizeSpec(64))
    for i in range(3):
        frames.put(float(i), bytes([i]) * 1000)
    frames.close()
    (pack,) = tmp_path.rglob("*.pack")
    size = pack.stat().st_size
    with pack.open("r+b") as fh:
        fh.truncate(size - 10)  # the last record cut short, as by a crash mid-write
        fh.seek(30)
        fh.write(b"\xff\xff")  # a flipped byte inside the first frame
    again = cache.frames("f" * 40, ResizeSpec(64))
    assert again.get(0.0) is None  # CRC mismatch: decoded again rather than served damaged
    assert again.get(1.0) == bytes([1]) * 1000
    assert not again.has(2.0)
    again.put(2.0, b"redone")  # a new pack for what this writer adds
    assert cache.frames("f" * 40, ResizeSpec(64)).get(2.0) == b"redone"
    assert len(list(tmp_path.rglob("*.pack"))) == 2


def test_content_id_by_stat_changes_when_the_file_does(tmp_path) -> None:
    cache = FrameCache(tmp_path / "c")
    video = tmp_path / "v.mp4"
    video.write_bytes(b"abc")
    assert cache.get_content_id(video) is None
    cache.put_content_id(video, "1" * 40)
    assert FrameCache(tmp_path / "c").get_content_id(video) == "1" * 40
    video.write_bytes(b"abcd")
    assert cache.get_content_id(video) is None


def test_video_info_round_trip(tmp_path) -> None:
    cache = FrameCache(tmp_path)
    assert cache.get_video_info("d" * 40) is None
    cache.put_video_info("d" * 40, {"fps": 30.0, "n_frames": 3})
    assert FrameCache(tmp_path).get_video_info("d" * 40) == {"fps": 30.0, "n_frames": 3}


def _writer(root: str, seed: int) -> None:
    frames = FrameCache(root).frames("e" * 40, ResizeSpec(None))
    for i in range(40):
        frames.put(i / 30, encode_jpeg(draw_frame(i, (96, 72)), ResizeSpec(None)))
    frames.close()


def test_concurrent_writers_each_write_their_own_pack(tmp_path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), s)) for s in range(2)]
    threads = [threading.Thread(target=_writer, args=(str(tmp_path), 9)) for _ in range(2)]
    for w in (*procs, *threads):
        w.start()
    for w in (*procs, *threads):
        w.join()
    assert all(p.exitcode == 0 for p in procs)
    frames = FrameCache(tmp_path).frames("e" * 40, ResizeSpec(None))
    for i in range(40):
        data = frames.get(i / 30)
        assert data is not None and read_frame_index_jpeg(data) == i
    assert 1 <= len(list(tmp_path.rglob("*.pack"))) <= 4  # one per writer that wrote
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_one_writer_many_reading_threads(tmp_path) -> None:
    frames = FrameCache(tmp_path).frames("9" * 40, ResizeSpec(None))
    errors: list[str] = []

    def read() -> None:
        for _ in range(2000):
            for i in range(100):
                data = frames.get(float(i))
                if data is not None and data != str(i).encode() * 100:
                    errors.append(f"frame {i}: {data[:8]!r}")

    readers = [threading.Thread(target=read) for _ in range(3)]
    for r in readers:
        r.start()
    for i in range(100):
        frames.put(float(i), str(i).encode() * 100)
    for r in readers:
        r.join()
    assert errors == []
