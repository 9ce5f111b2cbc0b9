"""Building MuJoCo scenes from converted models and textured surfaces (through ``MjSpec``).

Everything the renderer draws goes through :class:`SceneBuilder`: catalogue models (one mesh
geom per material, named ``obj_<instance id>_<part>`` so segmentation maps back to instances),
textured structure surfaces (``s_<room>_<k>``), lights and the mocap camera.  Meshes and
images are handed to MuJoCo as arrays, never written to files.  Parts without an image get a
shared fine-grain texture on box-projected coordinates, so no surface is a flat colour.

It sits with the catalogue models rather than in :mod:`streamspatial.sim.render` because the
house step uses it first: a furnished object's size is its converted model's
(:func:`instance_model`), and its colour is measured by rendering that model alone under these
same lights (:mod:`streamspatial.sim.house.colors`); the renderer then builds whole houses with
it.  So the steps still import one way: house, then render.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from functools import lru_cache

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco
import numpy as np

from streamspatial.scene import catalog, streams
from streamspatial.sim.house.assets.convert import Model, Part, load_model

AMBIENT = 0.45  # headlight ambient: light that reaches every surface
HEADLIGHT = 0.3  # headlight diffuse: a little light from the viewer
SUN = ((0.3, 0.5, -1.0, 0.3), (-0.4, -0.2, -1.0, 0.2))  # directional fill (dir, strength)
GRAIN_SCALE = 4.0  # grain texture repeats per metre on untextured parts
ZNEAR, ZFAR, EXTENT = 0.001, 5.0, 10.0  # × extent: 1 cm to 50 m


@lru_cache(maxsize=512)
def instance_model(key: str) -> Model:
    """The model named ``"<catalogue id>"`` or ``"<catalogue id>|<colour name>"`` (tinted)."""
    from streamspatial.sim.house.assets.sh3f import all_entries

    id_, _, tint = key.partition("|")
    model = load_model(_entries()[id_] if _entries() else all_entries()[id_])
    return tinted(model, tint) if tint else model


@lru_cache(maxsize=1)
def _entries() -> dict:
    from streamspatial.sim.house.assets.sh3f import all_entries

    return all_entries()


def _areas(p: Part) -> float:
    v = p.vert[p.face]
    return float(np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1).sum() / 2)


def tinted(model: Model, tint: str) -> Model:
    """The model with its dominant materials recoloured to the palette colour ``tint``.

    Dominant: the parts holding at least a quarter of the surface (always the largest).  An
    image keeps its grain: it becomes grey with mean 0.85 and the colour multiplies it.
    """
    # A little less saturated than the palette (dyes and paints are not pure), and brighter:
    # shading takes about a quarter off a lit surface.
    rgb = tuple(min(1.0, (0.8 * c + 0.2 * 0.55) * 1.3) for c in catalog.COLORS[tint])
    areas = np.array([_areas(p) for p in model.parts])
    share = areas / max(areas.sum(), 1e-12)
    textures = list(model.textures)
    grey: dict[int, int] = {}
    parts = []
    for i, p in enumerate(model.parts):
        if share[i] < 0.25 and i != int(np.argmax(share)):
            parts.append(p)
            continue
        tex = p.texture
        if tex >= 0:
            if tex not in grey:
                g = model.textures[tex].astype(np.float32).mean(axis=2)
                g = np.clip(g * (0.85 * 255 / max(g.mean(), 1.0)), 0, 255).astype(np.uint8)
                grey[tex] = len(textures)
                textures.append(np.repeat(g[..., None], 3, axis=2))
            tex = grey[tex]
        parts.append(replace(p, rgba=(*rgb, p.rgba[3]), texture=tex))
    return Model(f"{model.id}|{tint}", model.size, tuple(parts), tuple(textures))


def add_texture(spec: mujoco.MjSpec, name: str, image: np.ndarray) -> None:
    """Add an (H, W, 3) uint8 image to ``spec`` as the 2D texture ``name``."""
    img = np.ascontiguousarray(image[::-1])  # GL rows run bottom-up
    t = spec.add_texture(
        name=name,
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        width=img.shape[1],
        height=img.shape[0],
        nchannel=3,
    )
    t.data = img.tobytes()


@lru_cache(maxsize=1)
def grain_texture() -> np.ndarray:
    """A tileable, seeded fabric/wood-like grain (grey around 0.9), 128×128."""
    rng = np.random.default_rng(streams.GRAIN)
    n = 128
    f = np.fft.fftfreq(n)
    fx, fy = np.meshgrid(f, f)
    spec = (rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))) / (
        np.hypot(fx, fy * 0.35) + 0.02
    )
    g = np.real(np.fft.ifft2(spec))
    g = (g - g.mean()) / g.std()
    fine = rng.normal(size=(n, n))
    v = 0.9 + 0.06 * g + 0.035 * fine
    img = np.clip(v * 255, 0, 255).astype(np.uint8)
    return np.repeat(img[..., None], 3, axis=2)


def box_uv(vert: np.ndarray, normal: np.ndarray, scale: float = GRAIN_SCALE) -> np.ndarray:
    """Texture coordinates by projecting each vertex on the plane its normal faces most."""
    ax = np.argmax(np.abs(normal), axis=1)
    uv = np.empty((len(vert), 2), dtype=np.float32)
    for a, (i, j) in enumerate(((1, 2), (0, 2), (0, 1))):
        sel = ax == a
        uv[sel, 0] = vert[sel, i] * scale
        uv[sel, 1] = vert[sel, j] * scale
    return uv


def yaw_quat(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


class SceneBuilder:
    """Accumulates a MuJoCo scene: textures (deduplicated by key), meshes, geoms, lights."""

    def __init__(self, width: int, height: int, *, extent_center=(0.0, 0.0, 1.3)):
        self.spec = spec = mujoco.MjSpec()
        spec.modelname = "house"
        spec.option.gravity = [0, 0, 0]
        spec.stat.extent = EXTENT
        spec.stat.center = list(extent_center)
        spec.compiler.usethread = False
        vis = spec.visual
        vis.global_.offwidth = width
        vis.global_.offheight = height
        vis.quality.shadowsize = 0
        vis.quality.offsamples = 0
        vis.map.znear = ZNEAR
        vis.map.zfar = ZFAR
        vis.headlight.ambient = [AMBIENT] * 3
        vis.headlight.diffuse = [HEADLIGHT] * 3
        vis.headlight.specular = [0, 0, 0]
        for x, y, z, s in SUN:
            spec.worldbody.add_light(
                type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL,
                dir=[x, y, z],
                diffuse=[s] * 3,
                specular=[0, 0, 0],
                castshadow=False,
            )
        self._textures: dict[str, str] = {}
        self._n = 0

    def texture(self, key: str, image: np.ndarray) -> str:
        """Register an (H, W, 3) uint8 image once under ``key``; returns its name."""
        if key not in self._textures:
            name = f"tex{len(self._textures)}"
            add_texture(self.spec, name, image)
            self._textures[key] = name
        return self._textures[key]

    def mesh_geom(
        self,
        name: str,
        vert: np.ndarray,
        normal: np.ndarray,
        face: np.ndarray,
        uv: np.ndarray | None,
        rgba,
        texture: str | None,
        *,
        pos=(0.0, 0.0, 0.0),
        yaw: float = 0.0,
        scale=(1.0, 1.0, 1.0),
        emission: float = 0.0,
        mesh: str | None = None,
    ) -> str:
        """One textured mesh geom; reuses the mesh called ``mesh`` when it already exists."""
        self._n += 1
        mname = mesh or f"mesh{self._n}"
        if mesh is None or self.spec.mesh(mname) is None:
            me = self.spec.add_mesh(name=mname)
            me.uservert = np.asarray(vert, dtype=np.float32).ravel()
            me.usernormal = np.asarray(normal, dtype=np.float32).ravel()
            me.userface = np.asarray(face, dtype=np.int32).ravel()
            if uv is not None:
                me.usertexcoord = np.asarray(uv, dtype=np.float32).ravel()
            me.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
            me.scale = list(scale)
        mat = self.spec.add_material(
            name=f"mat{self._n}", rgba=list(rgba), specular=0.05, shininess=0.1
        )
        mat.emission = emission
        if texture is not None:
            mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = texture
        self.spec.worldbody.add_geom(
            name=name,
            type=mujoco.mjtGeom.mjGEOM_MESH,
            meshname=mname,
            material=mat.name,
            pos=list(pos),
            quat=yaw_quat(yaw),
            contype=0,
            conaffinity=0,
        )
        return name

    def add_object(
        self,
        model: Model,
        *,
        instance_id: int,
        pos,
        yaw: float,
        size=None,
        prefix: str = "obj",
    ) -> None:
        """A catalogue model as geoms ``<prefix>_<instance_id>_<part>``, scaled to ``size``."""
        size = size or model.size
        scale = tuple(s / max(m, 1e-9) for s, m in zip(size, model.size, strict=True))
        for k, p in enumerate(model.parts):
            if p.texture >= 0:
                tex = self.texture(f"{model.id}#{p.texture}", model.textures[p.texture])
                uv = p.uv
            else:
                tex = self.texture("grain", grain_texture())
                uv = box_uv(p.vert * np.asarray(scale, dtype=np.float32), p.normal)
            self.mesh_geom(
                f"{prefix}_{instance_id}_{k}",
                p.vert,
                p.normal,
                p.face,
                uv,
                p.rgba,
                tex,
                pos=pos,
                yaw=yaw,
                scale=scale,
            )

    def add_camera(self, vfov_deg: float = 60.0) -> None:
        body = self.spec.worldbody.add_body(name="camera_rig", mocap=True, pos=[0, 0, 1.5])
        body.add_camera(name="eye", fovy=vfov_deg)

    @staticmethod
    def point_camera(data: mujoco.MjData, eye, forward) -> None:
        f = np.asarray(forward, dtype=float)
        f /= np.linalg.norm(f)
        right = np.cross(f, [0.0, 0.0, 1.0])
        if np.linalg.norm(right) < 1e-9:
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, f)
        q = np.zeros(4)
        mujoco.mju_mat2Quat(q, np.column_stack([right, up, -f]).ravel())
        data.mocap_pos[0] = eye
        data.mocap_quat[0] = q

    def compile(self) -> mujoco.MjModel:
        return self.spec.compile()
