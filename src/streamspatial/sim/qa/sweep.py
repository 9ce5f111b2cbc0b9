"""What a ``sweep_around`` from a recorded pose would show, computed without a GL context.

Explorable questions promise that exploring can answer them, so the generator must know, at
generation time, which objects the exploration environment's ``sweep_around`` (eight views, 45°
apart, turning in place at the pose of t_q: see
:class:`~streamspatial.sim.explore.env.ExploreEnv`) would put on screen.  It casts rays with the
pure-NumPy reference caster (:mod:`streamspatial.sim.render.raycast`) over the very boxes the
renderer draws, so occlusion by walls and furniture is exact, and each view is cast once for
all the objects asked about, over the pixels their boxes can project to: a few milliseconds a
view at 640×480 where casting each object alone cost up to a second (a box beside the camera
straddles the image plane, and its footprint was the whole frame).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from streamspatial.scene.types import CameraPose, House, Intrinsics
from streamspatial.sim.render.raycast import cast, screen_rects
from streamspatial.sim.render.scene import Box, scene_boxes

SWEEP_VIEWS = 8  # sweep_around: eight views, one every 45°, ending at the starting heading


def sweep_poses(pose: CameraPose) -> list[CameraPose]:
    """The views ``sweep_around`` renders from ``pose`` (the env's order, time left at 0)."""
    return [
        CameraPose(
            time=0.0,
            position=pose.position,
            yaw=pose.yaw + k * 2 * math.pi / SWEEP_VIEWS,
            pitch=pose.pitch,
            motion="sweep",
        )
        for k in range(1, SWEEP_VIEWS + 1)
    ]


class _Scene:
    """A house's boxes, where each object's box sits in the list, and its sweep results."""

    def __init__(self, house: House):
        self.house = house  # held, so that id(house) stays this house's while cached
        self.boxes = scene_boxes(house)
        self.slot = {b.instance_id: i for i, b in enumerate(self.boxes) if b.instance_id}
        self.memo: dict[tuple, int] = {}  # (intrinsics, pose, object) → pixels


_SCENES: OrderedDict[int, _Scene] = OrderedDict()
_SCENES_MAX = 8
_MEMO_MAX = 50_000  # results kept per house; generators revisit the same query frames


def _scene(house: House) -> _Scene:
    """The house's cached scene, found by identity: hashing a house (every room, wall and
    object) on each call cost more than the sweeps it looked up."""
    scene = _SCENES.get(id(house))
    if scene is None or scene.house is not house:
        scene = _SCENES[id(house)] = _Scene(house)
        while len(_SCENES) > _SCENES_MAX:
            _SCENES.popitem(last=False)
    _SCENES.move_to_end(id(house))
    return scene


def boxes_of(house: House) -> list[Box]:
    """The boxes the renderer draws for ``house`` (walls have instance id 0), cached."""
    return _scene(house).boxes


def view_pixels(
    house: House, intr: Intrinsics, view: CameraPose, instance_ids: Iterable[int]
) -> dict[int, int]:
    """Pixels each object covers in the one view from ``view`` (0 = out of sight): what the
    renderer's id buffer would count, without a GL context.

    One cast serves every object: it covers the union of the pixel rectangles they can cover
    (:func:`~streamspatial.sim.render.raycast.screen_rects`: each box clipped to the space in
    front of the camera, so one beside the camera covers part of the frame, not all of it),
    and each object's pixels are counted inside its own rectangle.  The caster decides every
    ray on its own (which other rays are cast changes nothing), so the counts are exactly
    those of casting each object's pixels alone, at a fraction of the cost: objects asked
    about together (a category across the house) share their rays.
    """
    scene = _scene(house)
    every = screen_rects(scene.boxes, view, intr)
    out: dict[int, int] = {}
    rects: dict[int, tuple[int, int, int, int]] = {}
    for oid in instance_ids:
        r0, r1, c0, c1 = (int(x) for x in every[scene.slot[oid]])
        out[oid] = 0
        if r0 < r1 and c0 < c1:
            rects[oid] = (r0, r1, c0, c1)
    if not rects:
        return out
    cover = np.zeros((intr.height, intr.width), dtype=bool)
    for r0, r1, c0, c1 in rects.values():
        cover[r0:r1, c0:c1] = True
    _, hit, _ = cast(scene.boxes, view, intr, pixels=np.argwhere(cover), rects=every)
    ids = np.zeros(cover.shape, dtype=np.int32)
    ids[cover] = hit  # argwhere and boolean indexing both walk the frame row by row
    for oid, (r0, r1, c0, c1) in rects.items():
        out[oid] = int(np.count_nonzero(ids[r0:r1, c0:c1] == oid))
    return out


def sweep_pixels(
    house: House, intr: Intrinsics, pose: CameraPose, instance_ids: Iterable[int]
) -> dict[int, int]:
    """Most pixels each object covers in any one view of a sweep from ``pose`` (0 = never);
    each view cast once for every object not memoised yet (:func:`view_pixels`)."""
    memo = _scene(house).memo
    view_key = (intr, pose.position, pose.yaw, pose.pitch)
    wanted = list(dict.fromkeys(instance_ids))
    known = {oid: memo[k] for oid in wanted if (k := (*view_key, oid)) in memo}
    todo = [oid for oid in wanted if oid not in known]
    best = dict.fromkeys(todo, 0)
    for view in sweep_poses(pose) if todo else ():
        for oid, n in view_pixels(house, intr, view, todo).items():
            best[oid] = max(best[oid], n)
    for oid, n in best.items():
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[(*view_key, oid)] = n
    return {oid: known[oid] if oid in known else best[oid] for oid in wanted}
