"""ARKitScenes 3DOD scans in the layout the dataset publishes (Baruch et al., NeurIPS 2021).

Documentation: the ARKitScenes repository's data documentation ("3DOD") and its
``threedod/benchmark_scripts/utils/tenFpsDataLoader.py``.  Per scan ``<id>/``:

* ``<id>_3dod_annotation.json`` — ``data[]``: ``label``, ``objectId`` (or the order in the
  list), ``segments.obbAligned.{centroid, axesLengths, normalizedAxes}`` (the three unit axes
  one after another), in the gravity-aligned world frame (``z`` up);
* ``<id>_3dod_mesh.ply`` — the scene's mesh;
* ``<id>_frames/`` (or the scan folder itself): ``lowres_wide/<id>_<t>.png`` (RGB),
  ``lowres_depth/<id>_<t>.png`` (uint16, millimetres), ``lowres_wide_intrinsics/<id>_<t>.pincam``
  (``w h fx fy cx cy``) and ``lowres_wide.traj``: per line a timestamp, an axis-angle rotation
  and a translation taking world points into the camera (inverted here, as the loader does,
  into camera-to-world).

The mesh carries no instance labels: a vertex belongs to the smallest annotated box holding it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from streamspatial.core.errors import InputError, Problem

from ._read import field, from_first, instance_ids, need, objects_from_vertices, read_json
from .boxes import inside_box, obb_box
from .ply import read_ply
from .types import STRUCTURE, Camera, Scan, ScanFrame, ScanMesh, category_of

POSE_MATCH_S = 0.005  # the loader's tolerance between a frame's and a pose's timestamps


def is_scene(path: Path) -> bool:
    return (path / f"{path.name}_3dod_annotation.json").is_file()


def read_traj(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(timestamps (T,), camera-to-world (T, 4, 4)) of ``lowres_wide.traj``."""
    need(path, "the camera trajectory")
    times, poses = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            vals = [float(x) for x in parts]
        except ValueError:
            vals = []
        if len(vals) != 7:
            raise InputError(
                Problem(
                    file=str(path),
                    field="",
                    location=f"line {n}",
                    expected="7 numbers: timestamp, axis-angle (3), translation (3)",
                )
            )
        world_to_cam = np.eye(4)
        world_to_cam[:3, :3] = Rotation.from_rotvec(vals[1:4]).as_matrix()
        world_to_cam[:3, 3] = vals[4:7]
        times.append(vals[0])
        poses.append(np.linalg.inv(world_to_cam))
    if not times:
        raise InputError(Problem(file=str(path), field="", expected="at least one pose"))
    return np.asarray(times), np.stack(poses)


def read_pincam(path: Path) -> Camera:
    need(path, "the frame's intrinsics")
    try:
        w, h, fx, fy, cx, cy = (float(x) for x in path.read_text().split())
    except ValueError:
        raise InputError(Problem(file=str(path), field="", expected="w h fx fy cx cy")) from None
    return Camera(int(w), int(h), fx, fy, cx, cy)


def read_arkitscenes(scene: Path) -> Scan:
    scene = Path(scene)
    sid = scene.name
    anno_path = scene / f"{sid}_3dod_annotation.json"
    data = field(read_json(anno_path, "the 3DOD annotation"), "data", anno_path, "data: the boxes")
    vertices, faces, colors, _ = read_ply(scene / f"{sid}_3dod_mesh.ply")
    raw = [int(d.get("objectId", n)) if isinstance(d, dict) else n for n, d in enumerate(data)]
    ids = instance_ids(raw)
    boxes, labels = {}, {}
    for n, d in enumerate(data):
        where = f"data[{n}]."
        label = field(d, "label", anno_path, "label in every box", where)
        obb = field(
            field(d, "segments", anno_path, "segments.obbAligned", where),
            "obbAligned",
            anno_path,
            "segments.obbAligned",
            where + "segments.",
        )
        parts = [
            field(obb, k, anno_path, f"obbAligned.{k}", where + "segments.obbAligned.")
            for k in ("centroid", "axesLengths", "normalizedAxes")
        ]
        try:
            box = obb_box(*parts)
        except ValueError:
            raise InputError(
                Problem(
                    file=str(anno_path),
                    field=where + "segments.obbAligned",
                    expected="centroid (3), axesLengths (3), normalizedAxes (9) numbers",
                )
            ) from None
        boxes[ids[raw[n]]] = box
        labels[ids[raw[n]]] = str(label)
    # each vertex: the smallest box holding it (boxes overlap where a cup stands on a table)
    instance = np.zeros(len(vertices), dtype=np.int32)
    volume = np.full(len(vertices), np.inf)
    for iid, box in boxes.items():
        if category_of(labels[iid]) in STRUCTURE:
            continue
        inside = inside_box(vertices, box, margin=0.01)
        vol = float(np.prod(box.size))
        take = inside & (vol < volume)
        instance[take], volume[take] = iid, vol
    mesh = ScanMesh(vertices, faces, colors, instance, np.zeros(len(vertices), dtype=bool))
    objects = objects_from_vertices(vertices, instance, labels, boxes)
    return Scan("arkitscenes", sid, mesh, objects, tuple(_frames(scene, sid)), scene)


def _frames(scene: Path, sid: str) -> list[ScanFrame]:
    root = scene / f"{sid}_frames"
    root = root if root.is_dir() else scene
    times, poses = read_traj(root / "lowres_wide.traj")
    images = sorted((root / "lowres_wide").glob("*.png"), key=_stamp)
    if not images:
        raise InputError(
            Problem(file=str(root / "lowres_wide"), field="", expected="frames <id>_<t>.png")
        )
    out = []
    for img in images:
        t = _stamp(img)
        k = int(np.argmin(np.abs(times - t)))
        if abs(times[k] - t) > POSE_MATCH_S:
            continue  # a frame the trajectory does not cover
        cam = read_pincam(root / "lowres_wide_intrinsics" / f"{img.stem}.pincam")
        depth = root / "lowres_depth" / img.name
        out.append(
            ScanFrame(
                t,
                poses[k],
                img,
                depth if depth.is_file() else None,
                cam,
                cam if depth.is_file() else None,
            )
        )
    return from_first(
        out, root / "lowres_wide.traj", "poses at the frames' timestamps (within 5 ms)"
    )


def _stamp(path: Path) -> float:
    try:
        return float(path.stem.rpartition("_")[2])
    except ValueError:
        raise InputError(
            Problem(file=str(path), field="", expected="a frame named <id>_<timestamp>.png")
        ) from None
