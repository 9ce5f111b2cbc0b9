"""Eye height over a walk (OVO-S-Bench 1.1.4): crouch / kneel at stops, smooth, held, seeded."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.walk.nav import Motion, plan_trajectory
from streamspatial.sim.walk.posture import HOLD_S, LOWERED, TRANSITION_S, eye_heights

FPS = 10.0


@pytest.fixture(scope="module")
def walks():
    out = []
    for s in range(6):
        h = generate_house(s)
        with_p = plan_trajectory(h, duration=60.0, fps=FPS, seed=s)
        without = plan_trajectory(h, duration=60.0, fps=FPS, seed=s, motion=Motion(postures=False))
        out.append((with_p, without))
    return out


def test_postures_change_only_the_height(walks):
    """The posture schedule has its own random stream: path, headings and pitch are those of
    the walk without postures, frame for frame."""
    for a, b in walks:
        assert len(a.poses) == len(b.poses)
        for p, q in zip(a.poses, b.poses, strict=True):
            assert (p.position[:2], p.yaw, p.pitch, p.motion) == (
                q.position[:2],
                q.yaw,
                q.pitch,
                q.motion,
            )
        assert a.keypoints == b.keypoints
        assert all(abs(q.position[2] - 1.5) <= Motion().bob_amplitude + 1e-9 for q in b.poses)


def test_walks_crouch_and_kneel_and_walk_standing(walks):
    kinds: Counter[str] = Counter()
    for a, _ in walks:
        for p in a.poses:
            z = p.position[2]
            if p.motion == "move":
                assert abs(z - 1.5) <= Motion().bob_amplitude + 1e-9
            for kind, (lo, hi) in LOWERED.items():
                if lo - 1e-4 <= z <= hi + 1e-4:
                    kinds[kind] += 1
    # over six one-minute walks both lowered postures are held for many seconds each
    assert kinds["crouching"] >= 10 * FPS and kinds["kneeling"] >= 10 * FPS


def _segments(names: list[str]) -> list[tuple[str, int]]:
    return [(k, len(list(g))) for k, g in itertools.groupby(names)]


@settings(max_examples=60, deadline=None)
@given(
    runs=st.lists(
        st.tuples(st.sampled_from(["move", "still", "sweep", "turn"]), st.integers(1, 120)),
        min_size=1,
        max_size=12,
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_transitions_are_smooth_and_holds_long(runs, seed):
    motions = [m for m, n in runs for _ in range(n)]
    z, names = eye_heights(motions, 1.5, FPS, np.random.default_rng(seed))
    assert len(z) == len(names) == len(motions)
    shortest = round(TRANSITION_S[0] * FPS)
    segs = _segments(names)
    i = 0
    for j, (kind, n) in enumerate(segs):
        if kind in LOWERED:
            lo, hi = LOWERED[kind]
            assert n >= round(HOLD_S[0] * FPS)  # held for seconds
            assert np.all(z[i : i + n] == z[i]) and lo <= z[i] <= hi
            # framed by going down and getting up, each at least a second long
            assert segs[j - 1][0] == "transition" and segs[j - 1][1] >= shortest
            assert segs[j + 1][0] == "transition" and segs[j + 1][1] >= shortest
        if kind != "standing":  # only while standing in place
            assert all(m != "move" for m in motions[i : i + n])
        else:
            assert np.all(z[i : i + n] == 1.5)
        i += n
    # raised-cosine steps: never faster than the largest drop spread over the quickest second
    drop = 1.5 - min(lo for lo, _ in LOWERED.values())
    assert np.all(np.abs(np.diff(z)) <= math.pi / 2 * drop / shortest + 1e-9)


def test_same_walk_seed_same_postures():
    h = generate_house(3)
    a = plan_trajectory(h, duration=30.0, fps=FPS, seed=4)
    b = plan_trajectory(h, duration=30.0, fps=FPS, seed=4)
    c = plan_trajectory(h, duration=30.0, fps=FPS, seed=5)
    za, zb, zc = ([p.position[2] for p in t.poses] for t in (a, b, c))
    assert za == zb and za != zc
