"""Frame sampling under ``--scorer official`` equals OVO-S-Bench's ``utils/frame_utils.py``.

Expected values: :mod:`official_reference` (the index computations of frame_utils.py, with
numpy's ``linspace(dtype=int)`` and Python's ``round``), then decord's clamp to the last
frame.  streamspatial clips to the prefix as well, so the only allowed difference is the
frame the official uniform policy requests after a query before the second frame.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from official_reference import (
    decord_clamp,
    frame_utils_evidence_only,
    frame_utils_fixed_count,
    frame_utils_log_decay,
    frame_utils_recent_window,
    frame_utils_single,
)
from streamspatial.video.official_sampling import (
    floor_linspace,
    official_log_decay,
    official_nearest,
    official_single,
    official_uniform,
)
from streamspatial.video.policies import select_frames
from streamspatial.video.prefix import query_frame_index

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
fps_values = st.one_of(
    st.sampled_from([1.0, 2.0, 10.0, 15.0, 23.976, 24.0, 25.0, 29.97, 30.0, 59.94, 60.0]),
    st.floats(0.5, 120.0, allow_nan=False),
)
query_times = st.one_of(
    st.floats(0.0, 1800.0, allow_nan=False),
    st.integers(0, 1800).map(float),
    st.decimals(0, 900, places=2).map(float),  # annotation-style times: 22.8, 0.29, …
)


@SETTINGS
@given(st.integers(0, 100_000), st.integers(0, 100_000), st.integers(0, 600))
def test_floor_linspace_equals_numpy(start: int, stop: int, num: int) -> None:
    assert floor_linspace(start, stop, num) == np.linspace(start, stop, num, dtype=int).tolist()


@SETTINGS
@given(query_times, fps_values, st.integers(1, 256))
def test_uniform_equals_extract_frames_fixed_count(t_q: float, fps: float, n: int) -> None:
    assert official_uniform(t_q, fps, n) == frame_utils_fixed_count(t_q, fps, n)
    # The oracle as coded: inference.py builds queries without evidence_times.
    assert official_uniform(t_q, fps, n) == frame_utils_evidence_only(t_q, fps, None, n)


@SETTINGS
@given(query_times, fps_values)
def test_single_equals_extract_single_frame_at_query(t_q: float, fps: float) -> None:
    assert official_single(t_q, fps) == frame_utils_single(t_q, fps)


@SETTINGS
@given(query_times, fps_values, st.integers(1, 64), st.sampled_from([1.0, 2.0, 4.0, 8.0, 12.0]))
def test_nearest_equals_extract_recent_window(t_q, fps, n, rate) -> None:
    assert official_nearest(t_q, fps, n, rate) == frame_utils_recent_window(t_q, fps, n, rate)


@SETTINGS
@given(query_times, fps_values, st.integers(1, 256))
def test_log_decay_equals_extract_log_decay(t_q: float, fps: float, n: int) -> None:
    assert official_log_decay(t_q, fps, n) == frame_utils_log_decay(t_q, fps, n)


@SETTINGS
@given(
    query_times,
    fps_values,
    st.integers(1, 200),
    st.sampled_from(["uniform", "log-decay", "oracle-evidence", "single", "nearest"]),
    st.integers(0, 30),
)
def test_selected_frames_are_the_official_ones_clamped_to_the_prefix(
    t_q: float, fps: float, n: int, kind: str, extra_frames: int
) -> None:
    """What select_frames(rules="official") sends, against frame_utils + decord's clamp."""
    n_frames = max(1, int(t_q * fps) + 1 + extra_frames)  # the video may end at the query
    n_q = query_frame_index(t_q, fps, n_frames)
    spec = {
        "uniform": f"uniform-{n}",
        "log-decay": f"log-decay-{n}",
        "oracle-evidence": f"oracle-evidence-{n}",
        "single": "single@query",
        "nearest": f"nearest-{min(n, 32)}@4fps",
    }[kind]
    got = select_frames(spec, n_q, fps, [(0.0, t_q)], rules="official", t_q=t_q)
    official = {
        "uniform": lambda: frame_utils_fixed_count(t_q, fps, n),
        "log-decay": lambda: frame_utils_log_decay(t_q, fps, n),
        "oracle-evidence": lambda: frame_utils_evidence_only(t_q, fps, None, n),
        "single": lambda: frame_utils_single(t_q, fps),
        "nearest": lambda: frame_utils_recent_window(t_q, fps, min(n, 32), 4.0),
    }[kind]()
    assert got and got[-1] <= n_q  # never a frame after the query
    if int(t_q * fps) >= 1 or kind in ("single", "nearest"):
        assert got == decord_clamp(official, n_frames)
    else:  # the one deviation: official asks for frame 1 at a query before the second frame
        assert got == [0]


@pytest.mark.parametrize(
    ("spec", "t_q", "fps", "expected", "rule"),
    [
        ("uniform-4", 10.0, 1.0, [0, 3, 6, 10], "floor, not round: 3.33 → 3, 6.67 → 6"),
        ("uniform-1", 10.0, 1.0, [0], "uniform-1 is numpy's first point, frame 0"),
        (
            "nearest-16@4fps",
            1.5,
            30.0,
            [0, 8, 16, 24, 32, 40],
            "step round(7.5) = 8 (halves to even) from frame 0; the query frame 45 is missed",
        ),
        ("nearest-4@4fps", 10.0, 30.0, [276, 284, 292, 300], "step 8, anchored at the query"),
        (
            "log-decay-10",
            100.0,
            1.0,
            [70, 75, 81, 87, 93, 99, 0, 34, 69],
            "bands [70, 99] × round(6.0) and [0, 69] × round(3.0); the missing oldest band's "
            "frame goes to nobody, and the query frame 100 is never shown",
        ),
        ("oracle-evidence-4", 10.0, 1.0, [0, 3, 6, 10], "the official oracle is uniform"),
        ("single@query", 0.29, 100.0, [28], "int(0.29 × 100) = int(28.999…) = 28"),
    ],
)
def test_official_sampling_rules(spec, t_q, fps, expected, rule) -> None:
    n_q = query_frame_index(t_q, fps, int(t_q * fps) + 100)
    assert select_frames(spec, n_q, fps, rules="official", t_q=t_q) == sorted(set(expected)), rule


def test_paper_rules_are_unchanged_by_default() -> None:
    assert select_frames("uniform-4", 10, 1.0) == [0, 3, 7, 10]  # App. A.1 rounds half up
    assert select_frames("uniform-1", 10, 1.0) == [10]
