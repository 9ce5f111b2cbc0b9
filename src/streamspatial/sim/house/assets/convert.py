"""Catalogue models → render-ready meshes: one part per material, in the simulator's frame.

A Sweet Home 3D model is an OBJ whose ``y`` is up and whose front faces ``+z``; the catalogue
may add a ``modelRotation`` to apply first, and gives the real size of the rotated model's
bounding box.  A converted :class:`Model` is in the simulator's object frame instead (front
``+x``, up ``+z``, see :mod:`streamspatial.scene.types`): centred on its bounding box, whose
extents are the catalogue's depth, width and height.  Each material becomes one
:class:`Part` (vertices, normals, UVs, triangles, a colour and optionally an image), so the
renderer draws one geom per material; normals go through the inverse-transpose of the
non-uniform scale.  Images are kept at most :data:`MAX_TEXTURE` pixels on a side.

Conversion reads the zip once and is cached as a compressed ``.npz`` per model under
:func:`cache_dir` (``$XDG_CACHE_HOME/streamspatial/furniture``), written atomically under a
file lock so parallel workers convert a model once.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from streamspatial.sim.house.assets.sh3f import CatalogEntry, furniture_dir

CONVERTER_VERSION = 3
MAX_TEXTURE = 256
FLAT_MIN = 0.01  # flat items (rugs, paper) get at least 1 cm of height


@dataclass(frozen=True)
class Part:
    vert: np.ndarray  # (N, 3) float32, object frame, metres at the catalogue's size
    normal: np.ndarray  # (N, 3) float32, unit
    uv: np.ndarray | None  # (N, 2) float32
    face: np.ndarray  # (M, 3) int32
    rgba: tuple[float, float, float, float]
    texture: int  # index into Model.textures, -1 for none


@dataclass(frozen=True)
class Model:
    id: str
    size: tuple[float, float, float]  # extents along the object frame's x (depth), y, z
    parts: tuple[Part, ...]
    textures: tuple[np.ndarray, ...]  # (H, W, 3) uint8 images

    @property
    def triangles(self) -> int:
        return sum(len(p.face) for p in self.parts)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "streamspatial" / "furniture"


def _safe(id_: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", id_)


def load_model(entry: CatalogEntry) -> Model:
    """The converted model of a catalogue entry, from the cache or converted now."""
    from filelock import FileLock

    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{_safe(entry.id)}.v{CONVERTER_VERSION}.npz"
    if not path.exists():
        with FileLock(str(path) + ".lock"):
            if not path.exists():
                model = convert(entry)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                with open(tmp, "wb") as f:
                    _save(model, f)
                os.replace(tmp, path)
                return model
    return _load(path, entry.id)


def _save(model: Model, f: io.BufferedWriter) -> None:
    arrays: dict[str, np.ndarray] = {}
    meta = {"id": model.id, "size": list(model.size), "parts": []}
    for i, p in enumerate(model.parts):
        arrays[f"v{i}"], arrays[f"n{i}"], arrays[f"f{i}"] = p.vert, p.normal, p.face
        if p.uv is not None:
            arrays[f"t{i}"] = p.uv
        meta["parts"].append({"rgba": list(p.rgba), "texture": p.texture})
    for i, img in enumerate(model.textures):
        arrays[f"img{i}"] = img
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez_compressed(f, **arrays)


def _load(path: Path, id_: str) -> Model:
    with np.load(path) as z:
        meta = json.loads(z["meta"].tobytes())
        parts = tuple(
            Part(
                vert=z[f"v{i}"],
                normal=z[f"n{i}"],
                uv=z.get(f"t{i}"),
                face=z[f"f{i}"],
                rgba=tuple(pm["rgba"]),  # type: ignore[arg-type]
                texture=int(pm["texture"]),
            )
            for i, pm in enumerate(meta["parts"])
        )
        textures = tuple(z[f"img{i}"] for i in range(sum(k.startswith("img") for k in z.files)))
    return Model(id=id_, size=tuple(meta["size"]), parts=parts, textures=textures)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- conversion


def _model_files(entry: CatalogEntry) -> dict[str, bytes]:
    """Every file in the OBJ's folder, by relative path (and lower-cased path)."""
    base = posixpath.dirname(entry.model)
    base = base + "/" if base else ""
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(furniture_dir() / entry.library) as z:
        for n in z.namelist():
            if n.startswith(base) and not n.endswith("/"):
                data = z.read(n)
                rel = n[len(base) :]
                files[rel] = data
                files.setdefault(rel.lower(), data)
                files.setdefault(posixpath.basename(rel).lower(), data)
    return files


def _mtl_maps(files: dict[str, bytes], obj_text: str) -> dict[str, bytes]:
    """Material name → image bytes, resolving ``map_Kd`` paths loosely (as Sweet Home 3D does:
    absolute author paths like ``/Users/x/TEXTURES/rug.jpg`` fall back to the file name, and
    to the last word of a path with spaces)."""
    out: dict[str, bytes] = {}
    for lib in re.findall(r"^mtllib\s+(.+?)\s*$", obj_text, re.M):
        text = files.get(lib) or files.get(lib.lower())
        if text is None:
            continue
        current = None
        for line in text.decode("latin-1").splitlines():
            parts = line.strip().split(None, 1)
            if len(parts) < 2:
                continue
            if parts[0] == "newmtl":
                current = parts[1].strip()
            elif parts[0].lower() == "map_kd" and current is not None:
                ref = parts[1].strip().replace("\\", "/")
                for cand in (ref, ref.split()[-1], posixpath.basename(ref)):
                    for key in (cand, cand.lower(), posixpath.basename(cand).lower()):
                        if key in files:
                            out[current] = files[key]
                            break
                    if current in out:
                        break
    return out


def convert(entry: CatalogEntry) -> Model:
    """Read one model from its library and bring it into the simulator's object frame."""
    import trimesh
    from PIL import Image

    files = _model_files(entry)
    obj_name = posixpath.basename(entry.model)
    obj = files.get(obj_name) or files[obj_name.lower()]
    scene = trimesh.load(
        io.BytesIO(obj),
        file_type="obj",
        resolver=files,
        group_material=True,
        split_object=False,
        process=False,
        force="scene",
    )
    maps = _mtl_maps(files, obj.decode("latin-1"))
    # Model frame (x right, y up, z front) → object frame (x front, y = model x, z up).
    axes = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=np.float64)
    rot = np.eye(3)
    if entry.model_rotation and len(entry.model_rotation) == 9:
        rot = np.array(entry.model_rotation, dtype=np.float64).reshape(3, 3)
    lin = axes @ rot
    raw = []
    for name in sorted(scene.geometry):
        g = scene.geometry[name]
        if len(g.faces) == 0:
            continue
        v = np.asarray(g.vertices, dtype=np.float64) @ lin.T
        n = np.asarray(g.vertex_normals, dtype=np.float64) @ lin.T
        raw.append((name, g, v, n))
    if not raw:
        raise ValueError(f"{entry.library}: {entry.id} has no triangles")
    allv = np.concatenate([r[2] for r in raw])
    lo, hi = allv.min(axis=0), allv.max(axis=0)
    target = np.array([entry.depth, entry.width, max(entry.height, FLAT_MIN)])
    ext = np.maximum(hi - lo, 1e-9)
    scale = target / ext
    centre = (lo + hi) / 2
    textures: list[np.ndarray] = []
    tex_index: dict[int, int] = {}
    parts = []
    for _name, g, v, n in raw:
        vert = ((v - centre) * scale).astype(np.float32)
        normal = n / scale  # inverse-transpose of a diagonal scale
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
        mat = getattr(g.visual, "material", None)
        kwargs = getattr(mat, "kwargs", None) or {}
        if "kd" in kwargs:
            kd = np.asarray(kwargs["kd"], dtype=float).ravel()[:3]
        else:
            kd = np.asarray(getattr(g.visual, "main_color", [204, 204, 204]), dtype=float)[:3] / 255
        alpha = float(np.asarray(kwargs.get("d", ["1"]), dtype=float).ravel()[0])
        image = getattr(mat, "image", None)
        if image is None and getattr(mat, "name", None) in maps:
            try:
                image = Image.open(io.BytesIO(maps[mat.name]))
            except OSError:
                image = None
        uv = getattr(g.visual, "uv", None)
        tex = -1
        if image is not None and uv is not None and len(uv) == len(vert):
            key = id(image)
            if key not in tex_index:
                img = image.convert("RGB")
                img.thumbnail((MAX_TEXTURE, MAX_TEXTURE), Image.Resampling.LANCZOS)
                tex_index[key] = len(textures)
                textures.append(np.asarray(img, dtype=np.uint8).copy())
            tex = tex_index[key]
            rgba = (1.0, 1.0, 1.0, 1.0)
        else:
            uv = None
            rgba = (*(float(c) for c in np.clip(kd, 0, 1)), 1.0)
        if alpha < 0.6:  # glass: seen as a pale tint rather than blended, cheaper to draw
            rgba = (0.75, 0.82, 0.85, 1.0)
            tex, uv = -1, None
        parts.append(
            Part(
                vert=vert,
                normal=normal.astype(np.float32),
                uv=None if uv is None else np.asarray(uv, dtype=np.float32),
                face=np.asarray(g.faces, dtype=np.int32),
                rgba=rgba,  # type: ignore[arg-type]
                texture=tex,
            )
        )
    return Model(
        id=entry.id,
        size=(float(target[0]), float(target[1]), float(target[2])),
        parts=tuple(parts),
        textures=tuple(textures),
    )
