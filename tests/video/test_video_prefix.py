"""PrefixView: refuses every index and time after t_q, before doing any work."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import CausalityError
from streamspatial.video.cache import ResizeSpec, encode_jpeg
from streamspatial.video.prefix import PrefixView, query_frame_index
from streamspatial.video.synthetic import draw_frame, read_frame_index, read_frame_index_jpeg


class SpyStore:
    """A store that records every call, so tests can assert no work happened."""

    def __init__(self, fps: float, n_frames: int):
        self.fps = fps
        self.n_frames = n_frames
        self.calls: list[list[int]] = []

    def jpeg_frames(self, indices: Sequence[int]) -> list[bytes]:
        self.calls.append(list(indices))
        return [encode_jpeg(draw_frame(i, (64, 48)), ResizeSpec(None)) for i in indices]

    def array_frames(self, indices: Sequence[int]) -> list[np.ndarray]:
        self.calls.append(list(indices))
        return [draw_frame(i, (64, 48)) for i in indices]


fps_values = st.sampled_from([1.0, 2.0, 10.0, 24.0, 25.0, 29.97, 30.0, 60.0])


@settings(max_examples=300, deadline=None)
@given(
    fps=fps_values,
    n_frames=st.integers(1, 100_000),
    t_q=st.floats(0, 5000, allow_nan=False),
    later=st.integers(1, 10_000),
    earlier=st.lists(st.integers(0, 100_000), max_size=5),
)
def test_every_later_index_or_time_is_refused_before_any_work(
    fps, n_frames, t_q, later, earlier
) -> None:
    store = SpyStore(fps, n_frames)
    view = PrefixView(store, t_q)
    assert view.n_q == min(math.floor(t_q * fps + 1e-9), n_frames - 1)
    assert view.frame_time(view.n_q) <= t_q + 1e-9
    bad = view.n_q + later
    allowed = [i % (view.n_q + 1) for i in earlier]
    for call in (view.get, view.arrays, view.check):
        with pytest.raises(CausalityError):
            call([*allowed, bad])
    with pytest.raises(CausalityError):
        view.get_at([t_q + later / fps])
    with pytest.raises(CausalityError):
        view.index_at(t_q + 1e-6)
    assert store.calls == []


@settings(max_examples=100, deadline=None)
@given(fps=fps_values, n_frames=st.integers(1, 5000), t_q=st.floats(0, 300, allow_nan=False))
def test_policies_through_the_view_stay_inside_it(fps, n_frames, t_q) -> None:
    view = PrefixView(SpyStore(fps, n_frames), t_q)
    for spec in ("single@query", "uniform-32", "log-decay-16", "nearest-16@4fps"):
        assert all(i <= view.n_q for i in view.select(spec))


def test_frames_come_out_in_the_order_asked_with_their_times() -> None:
    store = SpyStore(10.0, 1000)
    view = PrefixView(store, 5.05)
    assert view.n_q == 50
    frames = view.get([50, 0, 20])
    assert [(f.index, f.time) for f in frames] == [(50, 5.0), (0, 0.0), (20, 2.0)]
    assert [read_frame_index_jpeg(f.jpeg) for f in frames] == [50, 0, 20]
    arrays = view.arrays([7])
    assert read_frame_index(arrays[0].image) == 7 and arrays[0].time == pytest.approx(0.7)
    assert view.get_at([5.05, 0.0, 1.99])[0].index == 50
    assert [f.index for f in view.get_at([0.0, 1.99])] == [0, 19]
    assert view.get([]) == []


def test_query_frame_index_edges() -> None:
    assert query_frame_index(0.29, 100, 1000) == 29  # 0.29 * 100 = 28.999…
    assert query_frame_index(0.0, 30, 10) == 0
    assert query_frame_index(999.0, 30, 10) == 9  # clipped to the last frame
    with pytest.raises(ValueError):
        query_frame_index(-0.1, 30, 10)
    with pytest.raises(IndexError):
        PrefixView(SpyStore(1.0, 10), 5).get([-1])


def test_view_over_a_plain_source(tmp_path) -> None:
    from streamspatial.video.sources import open_source
    from streamspatial.video.synthetic import write_frame_folder

    source = open_source(write_frame_folder(tmp_path / "f", 5, size=(64, 48)))
    view = PrefixView(source, 2.5)
    assert view.n_q == 2
    assert [read_frame_index_jpeg(f.jpeg) for f in view.get([0, 2])] == [0, 2]
    with pytest.raises(CausalityError):
        view.get([3])
