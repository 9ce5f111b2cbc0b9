"""Headless rendering with MuJoCo: RGB, metric depth, instance ids and per-object visibility.

Each frame takes two GL passes: the normal shaded pass for RGB, and one segmentation pass
from which both the ids *and* the depth are read (depth from the shaded pass is 1–4 cm off at
4–5 m; the segmentation pass is exact to float precision).  The camera is a mocap body moved
with ``mj_forward``; lights cast no shadows (shadow maps cost ~65 ms a frame on a software
renderer; shading is baked into the room textures instead, see
:mod:`streamspatial.sim.render.structure`).

A house with ``style == "textured"`` is drawn as catalogue models in textured, lit rooms; a
``"boxes"`` house as flat coloured boxes (the fallback tests can select).  For textured
houses each frame draws only what can be in view: the rooms within two doors of the camera's
room, and of those only the geoms whose bounding sphere meets the view frustum (the rest are
moved to a hidden geom group), and the lamps of the nearest rooms (fixed-function GL lights
at most eight).  ``MUJOCO_GL`` defaults to ``egl``; set it to ``osmesa`` before importing
this module to use Mesa's software renderer instead.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco
import numpy as np
from scipy import ndimage

from streamspatial.core.errors import StreamspatialError
from streamspatial.scene.camera import DEFAULT_VFOV
from streamspatial.scene.schedule import ACTOR_ID_BASE, Schedule
from streamspatial.scene.types import CameraPose, House, Intrinsics, Visible
from streamspatial.sim.render.actors import ActorRig
from streamspatial.sim.render.darkness import Darkness
from streamspatial.sim.render.scene import Box, camera_axes, scene_boxes

_EXTENT = 10.0
_ZNEAR = 0.001  # × extent = 1 cm
_ZFAR = 5.0  # × extent = 50 m


@dataclass(frozen=True)
class RenderedFrame:
    rgb: np.ndarray  # (H, W, 3) uint8
    depth: np.ndarray  # (H, W) float32 metres along the optical axis; inf where nothing
    instance: np.ndarray  # (H, W) int32 instance ids, 0 for structure / background
    lit: bool = True  # the lights of the camera's room are on (dynamic scenes switch them)

    def visibility(self) -> tuple[Visible, ...]:
        return visibility(self.instance, self.depth)

    def split_visibility(self) -> tuple[tuple[Visible, ...], tuple[Visible, ...]]:
        """(house objects seen, actors seen): ids below / from ``ACTOR_ID_BASE``."""
        vis = self.visibility()
        return (
            tuple(v for v in vis if v.instance_id < ACTOR_ID_BASE),
            tuple(v for v in vis if v.instance_id >= ACTOR_ID_BASE),
        )


def scene_xml(house: House, width: int, height: int, vfov_deg: float = DEFAULT_VFOV) -> str:
    """The MJCF of a house: static boxes, a mocap camera and shadowless lights."""
    (x0, y0), (x1, y1) = house.bounds
    parts = [
        '<mujoco model="house">',
        '<option gravity="0 0 0"/>',
        f'<statistic extent="{_EXTENT}" center="{(x0 + x1) / 2} {(y0 + y1) / 2} 1.3"/>',
        "<visual>",
        f'<global offwidth="{width}" offheight="{height}"/>',
        '<quality shadowsize="0"/>',
        f'<map znear="{_ZNEAR}" zfar="{_ZFAR}"/>',
        '<headlight ambient="0.45 0.45 0.45" diffuse="0.30 0.30 0.30" specular="0 0 0"/>',
        "</visual>",
        "<default>",
        '<geom type="box" contype="0" conaffinity="0"/>',
        "</default>",
        "<worldbody>",
        '<light directional="true" dir="0.3 0.5 -1" diffuse="0.35 0.35 0.35" '
        'specular="0 0 0" castshadow="false"/>',
        '<light directional="true" dir="-0.4 -0.2 -1" diffuse="0.2 0.2 0.2" '
        'specular="0 0 0" castshadow="false"/>',
    ]
    for b in scene_boxes(house):
        parts.append(_geom(b))
    parts += [
        '<body name="camera_rig" mocap="true" pos="0 0 1.5">',
        f'<camera name="eye" fovy="{vfov_deg}"/>',
        "</body>",
        "</worldbody>",
        "</mujoco>",
    ]
    return "\n".join(parts)


def _geom(b: Box) -> str:
    qw, qz = math.cos(b.yaw / 2), math.sin(b.yaw / 2)
    r, g, bl = b.rgb
    return (
        f'<geom name="{b.name}" pos="{b.center[0]} {b.center[1]} {b.center[2]}" '
        f'size="{b.half[0]} {b.half[1]} {b.half[2]}" quat="{qw} 0 0 {qz}" '
        f'rgba="{r} {g} {bl} 1"/>'
    )


def camera_quat(pose: CameraPose) -> np.ndarray:
    """MuJoCo cameras look along their −z with +y up: columns (right, up, −forward)."""
    right, up, forward = camera_axes(pose)
    mat = np.column_stack([right, up, -forward]).ravel()
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, mat)
    return q


HIDDEN_GROUP = 3  # geoms culled for this view are moved here; the scene option hides it
MAX_LIGHTS = 8  # fixed-function GL lights; the directional fills take two
PVS_DOORS = 2  # rooms up to this many doors from the camera's room may be in view


def view_room(house: House, x: float, y: float) -> int:
    """The room the camera's view is of: the room it stands in, or in a doorway the nearest."""
    here = house.room_at(x, y)
    if here is None:
        here = min(house.rooms, key=lambda r: math.dist(r.centroid, (x, y))).room_id
    return here


def textured_model(
    house: House, width: int, height: int, vfov_deg: float, rig: ActorRig | None = None
) -> mujoco.MjModel:
    """The MuJoCo model of a textured house: rooms, windows, lamps and catalogue models
    (and ``rig``'s actors, after the camera so that the camera stays mocap body 0)."""
    from streamspatial.sim.house.assets.mjcf import SceneBuilder, instance_model
    from streamspatial.sim.render.structure import build_structure

    (x0, y0), (x1, y1) = house.bounds
    b = SceneBuilder(width, height, extent_center=((x0 + x1) / 2, (y0 + y1) / 2, 1.3))
    build_structure(b, house)
    for o in house.objects:
        if o.model:
            b.add_object(
                instance_model(o.model),
                instance_id=o.instance_id,
                pos=o.position,
                yaw=o.yaw,
                size=o.size,
            )
        else:
            from streamspatial.sim.house.assets.mjcf import grain_texture
            from streamspatial.sim.render.meshes import frame_box

            grain = b.texture("grain", grain_texture())
            half = (o.size[0] / 2, o.size[1] / 2, o.size[2] / 2)
            frame_box(b, f"obj_{o.instance_id}_0", o.position, half, o.yaw, o.rgb, grain)
    b.add_camera(vfov_deg)
    if rig is not None:
        rig.build(b.spec)
    return b.compile()


class HouseRenderer:
    """Renders one house from arbitrary camera poses; use as a context manager (GL cleanup)."""

    def __init__(
        self,
        house: House,
        size: tuple[int, int] = (320, 240),
        vfov_deg: float = DEFAULT_VFOV,
        schedule: Schedule | None = None,
    ):
        width, height = size
        self.house = house
        self.schedule = schedule
        self.intrinsics = Intrinsics.from_vfov(width, height, vfov_deg)
        self.textured = house.style == "textured"
        rig = ActorRig(schedule.actors) if schedule is not None and schedule.actors else None
        self._rig = rig
        if self.textured:
            self.model = textured_model(house, width, height, vfov_deg, rig)
        elif rig is None:
            self.model = mujoco.MjModel.from_xml_string(scene_xml(house, width, height, vfov_deg))
        else:
            spec = mujoco.MjSpec.from_string(scene_xml(house, width, height, vfov_deg))
            rig.build(spec)
            self.model = spec.compile()
        if rig is not None:
            rig.bind(self.model)
        self.data = mujoco.MjData(self.model)
        try:
            self._renderer = mujoco.Renderer(self.model, height=height, width=width)
        except (mujoco.FatalError, RuntimeError) as e:
            raise StreamspatialError(
                f"cannot start headless rendering (MUJOCO_GL={os.environ.get('MUJOCO_GL')!r}): "
                f"{str(e).splitlines()[0]}; set MUJOCO_GL=egl or osmesa before anything "
                "imports mujoco, and install Mesa's EGL or OSMesa libraries"
            ) from None
        lut = np.zeros(self.model.ngeom, dtype=np.int32)
        rooms = np.full(self.model.ngeom, -1, dtype=np.int32)
        door_rooms = {d.door_id: (d.room_a, d.room_b) for d in house.doors}
        obj_room = {o.instance_id: o.room_id for o in house.objects}
        self._geom_door = np.full(self.model.ngeom, -1, dtype=np.int32)
        # geoms never drawn: a house leaf of a door that a door-leaf actor hangs in
        self._never = np.zeros(self.model.ngeom, dtype=bool)
        replaced = set() if rig is None else rig.door_ids
        kind = mujoco.mjtObj.mjOBJ_GEOM
        names = [mujoco.mj_id2name(self.model, kind, g) or "" for g in range(self.model.ngeom)]
        for g, name in enumerate(names):
            head, _, rest = name.partition("_")
            key = int(rest.split("_")[0]) if rest[:1].isdigit() else -1
            if head == "obj":
                lut[g] = key
                rooms[g] = obj_room.get(key, -1)
            elif head in ("s", "w"):
                rooms[g] = key
            elif head == "d":
                self._geom_door[g] = key
                self._never[g] = key in replaced and rest.endswith(("_leaf", "_knob"))
        self._darkness = Darkness(rooms, self._geom_door, names, door_rooms)
        self._geom_instance = lut
        self._geom_room = rooms
        self._door_rooms = door_rooms
        self._opt = mujoco.MjvOption()
        self._opt.geomgroup[HIDDEN_GROUP] = 0
        self._pvs = _room_pvs(house)
        self._lamp_ids = {
            int(name[4:]): i
            for i in range(self.model.nlight)
            if (
                name := mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_LIGHT, i) or ""
            ).startswith("lamp")
        }
        self._rgb_buf = np.empty((height, width, 3), dtype=np.uint8)
        self._seg_buf = np.empty((height, width, 3), dtype=np.uint8)
        self._depth_buf = np.empty((height, width), dtype=np.float32)

    def __enter__(self) -> HouseRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None  # type: ignore[assignment]

    def render(self, pose: CameraPose) -> RenderedFrame:
        r = self._renderer
        if r is None:
            raise RuntimeError("renderer is closed")
        self.data.mocap_pos[0] = pose.position
        self.data.mocap_quat[0] = camera_quat(pose)
        state = None if self.schedule is None else self.schedule.state_at(pose.time)
        if state is not None and self._rig is not None:
            self._rig.pose(self.data, state)
        mujoco.mj_forward(self.model, self.data)
        if self.textured:
            self._cull(pose)
        if state is not None:
            self._apply_state(pose, state)
        r.update_scene(self.data, camera="eye", scene_option=self._opt)
        rgb = r.render().copy()
        depth, instance = self._segment_and_depth()
        if state is None:
            return RenderedFrame(rgb=rgb, depth=depth, instance=instance)
        off = state.lights_off
        here = view_room(self.house, pose.position[0], pose.position[1])
        if off:
            self._darkness.apply(rgb, self._renderer._scene, self._segimage, off, here)
        return RenderedFrame(rgb=rgb, depth=depth, instance=instance, lit=here not in off)

    def _apply_state(self, pose: CameraPose, state) -> None:
        """Show present actors (in rooms that can be in view), hide the house leaves that
        door-leaf actors replace, and switch off the lamps of rooms whose lights are off."""
        m = self.model
        m.geom_group[self._never] = HIDDEN_GROUP
        if self._rig is not None:
            near = (
                self._pvs[view_room(self.house, pose.position[0], pose.position[1])]
                if self.textured
                else None
            )
            for aid, p in state.actors.items():
                room = self.house.room_at(*self._rig.anchor(aid, p))
                show = p.present and (near is None or room is None or room in near)
                geoms = self._rig.geoms(aid)
                m.geom_group[geoms] = 0 if show else HIDDEN_GROUP
                self._darkness.place(geoms, room, self._rig.door_of(aid))
        for k in state.lights_off:
            i = self._lamp_ids.get(k)
            if i is not None:
                m.light_active[i] = 0

    def _cull(self, pose: CameraPose) -> None:
        """Hide geoms of rooms that cannot be in view and geoms outside the view frustum."""
        m = self.model
        x, y, _ = pose.position
        near = self._pvs[view_room(self.house, x, y)]  # in a doorway: the nearest room's view
        room_ok = np.isin(self._geom_room, list(near))
        for door_id, (a, b) in self._door_rooms.items():
            if a in near or b in near:
                room_ok |= self._geom_door == door_id
        right, up, forward = camera_axes(pose)
        rel = m.geom_pos - np.asarray(pose.position)
        zc = rel @ forward
        tan_v = math.tan(math.radians(self.intrinsics.vfov_deg) / 2)
        tan_h = tan_v * self.intrinsics.width / self.intrinsics.height
        rb = m.geom_rbound
        in_view = (zc > -rb) & (np.abs(rel @ right) <= zc * tan_h + rb * math.hypot(1, tan_h))
        in_view &= np.abs(rel @ up) <= zc * tan_v + rb * math.hypot(1, tan_v)
        visible = room_ok & in_view
        visible[self._geom_room == -2] = True
        m.geom_group[:] = np.where(visible, 0, HIDDEN_GROUP)
        # Lamps of the nearest rooms in the visible set, up to the GL limit.
        m.light_active[:] = 1
        if len(self._lamp_ids) > MAX_LIGHTS - 2:
            order = sorted(near, key=lambda k: (near[k], k))[: MAX_LIGHTS - 2]
            for k, i in self._lamp_ids.items():
                m.light_active[i] = k in order

    def _segment_and_depth(self) -> tuple[np.ndarray, np.ndarray]:
        # One segmentation-mode pass read back as ids and depth together (the public API
        # would need two passes).  Mirrors mujoco.Renderer.render's own conversions.
        r = self._renderer
        scene, ctx, rect = r._scene, r._mjr_context, r._rect
        flags = scene.flags.copy()
        try:
            scene.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = True
            scene.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = True
            if r._gl_context:
                r._gl_context.make_current()
            mujoco.mjr_render(rect, scene, ctx)
            mujoco.mjr_readPixels(self._seg_buf, self._depth_buf, rect, ctx)
        finally:
            np.copyto(scene.flags, flags)
        # GL rows run bottom-up: read the buffers flipped, so every array below is built
        # once, in image order (no flip-and-copy afterwards).
        seg = self._seg_buf[::-1]
        segimage = seg[..., 0].astype(np.int32)
        segimage |= seg[..., 1].astype(np.int32) << 8
        segimage |= seg[..., 2].astype(np.int32) << 16
        lut = np.zeros(scene.ngeom + 1, dtype=np.int32)
        geom_type = int(mujoco.mjtObj.mjOBJ_GEOM)
        for g in scene.geoms[: scene.ngeom]:
            if g.segid != -1 and g.objtype == geom_type and 0 <= g.objid < len(self._geom_instance):
                lut[g.segid + 1] = self._geom_instance[g.objid]
        instance = lut[segimage]
        self._segimage = segimage
        depth = self._metric_depth(self._depth_buf[::-1])
        depth[segimage == 0] = np.inf  # background: nothing was drawn there
        return depth, instance

    def _metric_depth(self, buf: np.ndarray) -> np.ndarray:
        extent = self.model.stat.extent
        zfar = np.float32(self.model.vis.map.zfar * extent)
        znear = np.float32(self.model.vis.map.znear * extent)
        c_coef = -(zfar + znear) / (zfar - znear)
        d_coef = -(np.float32(2) * zfar * znear) / (zfar - znear)
        c_coef = np.float32(-0.5) * c_coef - np.float32(0.5)
        d_coef = np.float32(-0.5) * d_coef
        return (d_coef / (buf.astype(np.float64) + c_coef)).astype(np.float32)


def _room_pvs(house: House) -> dict[int, dict[int, int]]:
    """Room → {room: doors away} for rooms at most :data:`PVS_DOORS` doors away."""
    adj = house.adjacency()
    out = {}
    for r in house.rooms:
        seen = {r.room_id: 0}
        frontier = [r.room_id]
        for depth in range(1, PVS_DOORS + 1):
            nxt = []
            for k in frontier:
                for j in adj[k]:
                    if j not in seen:
                        seen[j] = depth
                        nxt.append(j)
            frontier = nxt
        out[r.room_id] = seen
    return out


def visibility(instance: np.ndarray, depth: np.ndarray) -> tuple[Visible, ...]:
    """Visible pixel count, 2D box and mean depth of every object in an instance-id image."""
    flat = instance.ravel()
    n = int(flat.max()) + 1 if flat.size else 1
    counts = np.bincount(flat, minlength=n)
    finite = np.where(np.isfinite(depth), depth, 0.0).ravel()
    depth_sum = np.bincount(flat, weights=finite, minlength=n)
    ids = np.flatnonzero(counts)
    ids = ids[ids > 0]
    if ids.size == 0:
        return ()
    boxes = ndimage.find_objects(instance)  # one C pass: each id's bounding slices
    out = []
    for i in ids:
        rows, cols = boxes[i - 1]
        out.append(
            Visible(
                instance_id=int(i),
                pixels=int(counts[i]),
                bbox=(int(cols.start), int(rows.start), int(cols.stop), int(rows.stop)),
                mean_depth=float(depth_sum[i] / counts[i]),
            )
        )
    return tuple(out)
