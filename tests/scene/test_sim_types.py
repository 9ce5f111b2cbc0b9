"""Metadata types: JSON round trips, angle wrapping, geometry helpers, clear errors."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.core.errors import InputError
from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.types import (
    CameraPose,
    EpisodeMeta,
    FrameRecord,
    House,
    Intrinsics,
    Room,
    SceneObject,
    Visible,
    visible_union,
)

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


@given(st.floats(min_value=-100, max_value=100, allow_nan=False))
def test_wrap_angle_range_and_equivalence(a):
    w = wrap_angle(a)
    assert -math.pi < w <= math.pi
    assert math.cos(w) == pytest.approx(math.cos(a), abs=1e-9)
    assert math.sin(w) == pytest.approx(math.sin(a), abs=1e-9)


@given(
    st.integers(0, 10**6),
    st.floats(0, 1e4, allow_nan=False),
    finite,
    finite,
    st.floats(-3.14159, 3.14159),
    st.sampled_from(["move", "turn", "sweep", "still"]),
)
def test_pose_round_trip_is_exact_at_stored_precision(i, t, x, y, yaw, motion):
    p = CameraPose(round(t, 5), (round(x, 4), round(y, 4), 1.5), round(yaw, 5), 0.0, motion, i)
    assert CameraPose.from_list(json.loads(json.dumps(p.to_list()))) == p
    fr = FrameRecord(i, p, None, (Visible(3, 10, (1, 2, 3, 4), 2.5),))
    assert FrameRecord.from_dict(json.loads(json.dumps(fr.to_dict()))) == fr


def test_room_geometry():
    l_shape = Room(0, "kitchen", "kitchen", ((0, 0), (4, 0), (4, 2), (2, 2), (2, 4), (0, 4)), 12.0)
    assert l_shape.contains(1, 3) and l_shape.contains(3, 1)
    assert not l_shape.contains(3, 3)
    cx, cy = l_shape.centroid
    assert (cx, cy) == pytest.approx((1.6667, 1.6667), abs=1e-3)


def test_object_footprint_and_aabb_follow_yaw():
    o = SceneObject(
        1, "sofa", 0, (2.0, 3.0, 0.4), (0.9, 2.0, 0.8), math.pi / 2, "red", (1, 0, 0), "x"
    )
    (x0, y0, z0), (x1, y1, z1) = o.aabb()
    assert (x0, y0, z0, x1, y1, z1) == pytest.approx((1.0, 2.55, 0.0, 3.0, 3.45, 0.8))
    assert o.name == "red sofa"


def test_intrinsics_from_vfov():
    k = Intrinsics.from_vfov(320, 240, 60.0)
    assert k.fx == k.fy == pytest.approx(120 / math.tan(math.radians(30)))
    assert k.vfov_deg == pytest.approx(60.0)
    assert k.hfov_deg > 60.0
    assert Intrinsics.from_dict(k.to_dict()) == k


def test_bad_house_record_names_the_file_and_field():
    with pytest.raises(InputError) as e:
        House.from_dict({"house_id": "h", "seed": 1}, source="x.json")
    assert "x.json" in str(e.value) and "rooms" in str(e.value)
    with pytest.raises(InputError, match="episode"):
        EpisodeMeta.from_dict({"fps": 1}, source="m.json.gz")


def test_visible_union_uses_pixel_threshold():
    p = CameraPose(0.0, (0.0, 0.0, 1.5), 0.0)
    frames = [
        FrameRecord(0, p, 0, (Visible(1, 5, (0, 0, 1, 1), 1.0), Visible(2, 50, (0, 0, 1, 1), 1.0))),
        FrameRecord(1, p, 0, (Visible(3, 30, (0, 0, 1, 1), 1.0),)),
    ]
    assert visible_union(frames) == {1, 2, 3}
    assert visible_union(frames, min_pixels=20) == {2, 3}
