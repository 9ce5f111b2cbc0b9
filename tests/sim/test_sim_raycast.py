"""The ray caster's culling never changes a ray, and a sweep counts exactly what casting each
object alone counts (the exploration questions depend on those counts being exact)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamspatial.scene.types import CameraPose, Intrinsics, SceneObject
from streamspatial.sim.house.layout import generate_house, single_room_house
from streamspatial.sim.qa.sweep import sweep_pixels, sweep_poses
from streamspatial.sim.render.raycast import cast, screen_rects
from streamspatial.sim.render.scene import pixel_rays, scene_boxes
from streamspatial.sim.walk.nav import plan_trajectory


def brute_force(boxes, pose, intr):
    """Every ray against every box, nearest bounding sphere first (the caster's order, which
    decides exact ties), with the caster's slab arithmetic and no culling at all."""
    d_all = pixel_rays(pose, intr).reshape(-1, 3)
    o = np.asarray(pose.position, dtype=float)
    best = np.full(len(d_all), np.inf)
    ids = np.zeros(len(d_all), dtype=np.int32)
    order = sorted(
        range(len(boxes)),
        key=lambda i: (
            float(np.linalg.norm(np.asarray(boxes[i].center) - o))
            - float(np.linalg.norm(boxes[i].half))
        ),
    )
    for i in order:
        b = boxes[i]
        c, s = math.cos(-b.yaw), math.sin(-b.yaw)
        rel = o - np.asarray(b.center, dtype=float)
        lo = np.array([c * rel[0] - s * rel[1], s * rel[0] + c * rel[1], rel[2]])
        d = d_all
        ld = np.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1], d[:, 2]], axis=1)
        half = np.asarray(b.half)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / ld
            t1 = (-half - lo) * inv
            t2 = (half - lo) * inv
            tmin = np.nanmax(np.minimum(t1, t2), axis=1)
            tmax = np.nanmin(np.maximum(t1, t2), axis=1)
        outside = ((np.abs(lo) > half) & (ld == 0)).any(axis=1)
        hit = (tmax >= np.maximum(tmin, 0.0)) & ~outside
        t = np.where(tmin > 0, tmin, tmax)
        closer = hit & (t < best) & (t > 0)
        best[closer] = t[closer]
        ids[closer] = b.instance_id
    return best.reshape(intr.height, intr.width), ids.reshape(intr.height, intr.width)


def _poses(house, n: int, seed: int) -> list[CameraPose]:
    rng = np.random.default_rng(seed)
    walk = plan_trajectory(house, duration=n, fps=1, seed=seed)
    return [
        CameraPose(0.0, p.position, p.yaw + rng.uniform(-math.pi, math.pi), rng.uniform(-0.6, 0.6))
        for p in walk.poses[:n]
    ]


@pytest.mark.parametrize("seed", [4, 11])
def test_cast_equals_every_ray_against_every_box(seed):
    house = generate_house(seed)
    boxes = scene_boxes(house)
    intr = Intrinsics.from_vfov(64, 48, 60.0)
    rng = np.random.default_rng(seed)
    for pose in _poses(house, 6, seed):
        depth, ids = brute_force(boxes, pose, intr)
        got_depth, got_ids, _ = cast(boxes, pose, intr)
        assert np.array_equal(got_depth, depth)
        assert np.array_equal(got_ids, ids)
        # a subset (with a pixel twice) gives each pixel the very same result
        pix = np.stack([rng.integers(0, 48, 200), rng.integers(0, 64, 200)], axis=1)
        pix[-1] = pix[0]
        sub_depth, sub_ids, _ = cast(boxes, pose, intr, pixels=pix)
        assert np.array_equal(sub_depth, depth[pix[:, 0], pix[:, 1]])
        assert np.array_equal(sub_ids, ids[pix[:, 0], pix[:, 1]])


def test_a_box_beside_and_behind_the_camera_covers_only_its_side():
    """A wall running past the camera: clipped to the space in front, it projects to the
    frame's left side only, and a box right behind the camera to nothing; one the camera
    touches is tested on every ray."""
    intr = Intrinsics.from_vfov(80, 60, 60.0)
    pose = CameraPose(0.0, (1.0, 2.0, 1.5), 0.0, 0.0)  # looking along +x
    house = single_room_house(6.0, 4.0, ())
    boxes = scene_boxes(house)
    wall = next(i for i, b in enumerate(boxes) if b.name.startswith("wall") and b.center[1] > 3.9)
    r0, r1, c0, c1 = screen_rects(boxes, pose, intr)[wall]
    assert (r0, c0) == (0, 0) and r1 == 60 and 0 < c1 < 40  # the left side, not the frame
    behind, touching = (
        SceneObject(i, "box", 0, (x, 2.0, 1.5), (0.2, 0.2, 0.2), 0.0, "red", (1, 0, 0), "wood")
        for i, x in ((1, 0.5), (2, 1.1))
    )
    rects = screen_rects(scene_boxes(single_room_house(6.0, 4.0, (behind, touching))), pose, intr)
    assert tuple(rects[-2]) == (0, 0, 0, 0) or rects[-2][0] >= rects[-2][1]
    assert tuple(rects[-1]) == (0, 60, 0, 80)


def _sweep_brute_force(house, intr, pose, ids):
    """The sweep's count of each object: the most of its pixels in one view, every ray of
    every view tested against every box."""
    boxes = scene_boxes(house)
    views = [brute_force(boxes, view, intr)[1] for view in sweep_poses(pose)]
    return {oid: max(int((v == oid).sum()) for v in views) for oid in ids}


def test_sweep_counts_each_object_as_if_cast_alone():
    house = generate_house(9)
    intr = Intrinsics.from_vfov(48, 36, 60.0)
    pose = _poses(house, 3, 2)[1]
    here = house.room_at(*pose.position[:2])
    ids = [o.instance_id for o in house.objects if o.room_id == here][:6]
    ids += [o.instance_id for o in house.objects if o.room_id != here][:3]
    got = sweep_pixels(house, intr, pose, ids)
    assert got == _sweep_brute_force(house, intr, pose, ids)
    assert any(got.values())  # the room's objects are on screen somewhere in the sweep
    assert sweep_pixels(house, intr, pose, ids[::-1]) == got  # memoised, in any order
