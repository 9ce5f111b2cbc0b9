"""Actors in the MuJoCo scene: their primitive geometry, and their pose in every frame.

Each actor of a :class:`~streamspatial.scene.schedule.Schedule` becomes one or two mocap bodies
(a *frame* body at the actor's pose, and for door leaves and pendulums a *hinge* body for the
part that rotates) carrying primitive geoms named ``obj_<actor id>_<k>``, so segmentation maps
their pixels to the actor id exactly as it does for house objects.  Posing is a pure function
of :meth:`Schedule.state_at`: the renderer calls :meth:`ActorRig.pose` before each frame.

Conventions (what a schedule's numbers mean on screen; the planner relies on them):

* Local axes: ``+x`` is the actor's forward (``yaw`` turns it from world ``+x``), ``+z`` up;
  ``size`` is the full extent along local x, y, z and ``position`` the centre of that box.
* **person**: ``size ≈ (0.3, 0.5, 1.7)``; standing, ``position[2] = size[2] / 2`` (0.85 m);
  ``yaw`` is the walking direction.  Legs, torso, arms and head scale with ``size[2]``.
  Shirt in the actor's colour, dark trousers, skin-coloured head and hands.
* **door_leaf**: ``position`` is the *hinge* (on the vertical hinge axis, at the leaf's mid
  height, :data:`LEAF_HEIGHT`/2 above the floor); the leaf runs from the hinge in the direction
  ``yaw + angle``: ``angle = 0`` is shut (``yaw`` points from the hinge jamb to the other jamb),
  ``angle = π/2`` stands square to the wall, open into the room on the left of ``yaw``.
  ``size = (leaf width, LEAF_THICKNESS, LEAF_HEIGHT)``.  Build one with
  :func:`~streamspatial.scene.doors.door_leaf_actor` (the convention is
  :mod:`streamspatial.scene.doors`'s).  The
  house's own (always open) leaf of that door is not drawn while a door-leaf actor hangs there.
* **pendulum**: a metronome facing local ``+x`` (``yaw`` is the way its face looks), best
  ``size ≈ (0.15, 0.25, 0.5)``: a base block (the lower :data:`PENDULUM_BASE` of the height,
  in the actor's colour), a rod rising from a pivot on the base's top, and a bob near the rod's
  end (also the actor's colour).  The rod turns by ``angle`` about the local x axis, so a
  viewer in front sees the swing across; positive ``angle`` tips the bob towards local ``−y``
  (that viewer's left).  ``position`` is the centre of the ``size`` box (the base's bottom at
  ``position[2] - size[2]/2``).
* **prop**: the catalogue model ``model`` when given, else a primitive of ``size`` (a cylinder
  for round categories, a box otherwise).  ``present = False`` hides it (no pixels, no ids).
* **ball**: a sphere of diameter ``size[0]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from streamspatial.scene import catalog
from streamspatial.scene.schedule import Actor, ActorPose, SceneState

PENDULUM_BASE = 0.3  # share of a pendulum's height taken by its base block
PENDULUM_ROD = 0.68  # share of its height the rod rises above the pivot
BOB_RADIUS = 0.065  # about 5 px across in a 160×120 frame from 2.5 m (vfov 60°)
PERSON_HEIGHT = 1.7
HIDDEN_Z = -50.0  # absent actors are parked below the floor (and their geoms hidden)
ROUND_PROPS = ("cup", "mug", "bottle", "vase", "can", "jar", "glass", "bowl", "pot", "candle")
SKIN = (0.85, 0.66, 0.52)
TROUSERS = (0.18, 0.2, 0.26)
METAL = (0.75, 0.75, 0.72)

_G = mujoco.mjtGeom


def tint(color: str) -> tuple[float, float, float]:
    """The actor colour as a material: the palette colour, slightly desaturated and brightened
    as :func:`streamspatial.sim.house.assets.mjcf.tinted` does (shading takes about a quarter
    off)."""
    rgb = catalog.COLORS.get(color, catalog.COLORS["gray"])
    return tuple(min(1.0, (0.8 * c + 0.2 * 0.55) * 1.3) for c in rgb)  # type: ignore[return-value]


# ----------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class _Prim:
    """One primitive geom in an actor body's frame."""

    kind: int  # mjtGeom
    size: tuple[float, ...]
    pos: tuple[float, float, float]
    rgb: tuple[float, float, float]
    fromto: tuple[float, ...] | None = None
    hinge: bool = False  # on the rotating body


def _cap(a, b, r, rgb, hinge=False) -> _Prim:
    return _Prim(_G.mjGEOM_CAPSULE, (r,), (0, 0, 0), rgb, (*a, *b), hinge)


def _person(actor: Actor) -> list[_Prim]:
    s = actor.size[2] / PERSON_HEIGHT
    z0 = -actor.size[2] / 2  # feet, relative to the centre
    shirt = tint(actor.color)

    def p(x, y, z):
        return (x * s, y * s, z0 + z * s)

    out = []
    for y in (-0.1, 0.1):
        out.append(_cap(p(0, y, 0.07), p(0, y, 0.82), 0.075 * s, TROUSERS))
    out.append(_Prim(_G.mjGEOM_BOX, (0.12 * s, 0.2 * s, 0.3 * s), p(0, 0, 1.12), shirt))
    for y in (-0.25, 0.25):
        out.append(_cap(p(0, y, 1.36), p(0.04, y * 1.06, 0.92), 0.05 * s, shirt))
        out.append(_Prim(_G.mjGEOM_SPHERE, (0.055 * s,), p(0.04, y * 1.06, 0.84), SKIN))
    out.append(_cap(p(0, 0, 1.42), p(0, 0, 1.5), 0.05 * s, SKIN))
    out.append(_Prim(_G.mjGEOM_SPHERE, (0.11 * s,), p(0, 0, 1.58), SKIN))
    return out


def _door_leaf(actor: Actor) -> list[_Prim]:
    w, t, h = actor.size
    rgb = tint(actor.color)
    return [
        _Prim(_G.mjGEOM_BOX, (w / 2, t / 2, h / 2), (w / 2, 0, 0), rgb, hinge=True),
        _Prim(_G.mjGEOM_BOX, (0.05, t / 2 + 0.02, 0.012), (w - 0.08, 0, 0), METAL, hinge=True),
    ]


def _pendulum(actor: Actor) -> list[_Prim]:
    w, d, h = actor.size
    rgb = tint(actor.color)
    base = h * PENDULUM_BASE
    rod = h * PENDULUM_ROD
    # the hinge body sits at the pivot (top of the base); its prims are relative to it
    return [
        _Prim(_G.mjGEOM_BOX, (w / 2, d / 2, base / 2), (0, 0, -h / 2 + base / 2), rgb),
        _cap((0, 0, 0), (0, 0, rod), 0.008, METAL, hinge=True),
        _Prim(_G.mjGEOM_SPHERE, (BOB_RADIUS,), (0, 0, rod * 0.82), rgb, hinge=True),
    ]


def _prop(actor: Actor) -> list[_Prim]:
    sx, sy, sz = actor.size
    rgb = tint(actor.color)
    if any(k in actor.category for k in ROUND_PROPS):
        return [_Prim(_G.mjGEOM_CYLINDER, (min(sx, sy) / 2, sz / 2), (0, 0, 0), rgb)]
    return [_Prim(_G.mjGEOM_BOX, (sx / 2, sy / 2, sz / 2), (0, 0, 0), rgb)]


def _ball(actor: Actor) -> list[_Prim]:
    return [_Prim(_G.mjGEOM_SPHERE, (actor.size[0] / 2,), (0, 0, 0), tint(actor.color))]


_SHAPES = {
    "person": _person,
    "door_leaf": _door_leaf,
    "pendulum": _pendulum,
    "prop": _prop,
    "ball": _ball,
}


def _yaw_quat(yaw: float) -> np.ndarray:
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, a, b)
    return out


class ActorRig:
    """The actors' bodies in a model: built into an ``MjSpec``, posed per frame."""

    def __init__(self, actors: tuple[Actor, ...]):
        self.actors = actors
        self._by_id = {a.actor_id: a for a in actors}
        self._bodies: dict[int, tuple[str, str | None]] = {}
        self._mocap: dict[int, tuple[int, int]] = {}  # actor id → (frame mocap, hinge mocap)
        self._geoms: dict[int, np.ndarray] = {}

    def build(self, spec: mujoco.MjSpec) -> None:
        """Add every actor's mocap bodies and geoms to ``spec`` (after the camera rig)."""
        grain = _grain(spec)
        for a in self.actors:
            frame = spec.worldbody.add_body(name=f"actor_{a.actor_id}", mocap=True)
            hinge_name = None
            k = 0
            prims = _SHAPES[a.kind](a)
            if a.kind == "prop" and a.model:
                k = _catalogue_prop(spec, frame, a)
                if k:
                    prims = []
            if any(p.hinge for p in prims):
                hinge_name = f"actor_{a.actor_id}_hinge"
                hinge = spec.worldbody.add_body(name=hinge_name, mocap=True)
            for p in prims:
                body = hinge if p.hinge else frame
                mat = spec.add_material(
                    name=f"actor_{a.actor_id}_m{k}",
                    rgba=[*p.rgb, 1.0],
                    specular=0.1,
                    shininess=0.2,
                    texrepeat=[3, 3],
                    texuniform=True,
                )
                mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = grain
                g = body.add_geom(
                    name=f"obj_{a.actor_id}_{k}",
                    type=p.kind,
                    material=mat.name,
                    contype=0,
                    conaffinity=0,
                )
                sz = list(p.size) + [0.0] * (3 - len(p.size))
                if p.fromto is not None:
                    g.fromto = list(p.fromto)
                    sz = [p.size[0], 0.0, 0.0]
                else:
                    g.pos = list(p.pos)
                g.size = sz
                k += 1
            self._bodies[a.actor_id] = (frame.name, hinge_name)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the compiled model's mocap indices and each actor's geom ids."""
        names = [
            mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or "" for g in range(model.ngeom)
        ]
        for aid, (frame, hinge) in self._bodies.items():
            fm = int(model.body_mocapid[model.body(frame).id])
            hm = -1 if hinge is None else int(model.body_mocapid[model.body(hinge).id])
            self._mocap[aid] = (fm, hm)
            prefix = f"obj_{aid}_"
            self._geoms[aid] = np.array([g for g, n in enumerate(names) if n.startswith(prefix)])

    def pose(self, data: mujoco.MjData, state: SceneState) -> dict[int, ActorPose]:
        """Move every actor's bodies to its pose in ``state``; returns the poses."""
        for a in self.actors:
            p = state.actors[a.actor_id]
            fm, hm = self._mocap[a.actor_id]
            pos = np.asarray(p.position, dtype=float)
            if not p.present:
                pos = np.array([pos[0], pos[1], HIDDEN_Z])
            q = _yaw_quat(p.yaw)
            data.mocap_pos[fm] = pos
            data.mocap_quat[fm] = q
            if hm < 0:
                continue
            if a.kind == "door_leaf":
                data.mocap_pos[hm] = pos
                data.mocap_quat[hm] = _yaw_quat(p.yaw + p.angle)
            else:  # pendulum: pivot on the base's top, turning about local x (its facing)
                h = a.size[2]
                pivot = np.array([0.0, 0.0, -h / 2 + h * PENDULUM_BASE])
                rot = np.zeros(9)
                mujoco.mju_quat2Mat(rot, q)
                data.mocap_pos[hm] = pos + rot.reshape(3, 3) @ pivot
                tilt = np.array([math.cos(p.angle / 2), math.sin(p.angle / 2), 0.0, 0.0])
                data.mocap_quat[hm] = _quat_mul(q, tilt)
        return state.actors  # type: ignore[return-value]

    def anchor(self, actor_id: int, p: ActorPose) -> tuple[float, float]:
        """The floor point that decides an actor's room: its position, or a door leaf's
        centre (its hinge stands in the doorway, the open leaf in a room)."""
        a = self._by_id[actor_id]
        if a.kind != "door_leaf":
            return p.position[0], p.position[1]
        r = a.size[0] / 2
        return (
            p.position[0] + r * math.cos(p.yaw + p.angle),
            p.position[1] + r * math.sin(p.yaw + p.angle),
        )

    def door_of(self, actor_id: int) -> int:
        """The door a door-leaf actor hangs in; −1 for every other actor."""
        a = self._by_id[actor_id]
        return a.door_id if a.kind == "door_leaf" else -1

    def geoms(self, actor_id: int) -> np.ndarray:
        return self._geoms[actor_id]

    @property
    def door_ids(self) -> set[int]:
        return {a.door_id for a in self.actors if a.kind == "door_leaf" and a.door_id >= 0}


def _grain(spec: mujoco.MjSpec) -> str:
    from streamspatial.sim.house.assets.mjcf import add_texture, grain_texture

    add_texture(spec, "actor_grain", grain_texture())
    return "actor_grain"


def _catalogue_prop(spec: mujoco.MjSpec, body, actor: Actor) -> int:
    """The catalogue model ``actor.model`` as mesh geoms on ``body``, scaled to ``actor.size``;
    returns how many geoms were added (0 when the model is not in this copy of the library)."""
    from streamspatial.sim.house.assets.mjcf import box_uv, grain_texture, instance_model

    try:
        model = instance_model(actor.model)
    except KeyError:
        return 0
    scale = [s / max(m, 1e-9) for s, m in zip(actor.size, model.size, strict=True)]
    for k, p in enumerate(model.parts):
        name = f"actor_{actor.actor_id}_{k}"
        if p.texture >= 0:
            img, uv = model.textures[p.texture], p.uv
        else:
            img, uv = (
                grain_texture(),
                box_uv(p.vert * np.asarray(scale, dtype=np.float32), p.normal),
            )
        img = np.ascontiguousarray(img[::-1])
        t = spec.add_texture(
            name=f"{name}_tex",
            type=mujoco.mjtTexture.mjTEXTURE_2D,
            width=img.shape[1],
            height=img.shape[0],
            nchannel=3,
        )
        t.data = img.tobytes()
        me = spec.add_mesh(name=f"{name}_mesh")
        me.uservert = np.asarray(p.vert, dtype=np.float32).ravel()
        me.usernormal = np.asarray(p.normal, dtype=np.float32).ravel()
        me.userface = np.asarray(p.face, dtype=np.int32).ravel()
        me.usertexcoord = np.asarray(uv, dtype=np.float32).ravel()
        me.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
        me.scale = scale
        mat = spec.add_material(name=f"{name}_mat", rgba=list(p.rgba), specular=0.05, shininess=0.1)
        mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = t.name
        body.add_geom(
            name=f"obj_{actor.actor_id}_{k}",
            type=mujoco.mjtGeom.mjGEOM_MESH,
            meshname=me.name,
            material=mat.name,
            contype=0,
            conaffinity=0,
        )
    return len(model.parts)


__all__ = ["ActorRig", "tint"]
