"""Trajectories: exact length, free space only, human speeds, determinism; A* properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import InputError
from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.types import MOTIONS, Trajectory
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.house.occupancy import occupancy
from streamspatial.sim.walk.nav import Motion, _loop_door, keypoints, plan_trajectory
from streamspatial.sim.walk.route import astar


@pytest.fixture(scope="module")
def walks():
    out = []
    for s in range(6):
        h = generate_house(s)
        out.append((h, occupancy(h), plan_trajectory(h, duration=45.0, fps=10.0, seed=s)))
    return out


def test_length_timing_and_motion_labels(walks):
    for h, _, tr in walks:
        assert len(tr.poses) == 450
        assert tr.house_id == h.house_id
        for i, p in enumerate(tr.poses):
            assert p.time == pytest.approx(i / 10.0)
            assert p.motion in MOTIONS
            if p.motion == "move":  # walking at standing height, with the head bob
                assert abs(p.position[2] - 1.5) <= Motion().bob_amplitude + 1e-9
            else:  # standing in place, or crouched / kneeling (sim.walk.posture)
                assert 0.6 <= p.position[2] <= 1.5 + Motion().bob_amplitude + 1e-9
            assert -math.pi < p.yaw <= math.pi


def test_trajectories_never_leave_free_space(walks):
    for h, occ, tr in walks:
        for p in tr.poses:
            assert occ.is_free(p.position[0], p.position[1]), (h.house_id, p)


def test_walking_and_turning_speeds_are_human(walks):
    m = Motion()
    for _, _, tr in walks:
        pos = np.array([p.position[:2] for p in tr.poses])
        speed = np.hypot(*np.diff(pos, axis=0).T) * tr.fps
        assert speed.max() <= m.walk_speed * 1.01
        yaw = np.array([p.yaw for p in tr.poses])
        rate = np.abs([wrap_angle(b - a) for a, b in itertools.pairwise(yaw)])
        # Turning, sweeping, and on top a glance aside (raised cosine over ≥ 1.5 s) and drift.
        glance = math.pi * m.glance_angle / 1.5
        assert rate.max() * tr.fps <= max(m.sweep_speed, m.turn_speed * 1.5) + glance + 0.2
        moving = speed > 0.3
        assert moving.mean() > 0.2  # it walks, not only turns


def test_stops_sweep_and_walks_visit_rooms(walks):
    for h, _, tr in walks:
        assert any(p.motion == "sweep" for p in tr.poses)
        assert len(tr.keypoints) >= 2
        rooms = {h.room_at(*p.position[:2]) for p in tr.poses}
        assert len(rooms) >= min(2, len(h.rooms))


def test_same_seed_same_trajectory():
    h = generate_house(4)
    a = plan_trajectory(h, duration=20, fps=8, seed=1)
    b = plan_trajectory(h, duration=20, fps=8, seed=1)
    c = plan_trajectory(h, duration=20, fps=8, seed=2)
    assert a == b
    assert a != c
    assert Trajectory.from_dict(a.to_dict()) == a


def test_bad_duration_is_a_user_error():
    with pytest.raises(InputError):
        plan_trajectory(generate_house(1), duration=0)


def test_keypoints_are_free_and_cover_every_room():
    h = generate_house(2)
    occ = occupancy(h)
    kps = keypoints(h, occ, np.random.default_rng(0))
    assert {k.room_id for k in kps} == {r.room_id for r in h.rooms}
    assert {k.kind for k in kps} >= {"center", "corner"}
    for k in kps:
        assert occ.is_free(k.x, k.y)
    # The centre keypoint is the most open spot of its room.
    for k in kps:
        if k.kind == "center":
            r, c = occ.to_cell(k.x, k.y)
            in_room = occ.main_component() & (occ.room == k.room_id)
            assert occ.clearance[r, c] == pytest.approx(occ.clearance[in_room].max())


def test_astar_on_a_hand_made_grid():
    free = np.ones((5, 7), dtype=bool)
    free[0:4, 3] = False  # a wall with a gap at the top row
    path = astar(free, (0, 0), (0, 6))
    assert path[0] == (0, 0) and path[-1] == (0, 6)
    for (r0, c0), (r1, c1) in itertools.pairwise(path):
        assert max(abs(r1 - r0), abs(c1 - c0)) == 1
        assert free[r1, c1]
        if r1 != r0 and c1 != c0:  # no corner cutting
            assert free[r0, c1] and free[r1, c0]
    assert any(r == 4 for r, _ in path)  # had to go round through the gap
    free[4, 3] = False
    assert astar(free, (0, 0), (0, 6)) == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_astar_is_optimal_against_dijkstra(seed):
    rng = np.random.default_rng(seed)
    free = rng.random((9, 9)) > 0.3
    free[0, 0] = free[8, 8] = True
    path = astar(free, (0, 0), (8, 8))
    # Reference: Dijkstra with the same move rules.
    import heapq

    dist = {(0, 0): 0.0}
    heap = [(0.0, (0, 0))]
    while heap:
        d, (r, c) = heapq.heappop(heap)
        if d > dist.get((r, c), math.inf):
            continue
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                nr, nc = r + dr, c + dc
                if (dr, dc) == (0, 0) or not (0 <= nr < 9 and 0 <= nc < 9) or not free[nr, nc]:
                    continue
                if dr and dc and not (free[r + dr, c] and free[r, c + dc]):
                    continue
                nd = d + (math.sqrt(2) if dr and dc else 1.0)
                if nd < dist.get((nr, nc), math.inf):
                    dist[(nr, nc)] = nd
                    heapq.heappush(heap, (nd, (nr, nc)))
    if (8, 8) not in dist:
        assert path == []
    else:
        length = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(path))
        assert length == pytest.approx(dist[(8, 8)])


def test_smoothing_keeps_endpoints_and_free_space():
    from streamspatial.sim.house.layout import single_room_house
    from streamspatial.sim.walk.route import smooth_path

    h = single_room_house(6.0, 4.0)
    occ = occupancy(h)
    a, b = occ.to_cell(0.6, 0.6), occ.to_cell(5.4, 3.4)
    cells = astar(occ.free, a, b)
    path = smooth_path(occ, cells)
    assert tuple(path[0]) == occ.to_world(*a) and tuple(path[-1]) == occ.to_world(*b)
    assert all(occ.is_free(float(x), float(y)) for x, y in path)
    assert len(path) > len(cells)  # resampled spline, not the raw polyline


def test_loop_door_prefers_one_out_of_the_current_room():
    adjacency = {0: (1, 2), 1: (0, 2, 3), 2: (0, 1), 3: (1,)}
    seen = {0, 1, 2}
    walked = {frozenset((0, 1)), frozenset((1, 2))}
    assert _loop_door(adjacency, 2, seen, walked) == (2, 0)  # out of here, across
    assert _loop_door(adjacency, 3, seen, walked) == (0, 2)  # elsewhere: its lower end first
    assert _loop_door(adjacency, 2, seen, walked | {frozenset((0, 2))}) is None
    assert _loop_door(adjacency, 1, {0, 1}, {frozenset((0, 1))}) is None  # 2 not seen yet


def _rooms_walked(house, tr):
    runs = [house.room_at(p.position[0], p.position[1]) for p in tr.poses]
    runs = [r for r in runs if r is not None]
    return {frozenset(e) for e in itertools.pairwise(runs) if e[0] != e[1]}


def _has_cycle(edges) -> bool:
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b in (tuple(e) for e in edges):
        if root(a) == root(b):
            return True
        parent[root(a)] = root(b)
    return False


def test_walks_close_the_loops_of_their_houses():
    """OVO-S-Bench 3.3.2 has an answer other than "no other way" only once a walk has shown a
    second way between two rooms.  Of these houses with a loop, 5 of 7 two-minute walks walk
    one (the other two never enter both rooms of a loop doorway), against 1 left to coverage
    alone."""
    with_loop = closed = closed_alone = 0
    for s in range(20, 32):
        h = generate_house(s)
        adjacency = h.adjacency()
        if sum(map(len, adjacency.values())) // 2 < len(adjacency):
            continue
        with_loop += 1
        tr = plan_trajectory(h, duration=120.0, fps=10.0, seed=s)
        closed += _has_cycle(_rooms_walked(h, tr))
        alone = plan_trajectory(
            h, duration=120.0, fps=10.0, seed=s, motion=Motion(close_loops=False)
        )
        closed_alone += _has_cycle(_rooms_walked(h, alone))
    assert with_loop == 7
    assert closed >= 5 and closed >= closed_alone + 3, (closed, closed_alone)
