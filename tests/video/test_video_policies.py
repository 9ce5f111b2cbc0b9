"""Sampling policies (OVO-S-Bench App. A.1, UCS-Bench App. C): exact outputs and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import InputError
from streamspatial.video.policies import PolicySpec, parse_policy, select_frames

SPECS = [
    "none",
    "single@query",
    "nearest-16@4fps",
    "nearest-16f@4fps",
    "nearest-5@0.5fps",
    "uniform-1",
    "uniform-2",
    "uniform-32",
    "uniform-128",
    "log-decay-16",
    "log-decay-128",
    "oracle-evidence",
    "oracle-evidence-64",
    "window-8@1fps/30s",
    "window-16/10s",
]


@settings(max_examples=300, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    n_q=st.integers(0, 40_000),
    fps=st.sampled_from([1.0, 2.0, 10.0, 24.0, 29.97, 30.0, 60.0]),
    evidence=st.lists(
        st.tuples(st.floats(0, 2000), st.floats(0, 200)).map(lambda p: (p[0], p[0] + p[1])),
        max_size=4,
    ),
)
def test_indices_are_sorted_unique_and_inside_the_prefix(spec, n_q, fps, evidence) -> None:
    frames = select_frames(spec, n_q, fps, evidence)
    assert frames == sorted(set(frames))
    assert all(0 <= i <= n_q for i in frames)
    if spec != "none":
        assert frames  # every visual policy gives at least one frame


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 300),
    n_q=st.integers(0, 40_000),
    fps=st.sampled_from([1.0, 10.0, 29.97, 30.0]),
)
def test_budgeted_policies_give_exactly_n_when_the_prefix_allows(n, n_q, fps) -> None:
    expected = min(n, n_q + 1)
    assert len(select_frames(f"uniform-{n}", n_q, fps)) == expected
    assert len(select_frames(f"log-decay-{n}", n_q, fps)) == expected
    assert len(select_frames(f"oracle-evidence-{n}", n_q, fps, [])) == expected


@settings(max_examples=200, deadline=None)
@given(n_q=st.integers(0, 5000), n=st.integers(2, 200))
def test_uniform_includes_both_ends(n_q, n) -> None:
    frames = select_frames(f"uniform-{n}", n_q, 30)
    assert frames[0] == 0 and frames[-1] == n_q


@settings(max_examples=200, deadline=None)
@given(n_q=st.integers(0, 5000), k=st.integers(1, 40), w=st.integers(1, 100))
def test_window_stays_inside_the_window(n_q, k, w) -> None:
    frames = select_frames(f"window-{k}@1fps/{w}s", n_q, 1.0)
    assert frames[-1] == n_q
    assert all(n_q - i <= w for i in frames)
    assert len(frames) == min(k, w + 1, n_q + 1)


def test_known_outputs() -> None:
    assert select_frames("none", 10, 30) == []
    assert select_frames("single@query", 37, 30) == [37]
    assert select_frames("uniform-5", 8, 1) == [0, 2, 4, 6, 8]
    assert select_frames("uniform-4", 10, 1) == [0, 3, 7, 10]  # 3.33, 6.67 round to 3, 7
    assert select_frames("uniform-3", 5, 1) == [0, 3, 5]  # 2.5 rounds half up
    assert select_frames("uniform-5", 3, 1) == [0, 1, 2, 3]  # n_q + 1 < N: all frames
    assert select_frames("uniform-1", 9, 1) == [9]
    # Δ = round(30 / 4) = 8 (7.5 rounds half up); the window stops at frame 0.
    assert select_frames("nearest-16f@4fps", 20, 30) == [4, 12, 20]
    assert select_frames("nearest-4@4fps", 100, 30) == [76, 84, 92, 100]
    assert select_frames("nearest-3@60fps", 10, 30) == [8, 9, 10]  # Δ never below 1
    assert select_frames("window-8@1fps/5s", 20, 1) == [15, 16, 17, 18, 19, 20]
    assert select_frames("window-3@1fps/30s", 20, 1) == [18, 19, 20]
    assert select_frames("window-3@1fps/30s", 1, 1) == [0, 1]
    assert select_frames("window-4@1fps/10s", 40, 2) == [34, 36, 38, 40]


def test_log_decay_bands_at_full_length() -> None:
    # 10 minutes at 30 fps: bands [17100, 18000], [9000, 17099], [0, 8999] get 77 / 38 / 13.
    frames = select_frames("log-decay-128", 18_000, 30)
    assert len(frames) == 128
    assert sum(i >= 17_100 for i in frames) == 77
    assert sum(9_000 <= i < 17_100 for i in frames) == 38
    assert sum(i < 9_000 for i in frames) == 13
    assert frames[0] == 0 and frames[-1] == 18_000


def test_log_decay_rolls_a_missing_band_into_the_others() -> None:
    # 100 s prefix: no band 3; its 10 % goes to bands 1 and 2 as 2 : 1 → 85 / 43.
    frames = select_frames("log-decay-128", 3_000, 30)
    assert len(frames) == 128
    assert sum(i >= 2_100 for i in frames) == 85
    # 20 s prefix: only band 1, so uniform over the prefix.
    assert select_frames("log-decay-5", 20, 1) == select_frames("uniform-5", 20, 1)


def test_log_decay_small_exact() -> None:
    # fps 1, n_q 400: bands [370, 400] (31 frames), [100, 369], [0, 99]; N=10 → 6 / 3 / 1.
    assert select_frames("log-decay-10", 400, 1) == [0, 100, 235, 369, 370, 376, 382, 388, 394, 400]


def test_oracle_evidence() -> None:
    # Frames [0, 20] (L=20) and [100, 180] (L=80) share N=10 as 2 / 8.
    assert select_frames("oracle-evidence-10", 300, 10, [(0, 2), (10, 18)]) == [
        0, 20, 100, 111, 123, 134, 146, 157, 169, 180,
    ]  # fmt: skip
    # Rounding is corrected on the longest interval: 3 equal intervals, N=10 → 4 / 3 / 3.
    got = select_frames("oracle-evidence-10", 1000, 1, [(0, 30), (100, 130), (200, 230)])
    assert [sum(a <= i <= a + 30 for i in got) for a in (0, 100, 200)] == [4, 3, 3]
    # A tiny interval still gets one frame.
    got = select_frames("oracle-evidence-8", 1000, 1, [(0, 700), (900, 901)])
    assert sum(i >= 900 for i in got) == 1 and len(got) == 8
    # Evidence after the query is clipped or dropped; nothing left → uniform-N.
    assert select_frames("oracle-evidence-4", 50, 1, [(40, 90)]) == [40, 43, 47, 50]
    assert select_frames("oracle-evidence-3", 50, 1, [(60, 90)]) == [0, 25, 50]
    assert select_frames("oracle-evidence-3", 50, 1) == [0, 25, 50]


def test_spec_parsing() -> None:
    assert parse_policy("nearest-16f@4fps") == PolicySpec("nearest", 16, rate=4.0)
    assert str(parse_policy("nearest-16f@4fps")) == "nearest-16@4fps"
    assert str(parse_policy("window-8@0.5fps/60s")) == "window-8@0.5fps/60s"
    assert parse_policy("oracle-evidence").n == 128
    offline = {s: parse_policy(s).offline for s in SPECS}
    assert {s for s, off in offline.items() if off} == {"oracle-evidence", "oracle-evidence-64"}
    for spec in SPECS:
        assert parse_policy(str(parse_policy(spec))) == parse_policy(spec)


@pytest.mark.parametrize(
    "bad", ["", "uniform", "uniform-0", "uniform-x", "nearest-16", "window-3@0fps/2s", "log-10"]
)
def test_bad_spec_is_one_clear_line(bad) -> None:
    with pytest.raises(InputError) as info:
        select_frames(bad, 10, 1)
    message = str(info.value)
    assert "\n" not in message and repr(bad) in message and "uniform-N" in message
