"""Rendering: depth and ids agree with the ray caster; visibility respects occlusion."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamspatial.scene.types import CameraPose, SceneObject, WallSegment
from streamspatial.sim.house.layout import generate_house, single_room_house
from streamspatial.sim.render.process import RenderProcess
from streamspatial.sim.render.raycast import cast
from streamspatial.sim.render.renderer import visibility
from streamspatial.sim.render.scene import scene_boxes
from streamspatial.sim.walk.nav import plan_trajectory

SIZE = (160, 120)


def _obj(iid: int, x: float, y: float, size=(0.5, 0.5, 1.0), yaw=0.0, color="red") -> SceneObject:
    return SceneObject(
        instance_id=iid,
        category="box",
        room_id=0,
        position=(x, y, size[2] / 2),
        size=size,
        yaw=yaw,
        color=color,
        rgb=(0.8, 0.1, 0.1),
        material="wood",
    )


def _look(x: float, y: float, yaw: float, pitch: float = 0.0) -> CameraPose:
    return CameraPose(time=0.0, position=(x, y, 1.5), yaw=yaw, pitch=pitch)


def test_depth_and_ids_agree_with_ray_caster_on_sampled_pixels():
    h = generate_house(5, n_rooms=4, furniture="boxes")
    tr = plan_trajectory(h, duration=12, fps=2, seed=0)
    boxes = scene_boxes(h)
    rng = np.random.default_rng(0)
    with RenderProcess(h, SIZE) as r:
        mismatched = total = 0
        for pose in tr.poses[::3]:
            f = r.render(pose)
            pix = np.stack([rng.integers(0, SIZE[1], 300), rng.integers(0, SIZE[0], 300)], axis=1)
            depth, ids, _ = cast(boxes, pose, r.intrinsics, pixels=pix)
            got = f.depth[pix[:, 0], pix[:, 1]]
            ok = np.isfinite(depth)
            assert ok.all()  # the house is closed: every ray hits something
            assert np.abs(got - depth).max() < 0.01  # within 1 cm
            mismatched += int((f.instance[pix[:, 0], pix[:, 1]] != ids).sum())
            total += len(pix)
        assert mismatched / total < 0.005  # only pixels exactly on an edge may differ


def test_yawed_box_matches_ray_caster():
    h = single_room_house(6.0, 6.0, (_obj(1, 4.0, 3.0, (1.2, 0.4, 1.0), yaw=math.radians(30)),))
    pose = _look(1.0, 3.0, 0.0, pitch=-0.2)
    with RenderProcess(h, SIZE) as r:
        f = r.render(pose)
        depth, ids, _ = cast(scene_boxes(h), pose, r.intrinsics)
    assert np.abs(f.depth - depth).max() < 0.01
    assert (f.instance == ids).mean() > 0.995
    assert (ids == 1).sum() > 100


def test_object_behind_a_wall_is_not_visible():
    target = _obj(1, 4.5, 2.0)
    wall = WallSegment((3.0, 0.0), (3.0, 4.0), 0.1, 2.6)  # floor to ceiling, wall to wall
    pose = _look(1.0, 2.0, 0.0)
    with RenderProcess(single_room_house(6.0, 4.0, (target,)), SIZE) as r:
        seen = {v.instance_id: v for v in r.render(pose).visibility()}
    assert 1 in seen and seen[1].pixels > 200
    with RenderProcess(single_room_house(6.0, 4.0, (target,), extra_walls=(wall,)), SIZE) as r:
        assert r.render(pose).visibility() == ()


def test_partial_occlusion_by_another_object_reduces_visible_pixels():
    back = _obj(1, 5.0, 2.0, (0.4, 1.2, 2.0))  # taller than the eye: only its front face shows
    front = _obj(2, 3.0, 2.25, (0.3, 0.5, 1.6), color="blue")
    pose = _look(1.0, 2.0, 0.0)
    with RenderProcess(single_room_house(6.0, 4.0, (back,)), SIZE) as r:
        alone = {v.instance_id: v for v in r.render(pose).visibility()}[1]
    with RenderProcess(single_room_house(6.0, 4.0, (back, front)), SIZE) as r:
        f = r.render(pose)
        both = {v.instance_id: v for v in f.visibility()}
    assert 0 < both[1].pixels < alone.pixels
    assert both[2].mean_depth < both[1].mean_depth
    # Its visible face is at x = 5.0 - 0.2 and the camera at x = 1.0: 3.8 m along the axis.
    assert alone.mean_depth == pytest.approx(3.8, abs=0.01)


def test_object_behind_the_camera_is_not_visible():
    h = single_room_house(6.0, 4.0, (_obj(1, 0.8, 2.0),))
    with RenderProcess(h, SIZE) as r:
        assert r.render(_look(3.0, 2.0, 0.0)).visibility() == ()
        assert r.render(_look(3.0, 2.0, math.pi)).visibility()[0].instance_id == 1


def test_visibility_on_a_hand_made_id_image():
    ids = np.zeros((4, 6), dtype=np.int32)
    ids[1:3, 2:5] = 7
    ids[3, 0] = 2
    depth = np.full((4, 6), 2.0, dtype=np.float32)
    depth[1, 2] = 4.0
    vis = {v.instance_id: v for v in visibility(ids, depth)}
    assert set(vis) == {2, 7}
    assert vis[7].pixels == 6 and vis[7].bbox == (2, 1, 5, 3)
    assert vis[7].mean_depth == pytest.approx((4.0 + 5 * 2.0) / 6)
    assert vis[2].pixels == 1 and vis[2].bbox == (0, 3, 1, 4)
    assert visibility(np.zeros((3, 3), dtype=np.int32), np.ones((3, 3))) == ()


def test_visibility_matches_a_per_object_reference_on_scattered_ids():
    rng = np.random.default_rng(5)
    for _ in range(20):
        ids = rng.choice([0, 0, 0, 3, 9, 41], size=(37, 53)).astype(np.int32)
        ids[rng.random((37, 53)) < 0.5] = 0  # objects broken into pieces, with gaps
        depth = rng.uniform(0.3, 6.0, size=(37, 53)).astype(np.float32)
        depth[rng.random((37, 53)) < 0.1] = np.inf
        got = {v.instance_id: v for v in visibility(ids, depth)}
        assert set(got) == set(np.unique(ids)) - {0}
        for i, v in got.items():
            ys, xs = np.nonzero(ids == i)
            assert v.pixels == len(ys)
            assert v.bbox == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
            d = depth[ids == i]
            assert v.mean_depth == pytest.approx(np.where(np.isfinite(d), d, 0.0).mean())


def test_rgb_shows_object_colour_and_renderer_closes():
    h = single_room_house(6.0, 4.0, (_obj(1, 3.0, 2.0, (0.6, 1.0, 2.0)),))
    r = RenderProcess(h, SIZE)
    f = r.render(_look(1.0, 2.0, 0.0))
    assert f.rgb.shape == (120, 160, 3) and f.rgb.dtype == np.uint8
    px = f.rgb[f.instance == 1].astype(float).mean(axis=0)
    assert px[0] > px[1] + 40 and px[0] > px[2] + 40  # red
    r.close()
    with pytest.raises(RuntimeError):
        r.render(_look(1.0, 2.0, 0.0))
