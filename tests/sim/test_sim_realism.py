"""The six footage figures on frames whose answer is known, and the --size presets."""

from __future__ import annotations

import av
import numpy as np
import pytest

from streamspatial.cli.sim import parse_size
from streamspatial.core.errors import InputError
from streamspatial.sim.render.realism import (
    Figures,
    frame_figures,
    meets,
    video_figures,
    video_frames,
)


def test_a_flat_frame_has_one_colour_and_no_detail():
    f = frame_figures(np.full((48, 64, 3), 120, np.uint8))
    assert (f.distinct, f.entropy, f.top_share) == (1.0, 0.0, 1.0)
    assert (f.laplacian, f.edges) == (0.0, 0.0)
    assert f.texture == pytest.approx(0.0, abs=1e-3)


def test_two_halves_are_one_bit_and_one_edge():
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, 32:] = 255
    f = frame_figures(img)
    assert f.distinct == 2 and f.entropy == pytest.approx(1.0) and f.top_share == 0.5
    assert 0 < f.edges < 0.1  # the one vertical edge
    assert f.texture == pytest.approx(0.0, abs=1e-3)  # flat away from it


def test_noise_is_rich_in_colour_and_texture():
    rng = np.random.default_rng(0)
    f = frame_figures(rng.integers(0, 256, (120, 160, 3), dtype=np.uint8))
    assert f.entropy > 12 and f.top_share < 0.01 and f.laplacian > 1000
    # Faint grain (±8 grey levels) makes no Canny edges but is texture everywhere.
    grain = rng.integers(120, 137, (120, 160, 1), dtype=np.uint8).repeat(3, axis=2)
    g = frame_figures(grain)
    assert g.edges == 0.0 and 4.0 < g.texture < 5.5


def test_frames_are_spread_and_resized(tmp_path):
    path = tmp_path / "v.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=10)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        for i in range(30):
            img = np.full((48, 64, 3), i * 8, np.uint8)
            fr = av.VideoFrame.from_ndarray(img, format="rgb24")
            for p in s.encode(fr):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    frames = video_frames(path, frames=5, width=32)
    assert len(frames) == 5 and frames[0].shape == (24, 32, 3)
    assert frames[0].mean() < frames[-1].mean()  # first and last frames of the video
    assert video_figures(path, frames=5, width=32).distinct >= 1


def test_meets_is_half_the_real_figure_or_twice_the_top_share():
    real = Figures(600, 7, 0.05, 200, 0.05, 4)
    assert all(meets(Figures(300, 3.5, 0.1, 100, 0.025, 2), real).values())
    worse = meets(Figures(299, 3.4, 0.11, 99, 0.024, 1.9), real)
    assert not any(worse.values())


def test_size_presets():
    assert parse_size("s3") == parse_size("768") == (768, 768)
    assert parse_size("720p") == (1280, 720)
    assert parse_size("VGA") == (640, 480)
    assert parse_size("320x240") == (320, 240)
    with pytest.raises(InputError, match="qvga"):
        parse_size("huge")
