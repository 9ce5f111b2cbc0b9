"""Dynamic scenes in the renderer: actors are drawn, segmented apart from house objects,
posed per frame, hidden when absent; switched-off rooms go dark; the schedule is kept."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamspatial.scene.doors import (
    DOOR_OPEN,
    door_hinge,
    door_leaf_actor,
    door_leaf_track,
)
from streamspatial.scene.schedule import Actor, LightSwitch, Schedule, Swing, Waypoint
from streamspatial.scene.types import CameraPose, Trajectory, load_episode_meta
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.episode import render_episode
from streamspatial.sim.render.renderer import HouseRenderer

SIZE = (160, 120)
PERSON, CUP, LEAF, METRONOME = 1000, 1001, 1002, 1003


def _layout(house):
    """A door, the side of room_a it opens into, a camera in room_a facing the door from 1.6 m
    and a free point 0.8 m in front of the camera (the floor in front of a door is clear)."""
    door = house.doors[0]
    across = np.array([0.0, 1.0]) if door.axis == "x" else np.array([1.0, 0.0])
    c = np.array(door.center)
    side = 1 if house.room_at(*(c + across * 0.3)) == door.room_a else -1
    eye = c + across * side * 1.6
    yaw = math.atan2(-across[1] * side, -across[0] * side)
    spot = c + across * side * 0.8
    return door, (float(eye[0]), float(eye[1])), yaw, (float(spot[0]), float(spot[1]))


def _schedule(house) -> Schedule:
    door, _, yaw, (sx, sy) = _layout(house)
    hinge, hyaw = door_hinge(door, door.room_b, house)  # opens away from the camera
    gone = (sx, sy, -5.0)
    return Schedule(
        actors=(
            Actor(
                PERSON,
                "person",
                "person",
                "red",
                (0.3, 0.5, 1.7),
                (
                    Waypoint(0, (sx, sy, 0.85), yaw + math.pi),
                    Waypoint(9.9, (sx, sy, 0.85), yaw + math.pi),  # positions interpolate
                    Waypoint(10, gone, 0, False),
                ),
            ),
            Actor(
                CUP,
                "prop",
                "cup",
                "green",
                (0.3, 0.3, 0.3),
                (
                    Waypoint(0, gone, 0, False),
                    Waypoint(10, (sx, sy, 1.3), 0, True),
                    Waypoint(20, (sx, sy, 1.3), 0, False),
                ),
            ),
            door_leaf_actor(
                door,
                LEAF,
                house=house,
                into_room=door.room_b,
                color="brown",
                track=door_leaf_track(hinge, hyaw, [(30.0, 30.5, 0.0, DOOR_OPEN)]),
            ),
            Actor(
                METRONOME,
                "pendulum",
                "metronome",
                "blue",
                (0.15, 0.25, 0.5),
                (
                    Waypoint(0, gone, 0, False),
                    Waypoint(40, (sx, sy, 1.0), yaw + math.pi, True),
                    Waypoint(49.9, (sx, sy, 1.0), yaw + math.pi, True),
                    Waypoint(50, gone, 0, False),
                ),
                swings=(Swing(40.0, 50.0, 2.0, 0.35),),
            ),
        ),
        switches=(LightSwitch(60.0, door.room_a, False),),
    )


@pytest.fixture(scope="module")
def scene():
    house = generate_house(31, n_rooms=4)
    schedule = _schedule(house)
    _, (ex, ey), yaw, _ = _layout(house)
    with HouseRenderer(house, SIZE, schedule=schedule) as r:

        def at(t: float, pitch: float = 0.0):
            return r.render(CameraPose(t, (ex, ey, 1.5), yaw, pitch))

        yield house, schedule, at


def test_actor_is_dynamic_not_visible(scene):
    _, _, at = scene
    f = at(5.0)
    static, dynamic = f.split_visibility()
    assert PERSON in {v.instance_id for v in dynamic}
    assert all(v.instance_id < 1000 for v in static)
    assert f.instance[SIZE[1] // 2, SIZE[0] // 2] == PERSON  # right in front of the camera
    assert f.lit


def test_absent_prop_is_not_seen(scene):
    _, _, at = scene
    assert (at(15.0).instance == CUP).sum() > 100  # present, 0.8 m ahead
    late = at(25.0)
    assert not (late.instance == CUP).any()
    assert CUP not in {v.instance_id for v in late.split_visibility()[1]}


def test_door_leaf_shut_and_open(scene):
    _, _, at = scene
    shut, open_ = at(29.0).instance == LEAF, at(31.0).instance == LEAF
    assert shut[SIZE[1] // 2, SIZE[0] // 2]  # the shut leaf fills the opening ahead
    assert not open_[SIZE[1] // 2, SIZE[0] // 2]  # open: the next room shows through
    assert (shut & open_).sum() < 0.5 * shut.sum()


def test_pendulum_bob_swings(scene):
    _, _, at = scene

    def centre_x(t: float) -> float:
        cols = np.nonzero(at(t, pitch=-0.35).instance == METRONOME)[1]
        assert cols.size > 50
        return float(cols.mean())

    # a quarter and three quarters into a 2 s cycle: the bob at +0.35 and −0.35 rad
    assert abs(centre_x(40.5) - centre_x(41.5)) > 2.0


def test_lights_off_darkens_the_room(scene):
    _, _, at = scene
    lit, dark = at(59.0), at(61.0)

    def lum(f):
        return float(np.median(f.rgb.astype(np.float64) @ [0.299, 0.587, 0.114]))

    assert lit.lit and not dark.lit
    assert lum(dark) / lum(lit) < 0.6


def test_schedule_round_trips_through_metadata(tmp_path):
    house = generate_house(31, n_rooms=4)
    schedule = _schedule(house)
    _, (ex, ey), yaw, _ = _layout(house)
    poses = tuple(CameraPose(t, (ex, ey, 1.5), yaw) for t in (5.0, 25.0, 61.0))
    tr = Trajectory(house.house_id, 1.0, poses)
    paths = render_episode(house, tr, tmp_path, size=SIZE, schedule=schedule)
    meta = load_episode_meta(paths.meta)
    assert meta.schedule is not None
    assert meta.schedule.to_dict() == schedule.to_dict()
    first, second, third = meta.frames
    assert PERSON in first.dynamic_ids() and PERSON not in first.visible_ids()
    assert not second.dynamic_ids() & {PERSON, CUP}
    assert first.lit and not third.lit
