"""The timestamp video must say which frame it is after encode, decode, resize and JPEG."""

from __future__ import annotations

import io

import av
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from streamspatial.video.synthetic import (
    MAX_INDEX,
    draw_frame,
    read_frame_index,
    read_frame_index_jpeg,
    read_timestamp,
    write_frame_folder,
    write_timestamp_video,
)


def _jpeg(image: np.ndarray, height: int | None = None, quality: int = 75) -> bytes:
    img = Image.fromarray(image)
    if height is not None:
        img = img.resize((round(image.shape[1] * height / image.shape[0]), height))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, MAX_INDEX), st.sampled_from([64, 100, 240]))
def test_drawn_index_survives_resize_and_jpeg(index: int, height: int) -> None:
    assert read_frame_index_jpeg(_jpeg(draw_frame(index, (320, 240)), height)) == index


def test_blank_and_noise_images_are_rejected() -> None:
    for image in (
        np.full((240, 320, 3), 255, np.uint8),
        np.zeros((240, 320, 3), np.uint8),
        np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8),
    ):
        with pytest.raises(ValueError):
            read_frame_index(image)


def test_video_round_trip(tmp_path) -> None:
    path = write_timestamp_video(tmp_path / "v.mp4", seconds=2, fps=15, size=(160, 120), gop=10)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.average_rate == 15
        frames = list(container.decode(stream))
    assert len(frames) == 30
    for k, frame in enumerate(frames):
        rgb = frame.to_ndarray(format="rgb24")
        assert read_frame_index(rgb) == k
        assert read_timestamp(rgb, 15) == pytest.approx(k / 15)
        assert float(frame.pts * frame.time_base) == pytest.approx(k / 15, abs=1e-3)
        assert read_frame_index_jpeg(_jpeg(rgb, 64)) == k
    assert sum(f.key_frame for f in frames) == 3  # gop=10 over 30 frames


def test_frame_folder_layout(tmp_path) -> None:
    folder = write_frame_folder(tmp_path / "frames", 5, size=(160, 120))
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"{k:06d}.jpg" for k in range(1, 6)]
    for i, name in enumerate(names):
        assert read_frame_index_jpeg((folder / name).read_bytes()) == i
