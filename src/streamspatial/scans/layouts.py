"""Writing one rendered walk in each dataset's published layout (the readers' exact inverse).

Each writer takes the walk's mesh (:mod:`.house_mesh`), its objects' boxes and its frames
(colour, metric depth, camera-to-world in OpenCV axes, intrinsics) and lays them out as the
dataset does, so :mod:`.scannet`, :mod:`.arkitscenes` and :mod:`.scannetpp` read them as they
read a download.  Frame files are numbered at the dataset's capture rate (ScanNet 30 Hz, the
ScanNet++ iPhone 60 Hz; ARKitScenes names frames by timestamp), so a reader's frame times are
the walk's.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.spatial.transform import Rotation

from streamspatial.scene.types import House

from .house_mesh import HouseMesh
from .ply import write_ply
from .scannet import CAPTURE_FPS, LABELS_TSV
from .scannetpp import IPHONE_FPS
from .types import Camera

TSV_COLUMNS = (
    "id",
    "raw_category",
    "category",
    "count",
    "nyu40id",
    "eigen13id",
    "nyuClass",
    "nyu40class",
    "eigen13class",
    "ModelNet40",
    "ModelNet10",
    "ShapeNetCore55",
    "synsetoffset",
    "wnsynsetid",
    "wnsynsetkey",
    "mpcat40",
    "mpcat40index",
)
ARKIT_T0 = 1000.0  # s: ARKit timestamps count from the device's boot, never from 0


@dataclass(frozen=True)
class Frame:
    time: float
    rgb: np.ndarray  # (H, W, 3) uint8
    depth: np.ndarray  # (H, W) float metres, inf where nothing
    camera_to_world: np.ndarray  # (4, 4), OpenCV axes


def _label(category: str) -> str:
    return category.replace("_", " ")


def _depth_png(depth: np.ndarray, path: Path) -> None:
    mm = np.where(np.isfinite(depth), np.round(depth * 1000.0), 0)
    Image.fromarray(np.clip(mm, 0, 65535).astype(np.uint16)).save(path)


def _obb(house: House, iid: int) -> dict:
    o = house.object(iid)
    c, s = math.cos(o.yaw), math.sin(o.yaw)
    return {
        "centroid": [float(v) for v in o.position],
        "axesLengths": [float(v) for v in o.size],
        "normalizedAxes": [c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0],
    }


def write_scannet(
    root: Path, name: str, mesh: HouseMesh, house: House, camera: Camera, frames: Iterator[Frame]
) -> Path:
    scene = root / name
    for sub in ("color", "depth", "pose", "intrinsic"):
        (scene / sub).mkdir(parents=True, exist_ok=True)
    write_ply(scene / f"{name}_vh_clean_2.ply", mesh.vertices, mesh.faces, mesh.colors)
    segs = f"{name}_vh_clean_2.0.010000.segs.json"
    (scene / segs).write_text(
        json.dumps(
            {
                "params": {
                    "kThresh": "0.0001",
                    "segMinVerts": "20",
                    "minPoints": "750",
                    "maxPoints": "30000",
                    "thinThresh": "0.05",
                    "flatThresh": "0.001",
                    "minLength": "0.02",
                    "maxLength": "1",
                },
                "sceneId": name,
                "segIndices": mesh.segment.tolist(),
            }
        )
    )
    groups = []
    for iid in sorted(set(mesh.instance.tolist()) - {0}):
        segments = sorted(set(mesh.segment[mesh.instance == iid].tolist()))
        groups.append(
            {
                "id": iid - 1,
                "objectId": iid - 1,
                "segments": segments,
                "label": _label(house.object(iid).category),
            }
        )
    floor = sorted(set(mesh.segment[mesh.floor].tolist()))
    wall = sorted(set(mesh.segment[(mesh.instance == 0) & ~mesh.floor].tolist()))
    nxt = max((g["objectId"] for g in groups), default=-1) + 1
    for label, segments in (("floor", floor), ("wall", wall)):
        if segments:
            groups.append({"id": nxt, "objectId": nxt, "segments": segments, "label": label})
            nxt += 1
    (scene / f"{name}.aggregation.json").write_text(
        json.dumps(
            {
                "sceneId": f"scannet.{name}",
                "appId": "streamspatial-export",
                "segGroups": groups,
                "segmentsFile": f"scannet.{segs}",
            }
        )
    )
    _write_tsv(root / LABELS_TSV, [g["label"] for g in groups])
    k = np.eye(4)
    k[0, 0], k[1, 1], k[0, 2], k[1, 2] = camera.fx, camera.fy, camera.cx, camera.cy
    for which in ("color", "depth"):
        np.savetxt(scene / "intrinsic" / f"intrinsic_{which}.txt", k, fmt="%f")
        np.savetxt(scene / "intrinsic" / f"extrinsic_{which}.txt", np.eye(4), fmt="%f")
    for f in frames:
        n = round(f.time * CAPTURE_FPS)
        Image.fromarray(f.rgb).save(scene / "color" / f"{n}.jpg", quality=95)
        _depth_png(f.depth, scene / "depth" / f"{n}.png")
        np.savetxt(scene / "pose" / f"{n}.txt", f.camera_to_world, fmt="%f")
    return scene


def _write_tsv(path: Path, labels: list[str]) -> None:
    have: dict[str, int] = {}
    if path.is_file():
        with path.open(encoding="utf-8", newline="") as f:
            have = {
                r["raw_category"]: int(r["count"] or 0) for r in csv.DictReader(f, delimiter="\t")
            }
    for lab in labels:
        have[lab] = have.get(lab, 0) + 1
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(TSV_COLUMNS)
        for n, (lab, count) in enumerate(sorted(have.items()), 1):
            w.writerow([n, lab, lab, count] + [""] * (len(TSV_COLUMNS) - 4))


def write_arkitscenes(
    root: Path, name: str, mesh: HouseMesh, house: House, camera: Camera, frames: Iterator[Frame]
) -> Path:
    scene = root / name
    fr = scene / f"{name}_frames"
    for sub in ("lowres_wide", "lowres_depth", "lowres_wide_intrinsics"):
        (fr / sub).mkdir(parents=True, exist_ok=True)
    write_ply(scene / f"{name}_3dod_mesh.ply", mesh.vertices, mesh.faces, mesh.colors)
    data = [
        {
            "uid": f"{name}-{iid}",
            "label": _label(house.object(iid).category),
            "objectId": iid,
            "modelId": "",
            "children": [],
            "hierarchy": 0,
            "isInGroup": False,
            "labelType": "object",
            "attributes": {},
            "segments": {"obbAligned": _obb(house, iid)},
        }
        for iid in sorted(set(mesh.instance.tolist()) - {0})
    ]
    (scene / f"{name}_3dod_annotation.json").write_text(
        json.dumps({"data": data, "stats": {}, "comment": "", "confirm": [], "skipped": False})
    )
    lines = []
    for f in frames:
        t = f"{ARKIT_T0 + f.time:.3f}"
        stem = f"{name}_{t}"
        Image.fromarray(f.rgb).save(fr / "lowres_wide" / f"{stem}.png")
        _depth_png(f.depth, fr / "lowres_depth" / f"{stem}.png")
        (fr / "lowres_wide_intrinsics" / f"{stem}.pincam").write_text(
            f"{camera.width} {camera.height} {camera.fx} {camera.fy} {camera.cx} {camera.cy}\n"
        )
        w2c = np.linalg.inv(f.camera_to_world)
        rv = Rotation.from_matrix(w2c[:3, :3]).as_rotvec()
        lines.append(" ".join([t, *(f"{x:.9f}" for x in (*rv, *w2c[:3, 3]))]))
    (fr / "lowres_wide.traj").write_text("\n".join(lines) + "\n")
    return scene


def write_scannetpp(
    root: Path, name: str, mesh: HouseMesh, house: House, camera: Camera, frames: Iterator[Frame]
) -> Path:
    scene = root / name
    scans, iphone = scene / "scans", scene / "iphone"
    for d in (scans, iphone / "rgb", iphone / "depth"):
        d.mkdir(parents=True, exist_ok=True)
    write_ply(scans / "mesh_aligned_0.05_semantic.ply", mesh.vertices, mesh.faces, mesh.colors)
    groups = []
    for iid in sorted(set(mesh.instance.tolist()) - {0}):
        groups.append(
            {
                "id": iid,
                "objectId": iid,
                "label": _label(house.object(iid).category),
                "segments": np.flatnonzero(mesh.instance == iid).tolist(),
                "obb": _obb(house, iid),
            }
        )
    nxt = max((g["objectId"] for g in groups), default=0) + 1
    floor = np.flatnonzero(mesh.floor).tolist()
    if floor:
        groups.append({"id": nxt, "objectId": nxt, "label": "floor", "segments": floor})
    (scans / "segments_anno.json").write_text(json.dumps({"sceneId": name, "segGroups": groups}))
    k = [[camera.fx, 0.0, camera.cx], [0.0, camera.fy, camera.cy], [0.0, 0.0, 1.0]]
    records = {}
    for f in frames:
        key = f"frame_{round(f.time * IPHONE_FPS):06d}"
        Image.fromarray(f.rgb).save(iphone / "rgb" / f"{key}.jpg", quality=95)
        _depth_png(f.depth, iphone / "depth" / f"{key}.png")
        records[key] = {"intrinsic": k, "aligned_pose": f.camera_to_world.tolist()}
    (iphone / "pose_intrinsic_imu.json").write_text(json.dumps(records))
    return scene


WRITERS = {"scannet": write_scannet, "arkitscenes": write_arkitscenes, "scannetpp": write_scannetpp}
