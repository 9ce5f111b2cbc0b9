"""Naming an object's colour from its rendered pixels.

Questions say "the red chair"; the red has to be what a viewer sees.  Every pixel of an object
is named by the nearest palette colour (:data:`streamspatial.scene.catalog.COLORS`) in CIE Lab,
and the object's colour is the name most of its pixels get.  :func:`studio_color` renders a
model alone under the house renderer's own lights from eight directions and names those
pixels; it is what the house generator assigns, and ``tests/sim/test_sim_colors.py`` checks it
against the pixels of objects in generated footage.
"""

from __future__ import annotations

import math
import os
from functools import cache
from pathlib import Path

import numpy as np

from streamspatial.scene import catalog

_NAMES = tuple(catalog.COLORS)


def _lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB in 0..1 → CIE Lab (D65), any leading shape."""
    c = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


@cache
def _palette_lab() -> np.ndarray:
    return _lab(np.array([catalog.COLORS[n] for n in _NAMES], dtype=np.float64))


def pixel_names(rgb_u8: np.ndarray) -> np.ndarray:
    """Palette index of each pixel of an (N, 3) uint8 array."""
    lab = _lab(rgb_u8.reshape(-1, 3).astype(np.float64) / 255.0)
    d = ((lab[:, None, :] - _palette_lab()[None, :, :]) ** 2).sum(axis=-1)
    return np.argmin(d, axis=1)


def name_pixels(rgb_u8: np.ndarray) -> tuple[str, tuple[float, float, float]]:
    """(colour name, mean rgb 0..1 of the pixels with that name) of an object's pixels."""
    px = rgb_u8.reshape(-1, 3)
    if len(px) == 0:
        raise ValueError("no pixels to name")
    idx = pixel_names(px)
    counts = np.bincount(idx, minlength=len(_NAMES))
    k = int(np.argmax(counts))
    mean = px[idx == k].astype(np.float64).mean(axis=0) / 255.0
    return _NAMES[k], (round(float(mean[0]), 3), round(float(mean[1]), 3), round(float(mean[2]), 3))


COLOR_VERSION = 2  # bump when tints or studio lights change: measured colours go stale
CONVERTER_VERSION_AT_MEASURE = 3  # the converter version the shipped table was measured with
STUDIO_SIZE = 64
STUDIO_VIEWS = 8


MEASURED = Path(__file__).with_name("assets") / "colors.json"


@cache
def _shipped() -> dict[str, list]:
    """Colours measured here for every model and tint the catalogue can draw.

    Shipping the measurements keeps a seed's house the same on every machine: a GPU driver
    shading a pixel a hair differently could otherwise flip a borderline colour name, and with
    it the recolouring choices of everything placed after.
    """
    import json

    if not MEASURED.exists():
        return {}
    data = json.loads(MEASURED.read_text(encoding="utf-8"))
    if data.get("version") != [CONVERTER_VERSION_AT_MEASURE, COLOR_VERSION]:
        return {}
    return data["colors"]


def studio_color(model_key: str) -> tuple[str, tuple[float, float, float]]:
    """The measured colour of a (possibly tinted) catalogue model.

    ``model_key`` is ``"<catalogue id>"`` or ``"<catalogue id>|<tint>"``.  Looked up in the
    shipped measurements first, then in the disk cache, else measured now and cached.
    """
    import json

    from filelock import FileLock

    from streamspatial.sim.house.assets.convert import CONVERTER_VERSION, cache_dir

    shipped = _shipped().get(model_key)
    if shipped is not None:
        return shipped[0], tuple(shipped[1])  # type: ignore[return-value]

    path = cache_dir() / f"colors.v{CONVERTER_VERSION}.{COLOR_VERSION}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        table = json.loads(path.read_text()) if path.exists() else {}
        if model_key in table:
            name, rgb = table[model_key]
            return name, tuple(rgb)  # type: ignore[return-value]
    name, rgb = _measure(model_key)
    with FileLock(str(path) + ".lock"):
        table = json.loads(path.read_text()) if path.exists() else {}
        table[model_key] = [name, list(rgb)]
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, sort_keys=True))
        os.replace(tmp, path)
    return name, rgb


_GL: list = []


def _gl_context():
    """One small offscreen GL context per process, reused for every studio measurement."""
    import mujoco

    if not _GL:
        ctx = mujoco.GLContext(STUDIO_SIZE, STUDIO_SIZE)
        ctx.make_current()
        _GL.append(ctx)
    _GL[0].make_current()
    return _GL[0]


def _measure(model_key: str) -> tuple[str, tuple[float, float, float]]:
    import mujoco

    from streamspatial.sim.house.assets.mjcf import SceneBuilder, instance_model

    model = instance_model(model_key)
    b = SceneBuilder(STUDIO_SIZE, STUDIO_SIZE)
    b.add_object(model, instance_id=1, pos=(0.0, 0.0, model.size[2] / 2), yaw=0.0)
    b.add_camera()
    m = b.compile()
    d = mujoco.MjData(m)
    _gl_context()
    ctx = mujoco.MjrContext(m, mujoco.mjtFontScale.mjFONTSCALE_100)
    try:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, ctx)
        scene = mujoco.MjvScene(m, maxgeom=max(16, m.ngeom + 8))
        opt, cam = mujoco.MjvOption(), mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
        cam.fixedcamid = 0
        rect = mujoco.MjrRect(0, 0, STUDIO_SIZE, STUDIO_SIZE)
        rgb = np.empty((STUDIO_SIZE, STUDIO_SIZE, 3), dtype=np.uint8)
        seg = np.empty((STUDIO_SIZE, STUDIO_SIZE, 3), dtype=np.uint8)
        pixels = []
        radius = 1.6 * max(model.size) + 0.3
        for k in range(STUDIO_VIEWS):
            az = 2 * math.pi * k / STUDIO_VIEWS + 0.3
            eye = np.array([radius * math.cos(az), radius * math.sin(az), model.size[2] / 2 + 0.5])
            b.point_camera(d, eye, np.array([0.0, 0.0, model.size[2] / 2]) - eye)
            mujoco.mj_forward(m, d)
            mujoco.mjv_updateScene(m, d, opt, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scene)
            mujoco.mjr_render(rect, scene, ctx)
            mujoco.mjr_readPixels(rgb, None, rect, ctx)
            scene.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = True
            scene.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = True
            mujoco.mjr_render(rect, scene, ctx)
            mujoco.mjr_readPixels(seg, None, rect, ctx)
            scene.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = False
            scene.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = False
            mask = seg.astype(np.int32).sum(axis=2) > 0  # id colour 0 is the background
            pixels.append(rgb[mask])
    finally:
        ctx.free()
    return name_pixels(np.concatenate(pixels))


def every_key() -> list[str]:
    """Every model key the simulator can draw: each model with each tint its categories allow."""
    from streamspatial.sim.house.assets.manifest import manifest

    policy = {c.name: c.tints for group in catalog.FURNITURE.values() for c in group}
    policy.update({c.name: c.tints for c in catalog.SMALL})
    tints_of: dict[str, set[str]] = {}
    for cat, ids in manifest()["categories"].items():
        tints = set(catalog.TINTS[policy[cat]]) if cat in policy else {""}
        if cat == "curtain":
            tints = set(catalog.CURTAIN_TINTS)
        for mid in ids:
            tints_of.setdefault(mid, set()).update(tints)
    return sorted(f"{m}|{t}" if t else m for m, ts in tints_of.items() for t in ts)


def write_measurements() -> int:  # pragma: no cover - maintenance tool
    """Measure every key afresh (no lookups) and write the shipped table."""
    import json

    from streamspatial.sim.house.assets.convert import CONVERTER_VERSION

    table = {k: [n, list(rgb)] for k in every_key() for n, rgb in [_measure(k)]}
    MEASURED.write_text(
        json.dumps(
            {"version": [CONVERTER_VERSION, COLOR_VERSION], "colors": table},
            indent=0,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )
    return len(table)


if __name__ == "__main__":  # pragma: no cover - maintenance: measure every model and tint
    print(f"measured {write_measurements()} model colours into {MEASURED}")
