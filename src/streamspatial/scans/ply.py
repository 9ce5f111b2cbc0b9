"""PLY meshes as the three datasets ship them (binary little-endian, vertices with colours).

Read and written with ``plyfile``: ScanNet's ``_vh_clean_2.ply``, ARKitScenes'
``_3dod_mesh.ply`` and ScanNet++'s ``mesh_aligned_0.05_semantic.ply`` all carry ``x, y, z``,
``red, green, blue`` per vertex and ``vertex_indices`` (or ``vertex_index``) per face.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from streamspatial.core.errors import InputError, Problem


def read_ply(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(vertices (N, 3), faces (M, 3), colours (N, 3) uint8, other vertex properties)."""
    from plyfile import PlyData

    if not path.is_file():
        raise InputError(Problem(file=str(path), field="", expected="a PLY mesh (file missing)"))
    try:
        ply = PlyData.read(str(path))
        v = ply["vertex"].data
        names = v.dtype.names or ()
        xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float64)
    except (ValueError, KeyError, OSError, TypeError) as e:
        raise InputError(
            Problem(file=str(path), field="vertex", expected=f"a PLY mesh with x, y, z ({e})")
        ) from None
    if all(c in names for c in ("red", "green", "blue")):
        rgb = np.stack([v["red"], v["green"], v["blue"]], axis=1).astype(np.uint8)
    else:
        rgb = np.full((len(xyz), 3), 128, dtype=np.uint8)
    faces = np.zeros((0, 3), dtype=np.int64)
    if "face" in ply:
        f = ply["face"].data
        key = next((k for k in ("vertex_indices", "vertex_index") if k in f.dtype.names), None)
        if key is None:
            raise InputError(
                Problem(file=str(path), field="face", expected="vertex_indices per face")
            )
        rows = f[key]
        if len(rows) and not all(len(r) == 3 for r in rows[: min(len(rows), 1000)]):
            raise InputError(
                Problem(file=str(path), field="face.vertex_indices", expected="triangles")
            )
        faces = np.asarray(np.stack(rows), dtype=np.int64) if len(rows) else faces
        if faces.size and (faces.min() < 0 or faces.max() >= len(xyz)):
            raise InputError(
                Problem(
                    file=str(path),
                    field="face.vertex_indices",
                    expected=f"indices below the {len(xyz)} vertices",
                )
            )
    extra = {n: np.asarray(v[n]) for n in names if n not in ("x", "y", "z", "red", "green", "blue")}
    return xyz, faces, rgb, extra


def write_ply(
    path: Path,
    vertices: np.ndarray,
    faces: np.ndarray,
    colors: np.ndarray,
    extra: dict[str, np.ndarray] | None = None,
) -> None:
    """A binary PLY with ``x, y, z, red, green, blue`` (+ ``extra``) and triangles."""
    from plyfile import PlyData, PlyElement

    fields = [("x", "f4"), ("y", "f4"), ("z", "f4"), ("red", "u1"), ("green", "u1"), ("blue", "u1")]
    extra = extra or {}
    fields += [(k, a.dtype.str.lstrip("<>|=")) for k, a in extra.items()]
    v = np.empty(len(vertices), dtype=fields)
    for i, k in enumerate("xyz"):
        v[k] = vertices[:, i]
    for i, k in enumerate(("red", "green", "blue")):
        v[k] = colors[:, i]
    for k, a in extra.items():
        v[k] = a
    f = np.empty(len(faces), dtype=[("vertex_indices", "i4", (3,))])
    f["vertex_indices"] = faces
    PlyData(
        [PlyElement.describe(v, "vertex"), PlyElement.describe(f, "face")], byte_order="<"
    ).write(str(path))
