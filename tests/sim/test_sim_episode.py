"""Video export: the mp4 decodes with the right frames and the metadata loads back exactly."""

from __future__ import annotations

import gzip
import json

import av
import numpy as np
import pytest

from streamspatial.core.errors import InputError
from streamspatial.scene.types import load_episode_meta, meta_path_for
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.encoder import VideoWriter
from streamspatial.sim.render.episode import render_episode
from streamspatial.sim.walk.nav import plan_trajectory


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    h = generate_house(3)
    tr = plan_trajectory(h, duration=3.0, fps=5.0, seed=0)
    calls: list[tuple[int, int]] = []
    out = tmp_path_factory.mktemp("ep")
    paths = render_episode(h, tr, out, size=(160, 120), progress=lambda i, n: calls.append((i, n)))
    return h, tr, paths, calls


def test_mp4_decodes_with_right_frame_count_size_and_rate(episode):
    _, tr, paths, _ = episode
    with av.open(str(paths.video)) as c:
        s = c.streams.video[0]
        assert s.codec_context.name == "h264"
        assert float(s.average_rate) == pytest.approx(5.0)
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(s)]
    assert len(frames) == len(tr.poses) == 15
    assert frames[0].shape == (120, 160, 3)
    assert float(np.std(frames[0])) > 5  # not a blank frame


def test_metadata_round_trips(episode):
    h, tr, paths, _ = episode
    assert paths.meta == meta_path_for(paths.video)
    assert paths.meta.name == "house-3.mp4.meta.json.gz"
    meta = load_episode_meta(paths.video)
    assert meta == load_episode_meta(paths.meta)
    assert meta.house == h
    assert meta.video == "house-3.mp4"
    assert meta.trajectory.poses == tr.poses
    assert meta.intrinsics.width == 160 and meta.intrinsics.height == 120
    assert meta.intrinsics.vfov_deg == pytest.approx(60.0)
    assert [f.index for f in meta.frames] == list(range(15))
    for f in meta.frames:
        assert f.room_id == h.room_at(*f.pose.position[:2])
        for v in f.visible:
            assert v.pixels > 0 and 0 <= v.bbox[0] < v.bbox[2] <= 160
            h.object(v.instance_id)  # refers to a real object
    assert any(f.visible for f in meta.frames)
    first = meta.first_seen()
    assert all(meta.frames[i].visible_ids() >= {iid} for iid, i in first.items())


def test_progress_reports_every_frame(episode):
    _, _, _, calls = episode
    assert calls == [(i, 15) for i in range(1, 16)]


def test_same_episode_same_metadata_bytes(episode, tmp_path):
    h, tr, paths, _ = episode
    timings = {"render": 1.0}
    again = render_episode(h, tr, tmp_path, size=(160, 120), timings=timings)
    assert again.meta.read_bytes() == paths.meta.read_bytes()
    # Stage timings accumulate into the mapping given (benchmarks/sim.py reads them).
    assert set(timings) == {"render", "encode", "metadata"}
    assert timings["render"] > 1.0 and timings["encode"] > 0 and timings["metadata"] > 0


def test_broken_or_missing_metadata_is_a_user_error(tmp_path):
    with pytest.raises(InputError, match="metadata"):
        load_episode_meta(tmp_path / "nope.mp4")
    bad = tmp_path / "x.mp4.meta.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(InputError):
        load_episode_meta(bad)
    with gzip.open(bad, "wb") as f:
        f.write(json.dumps({"house": {}}).encode())
    with pytest.raises(InputError, match=str(bad)):
        load_episode_meta(bad)


def test_odd_sizes_and_mismatched_trajectory_are_user_errors(tmp_path):
    with pytest.raises(InputError, match="even"):
        VideoWriter(tmp_path / "a.mp4", (161, 120), 10)
    tr = plan_trajectory(generate_house(1), duration=1, fps=2)
    with pytest.raises(InputError, match="trajectory"):
        render_episode(generate_house(2), tr, tmp_path)
