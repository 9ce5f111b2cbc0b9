"""ScanNet v2 scans in the layout the dataset publishes (Dai et al., CVPR 2017).

Documentation: the ScanNet repository's README ("Data Organization") and its ``SensReader``
exporter.  Per scene ``<scene>/``:

* ``<scene>_vh_clean_2.ply`` — the cleaned, decimated mesh (vertex colours);
* ``<scene>_vh_clean_2.0.010000.segs.json`` — ``segIndices``: the over-segment of each vertex;
* ``<scene>.aggregation.json`` — ``segGroups``: ``objectId`` (from 0), ``label`` (the raw
  category), ``segments`` (over-segment ids);
* ``scannetv2-labels.combined.tsv`` (beside the scenes, or in the scene folder) — raw category
  (``raw_category``) → ScanNet's cleaned ``category``;
* the frames exported from ``<scene>.sens``: ``color/<i>.jpg``, ``depth/<i>.png`` (uint16,
  millimetres), ``pose/<i>.txt`` (camera-to-world 4×4; invalid poses hold ``-inf``) and
  ``intrinsic/intrinsic_color.txt``, ``intrinsic/intrinsic_depth.txt`` (4×4).  Frame ``i`` is
  the ``i``-th frame of the 30 Hz capture.

Reading ``.sens`` itself is not done here: export it with ScanNet's ``SensReader`` first.
ScanNet ships no object boxes; each object's box is fitted to its vertices (:mod:`.boxes`).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from streamspatial.core.errors import InputError, Problem

from ._read import (
    VertexLabels,
    frame_number,
    from_first,
    group_ids,
    need,
    objects_from_vertices,
    read_matrix,
    seg_groups,
    seg_indices,
)
from .ply import read_ply
from .types import Camera, Scan, ScanFrame, category_of

CAPTURE_FPS = 30.0  # ScanNet's RGB-D capture rate (Dai et al. 2017, §3)
LABELS_TSV = "scannetv2-labels.combined.tsv"


def is_scene(path: Path) -> bool:
    return (path / f"{path.name}_vh_clean_2.ply").is_file()


def read_labels(path: Path) -> dict[str, str]:
    """``raw_category`` → ``category`` from ScanNet's label table."""
    need(path, "ScanNet's label table")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    if not rows or "raw_category" not in rows[0] or "category" not in rows[0]:
        raise InputError(
            Problem(
                file=str(path),
                field="raw_category",
                expected="a tab-separated table with raw_category and category columns",
            )
        )
    return {r["raw_category"]: r["category"] for r in rows if r.get("raw_category")}


def find_labels(scene: Path) -> Path:
    for folder in (scene, scene.parent, scene.parent.parent):
        if (folder / LABELS_TSV).is_file():
            return folder / LABELS_TSV
    return scene.parent / LABELS_TSV


def camera_of(path: Path, image: Path) -> Camera:
    from PIL import Image

    k = read_matrix(path, (4, 4), "a ScanNet intrinsic matrix")
    need(image, "a frame image")
    with Image.open(image) as im:
        w, h = im.size
    return Camera(w, h, float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2]))


def read_scannet(scene: Path) -> Scan:
    scene = Path(scene)
    sid = scene.name
    ply = scene / f"{sid}_vh_clean_2.ply"
    segs_path = scene / f"{sid}_vh_clean_2.0.010000.segs.json"
    agg_path = scene / f"{sid}.aggregation.json"
    vertices, faces, colors, _ = read_ply(ply)
    seg = seg_indices(segs_path, len(vertices), "ScanNet's over-segmentation")
    groups = seg_groups(agg_path, "ScanNet's aggregation")
    labels_table = read_labels(find_labels(scene))
    ids = group_ids(groups, agg_path, first=0)  # objectId counts from 0
    marks = VertexLabels(len(vertices))
    for g in groups:
        mask = np.isin(seg, np.asarray(g["segments"]))
        cat = category_of(labels_table.get(g["label"], g["label"]))
        marks.add(ids[int(g["objectId"])], mask, cat, str(g["label"]))
    mesh = marks.mesh(vertices, faces, colors)
    objects = objects_from_vertices(vertices, marks.instance, marks.labels, categories=labels_table)
    return Scan("scannet", sid, mesh, objects, tuple(_frames(scene)), scene)


def _frames(scene: Path) -> list[ScanFrame]:
    color_dir, depth_dir, pose_dir = scene / "color", scene / "depth", scene / "pose"
    images = sorted(color_dir.glob("*.jpg"), key=frame_number)
    if not images:
        raise InputError(
            Problem(
                file=str(color_dir),
                field="",
                expected="the frames exported from the .sens "
                "file (color/<i>.jpg; run ScanNet's SensReader)",
            )
        )
    color_cam = camera_of(scene / "intrinsic" / "intrinsic_color.txt", images[0])
    depth_cam = None
    out = []
    for img in images:
        n = frame_number(img)
        pose = read_matrix(pose_dir / f"{img.stem}.txt", (4, 4), "a ScanNet camera pose")
        if not np.isfinite(pose).all():
            continue  # ScanNet marks frames its reconstruction lost with -inf poses
        depth = depth_dir / f"{img.stem}.png"
        if depth.is_file() and depth_cam is None:
            depth_cam = camera_of(scene / "intrinsic" / "intrinsic_depth.txt", depth)
        out.append(
            ScanFrame(
                time=n / CAPTURE_FPS,
                camera_to_world=pose,
                color=img,
                depth=depth if depth.is_file() else None,
                color_camera=color_cam,
                depth_camera=depth_cam,
            )
        )
    return from_first(out, pose_dir, "at least one valid camera pose")
