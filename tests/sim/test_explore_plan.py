"""The exploration planner (``sim/explore/plan.py``), checked against brute force on random
poses of a generated house, without a GL context: every plan it gives is valid when replayed
with the environment's own motion and the ray caster, plans come cheapest first, the first one
has the fewest actions any valid plan has, and the same inputs give the same plans."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.geometry import Intrinsics
from streamspatial.scene.camera import DEFAULT_VFOV
from streamspatial.scene.types import CameraPose
from streamspatial.sim.explore.actions import MOVES, Action
from streamspatial.sim.explore.env import action_poses
from streamspatial.sim.explore.plan import CANDIDATES, plans, start_pose
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.house.occupancy import occupancy
from streamspatial.sim.qa.sweep import view_pixels
from streamspatial.sim.walk.nav import Motion, keypoints

HOUSE = generate_house(7, n_rooms=4)
OCC = occupancy(HOUSE)
INTR = Intrinsics.from_vfov(96, 72, DEFAULT_VFOV)
STOPS = keypoints(HOUSE, OCC, np.random.default_rng(0))
REACH, AVOID_PX = 24, 12  # the thresholds at 96×72: reach_pixels(12), min_pixels_for(96, 72)
SMALL = (Action("rotate_left"), Action("rotate_right"), Action("scan_forward"),
         Action("move_forward", 1.0))  # fmt: skip


def replay(pose: CameraPose, actions, reveal, avoid) -> tuple[bool, list[CameraPose]]:
    """Is the sequence valid (no collision, same room, every object to reveal at REACH in a
    view, none to avoid at AVOID_PX), and its views, computed here from scratch."""
    here = start_pose(pose)
    room = HOUSE.room_at(*here.position[:2])
    motion = Motion(pitch=pose.pitch, eye_height=pose.position[2])
    best = dict.fromkeys(reveal, 0)
    views: list[CameraPose] = []
    for act in actions:
        poses, collided = action_poses(here, act, OCC, motion)
        if collided or any(HOUSE.room_at(*p.position[:2]) != room for p in poses):
            return False, views
        for p in poses:
            px = view_pixels(HOUSE, INTR, p, [*reveal, *avoid])
            if any(px[i] >= AVOID_PX for i in avoid):
                return False, views
            for i in reveal:
                best[i] = max(best[i], px[i])
        views += poses
        here = poses[-1]
    return all(n >= REACH for n in best.values()), views


def first_plans(pose: CameraPose, reveal, avoid, n: int = 4):
    """The first ``n`` plans of at most two actions of SMALL."""
    found = plans(HOUSE, INTR, pose, reveal, reach=REACH, avoid=avoid, avoid_pixels=AVOID_PX,
                  max_actions=2, candidates=SMALL)  # fmt: skip
    return list(itertools.islice(found, n))


def _case(stop: int, yaw: float, pick: int):
    kp = STOPS[stop % len(STOPS)]
    pose = CameraPose(time=0.0, position=(kp.x, kp.y, 1.5), yaw=yaw, pitch=math.radians(-10),
                      motion="still")  # fmt: skip
    here = [o.instance_id for o in HOUSE.objects if o.room_id == kp.room_id]
    there = [o.instance_id for o in HOUSE.objects if o.room_id != kp.room_id]
    reveal = [here[pick % len(here)]] if here else []
    avoid = [there[pick % len(there)]] if there else []
    return pose, reveal, avoid


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 1000), st.floats(-math.pi, math.pi), st.integers(0, 1000))
def test_plans_are_valid_cheapest_first_and_fewest(stop: int, yaw: float, pick: int) -> None:
    pose, reveal, avoid = _case(stop, yaw, pick)
    if not reveal:
        return
    got = first_plans(pose, reveal, avoid)
    for plan in got:
        ok, views = replay(pose, plan.actions, reveal, avoid)
        assert ok and [p for vs in plan.views for p in vs] == views
        assert all(plan.pixels[i] >= REACH for i in reveal)
    costs = [(len(p.actions), sum(a.name in MOVES for a in p.actions), p.elapsed) for p in got]
    assert costs == sorted(costs)
    shortest = len(got[0].actions) if got else 3
    for n in range(1, shortest):  # nothing shorter is valid, by brute force
        for seq in itertools.product(SMALL, repeat=n):
            assert not replay(pose, seq, reveal, avoid)[0], seq
    assert first_plans(pose, reveal, avoid) == got


def test_turning_comes_before_walking_and_a_valid_plan_is_never_extended() -> None:
    """On poses where both a turn and a walk would do, the turn is planned; no plan starts with
    another valid plan."""
    found = 0
    for stop, pick in itertools.product(range(len(STOPS)), range(3)):
        pose, reveal, _ = _case(stop, 0.3 * stop, pick)
        if not reveal:
            continue
        got = list(plans(HOUSE, INTR, pose, reveal, reach=REACH, max_actions=1))
        if not got:
            continue
        moves = [p for p in got if p.actions[0].name in MOVES]
        turns = [p for p in got if p.actions[0].name not in MOVES]
        if moves and turns:
            found += 1
            assert got[0].actions[0].name not in MOVES
        for plan in plans(HOUSE, INTR, pose, reveal, reach=REACH, max_actions=2):
            for k in range(1, len(plan.actions)):
                assert not replay(pose, plan.actions[:k], reveal, [])[0]
        if found >= 2:
            break
    assert found


def test_the_candidates_are_the_action_space() -> None:
    names = {a.name for a in CANDIDATES}
    assert names == {"move_forward", "move_left", "move_right", "rotate_left", "rotate_right",
                     "scan_forward", "sweep_around"}  # fmt: skip
    assert all(0 < a.distance <= 5 for a in CANDIDATES if a.name in MOVES)


def test_nothing_to_reveal_is_no_plan() -> None:
    pose, _, _ = _case(0, 0.0, 0)
    assert list(plans(HOUSE, INTR, pose, [], reach=REACH)) == []


@pytest.mark.parametrize("name", ["rotate_left", "scan_forward", "sweep_around"])
def test_foreseen_poses_are_the_environments(name: str) -> None:
    """The planner foresees with the very function the environment steps with: times at the
    environment's speeds (45° turn 1 s, 180° of scanning 3.6 s, 360° sweep 7.2 s)."""
    pose, _, _ = _case(0, 0.5, 0)
    poses, collided = action_poses(start_pose(pose), Action(name), OCC, Motion())
    takes = {"rotate_left": 1.0, "scan_forward": 3.6, "sweep_around": 7.2}
    assert not collided and poses[-1].time == pytest.approx(takes[name])
