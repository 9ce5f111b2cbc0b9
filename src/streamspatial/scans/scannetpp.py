"""ScanNet++ scans in the layout the dataset publishes (Yeshwanth et al., ICCV 2023).

Documentation: the ScanNet++ documentation ("Data" page) and its toolkit
(``common/utils/anno.py``, ``iphone/arkit_pcl.py``).  Per scene ``<scene_id>/``:

* ``scans/mesh_aligned_0.05_semantic.ply`` (or ``mesh_aligned_0.05.ply``) — the aligned mesh;
* ``scans/segments_anno.json`` — ``segGroups[]``: ``objectId``, ``label``, ``segments`` and
  ``obb.{centroid, axesLengths, normalizedAxes}``; a segment id is a vertex index, unless
  ``scans/segments.json`` (``segIndices``) maps vertices to segments;
* the iPhone stream: ``iphone/rgb/frame_<n>.jpg``, ``iphone/depth/frame_<n>.png`` (uint16,
  millimetres, lower resolution) and ``iphone/pose_intrinsic_imu.json``: per frame
  ``aligned_pose`` (camera-to-world 4×4 in the mesh's frame, OpenCV axes, as the toolkit's
  back-projection uses it) and ``intrinsic`` (3×3, at the RGB resolution).  The iPhone records
  at 60 Hz; frame ``n`` is taken at ``n / 60`` s unless the record holds a ``timestamp``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from streamspatial.core.errors import InputError, Problem

from ._read import (
    VertexLabels,
    field,
    frame_number,
    from_first,
    group_ids,
    need,
    objects_from_vertices,
    read_json,
    seg_groups,
    seg_indices,
)
from .boxes import obb_box
from .ply import read_ply
from .types import Camera, Scan, ScanFrame, category_of

IPHONE_FPS = 60.0
MESHES = ("mesh_aligned_0.05_semantic.ply", "mesh_aligned_0.05.ply")


def is_scene(path: Path) -> bool:
    return (path / "scans" / "segments_anno.json").is_file()


def read_scannetpp(scene: Path) -> Scan:
    scene = Path(scene)
    scans = scene / "scans"
    mesh_path = next((scans / m for m in MESHES if (scans / m).is_file()), scans / MESHES[0])
    vertices, faces, colors, _ = read_ply(mesh_path)
    anno_path = scans / "segments_anno.json"
    groups = seg_groups(anno_path, "the instance annotation")
    seg_path = scans / "segments.json"
    seg = None
    if seg_path.is_file():
        seg = seg_indices(seg_path, len(vertices), "the segments")
    ids = group_ids(groups, anno_path)
    marks = VertexLabels(len(vertices))
    boxes = {}
    for n, g in enumerate(groups):
        iid = ids[int(g["objectId"])]
        segs = np.asarray(g["segments"], dtype=np.int64)
        if seg is not None:
            mask = np.isin(seg, segs)
        else:
            if segs.size and (segs.min() < 0 or segs.max() >= len(vertices)):
                raise InputError(
                    Problem(
                        file=str(anno_path),
                        field=f"segGroups[{n}].segments",
                        expected=f"vertex indices below {len(vertices)}",
                    )
                )
            mask = np.zeros(len(vertices), dtype=bool)
            mask[segs] = True
        if not marks.add(iid, mask, category_of(str(g["label"])), str(g["label"])):
            continue  # the room itself: no box
        obb = g.get("obb")
        if isinstance(obb, dict):
            try:
                boxes[iid] = obb_box(obb["centroid"], obb["axesLengths"], obb["normalizedAxes"])
            except (KeyError, ValueError):
                raise InputError(
                    Problem(
                        file=str(anno_path),
                        field=f"segGroups[{n}].obb",
                        expected="centroid (3), axesLengths (3), normalizedAxes (9)",
                    )
                ) from None
    mesh = marks.mesh(vertices, faces, colors)
    objects = objects_from_vertices(vertices, marks.instance, marks.labels, boxes)
    return Scan("scannetpp", scene.name, mesh, objects, tuple(_frames(scene)), scene)


def _frames(scene: Path) -> list[ScanFrame]:
    from PIL import Image

    iphone = scene / "iphone"
    pose_path = iphone / "pose_intrinsic_imu.json"
    records = read_json(pose_path, "the iPhone poses and intrinsics")
    if not isinstance(records, dict) or not records:
        raise InputError(Problem(file=str(pose_path), field="", expected="a record per frame"))
    out = []
    color_size = depth_size = None
    for name in sorted(records, key=lambda k: frame_number(Path(k))):
        rec = records[name]
        pose = np.asarray(
            field(rec, "aligned_pose", pose_path, "a 4x4 aligned_pose", f"{name}."), float
        )
        k = np.asarray(field(rec, "intrinsic", pose_path, "a 3x3 intrinsic", f"{name}."), float)
        if pose.shape != (4, 4) or k.shape != (3, 3):
            raise InputError(
                Problem(
                    file=str(pose_path),
                    field=f"{name}.aligned_pose",
                    expected="aligned_pose 4x4 and intrinsic 3x3",
                )
            )
        img = iphone / "rgb" / f"{name}.jpg"
        if not img.is_file():
            continue  # frames are often extracted every n-th: poses exist for all of them
        if color_size is None:
            with Image.open(need(img, "an iPhone frame")) as im:
                color_size = im.size
        cam = Camera(*color_size, k[0, 0], k[1, 1], k[0, 2], k[1, 2])
        depth = iphone / "depth" / f"{name}.png"
        dcam = None
        if depth.is_file():
            if depth_size is None:
                with Image.open(depth) as im:
                    depth_size = im.size
            dcam = cam.scaled(*depth_size)
        t = float(rec["timestamp"]) if "timestamp" in rec else frame_number(Path(name)) / IPHONE_FPS
        out.append(ScanFrame(t, pose, img, depth if dcam else None, cam, dcam))
    return from_first(out, iphone / "rgb", "frames named as the poses' keys (frame_<n>.jpg)")
