"""What the three readers share: JSON and matrix files read with one-line errors, instance
labels per vertex, and the boxes and objects built from them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from streamspatial.core.errors import InputError, Problem

from .boxes import fit_box
from .types import FLOOR, STRUCTURE, Box, ScanFrame, ScanMesh, ScanObject, category_of


def need(path: Path, what: str) -> Path:
    if not path.is_file():
        raise InputError(Problem(file=str(path), field="", expected=f"{what} (file missing)"))
    return path


def read_json(path: Path, what: str) -> Any:
    need(path, what)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(
            Problem(file=str(path), field="", expected=f"{what}: JSON ({e})")
        ) from None


def field(d: Any, key: str, path: Path, expected: str, where: str = "") -> Any:
    """``d[key]``, or one line naming the file and the field."""
    if not isinstance(d, dict) or key not in d:
        raise InputError(Problem(file=str(path), field=where + key, expected=expected))
    return d[key]


def read_matrix(path: Path, shape: tuple[int, int], what: str) -> np.ndarray:
    need(path, what)
    try:
        m = np.loadtxt(path, dtype=np.float64)
    except ValueError as e:
        raise InputError(
            Problem(file=str(path), field="", expected=f"{what}: numbers ({e})")
        ) from None
    if m.shape != shape:
        raise InputError(
            Problem(
                file=str(path),
                field="",
                expected=f"{what}: a {shape[0]}x{shape[1]} matrix, got {m.shape}",
            )
        )
    return m


def instance_ids(raw: list[int], first: int | None = None) -> dict[int, int]:
    """The dataset's object ids → positive instance ids: shifted so that ``first`` (the
    dataset's first id: 0 for ScanNet's ``objectId``; None: the smallest seen, when below 1)
    becomes 1."""
    low = first if first is not None else min(raw, default=1)
    shift = 1 - low if low < 1 else 0
    return {r: r + shift for r in raw}


def objects_from_vertices(
    vertices: np.ndarray,
    instance: np.ndarray,
    labels: dict[int, str],
    boxes: dict[int, Box] | None = None,
    categories: dict[str, str] | None = None,
) -> tuple[ScanObject, ...]:
    """An object per labelled instance that is not structure, with its box (given, or fitted
    to the instance's vertices)."""
    out = []
    for iid, label in sorted(labels.items()):
        cat = category_of((categories or {}).get(label, label))
        if not cat or cat in STRUCTURE:
            continue
        box = (boxes or {}).get(iid)
        if box is None:
            pts = vertices[instance == iid]
            if len(pts) < 4:
                continue  # an annotation with no surface: nothing to see or ask about
            box = fit_box(pts)
        out.append(ScanObject(iid, cat, label, box))
    return tuple(out)


def frame_number(path: Path) -> int:
    digits = "".join(c for c in path.stem if c.isdigit())
    return int(digits) if digits else -1


def seg_indices(path: Path, vertices: int, what: str) -> np.ndarray:
    """``segIndices`` of a segments file: one segment id per vertex of the mesh."""
    seg = np.asarray(
        field(read_json(path, what), "segIndices", path, "segIndices: one segment id per vertex")
    )
    if seg.shape != (vertices,):
        raise InputError(
            Problem(
                file=str(path),
                field="segIndices",
                expected=f"{vertices} entries (one per vertex of the mesh), got {seg.size}",
            )
        )
    return seg


def seg_groups(path: Path, what: str) -> list:
    """``segGroups`` of an annotation file (ScanNet's aggregation, ScanNet++'s
    ``segments_anno.json``, one layout): the annotated objects."""
    return field(read_json(path, what), "segGroups", path, "segGroups: the annotated objects")


class VertexLabels:
    """Per-vertex labels, filled group by group as ScanNet and ScanNet++ annotate them: the
    floor marked, the room's own surfaces (floor, walls, ceiling) left without an instance,
    since they hide objects and no question is about them, and every other group an object."""

    def __init__(self, vertices: int):
        self.instance = np.zeros(vertices, dtype=np.int32)
        self.floor = np.zeros(vertices, dtype=bool)
        self.labels: dict[int, str] = {}

    def add(self, iid: int, mask: np.ndarray, category: str, label: str) -> bool:
        """Label ``mask``'s vertices; False where the group is the room itself, no object."""
        if category in FLOOR:
            self.floor |= mask
        if category in FLOOR or category in STRUCTURE:
            return False
        self.instance[mask] = iid
        self.labels[iid] = label
        return True

    def mesh(self, vertices: np.ndarray, faces: np.ndarray, colors: np.ndarray) -> ScanMesh:
        return ScanMesh(vertices, faces, colors, self.instance, self.floor)


def group_ids(groups: list, path: Path, first: int | None = None) -> dict[int, int]:
    """Every ``segGroup`` checked for ``objectId``, ``label`` and ``segments``; their ids."""
    raw = []
    for n, g in enumerate(groups):
        for key in ("objectId", "label", "segments"):
            field(g, key, path, f"{key} in every segGroup", f"segGroups[{n}].")
        raw.append(int(g["objectId"]))
    return instance_ids(raw, first)


def from_first(frames: list[ScanFrame], file: Path, expected: str) -> list[ScanFrame]:
    """The frames with times counted from the first one.  A scan none of whose frames could be
    placed is a problem of ``file``, the one that should have placed them (``expected``: what
    it lacked), the same one-line error for every dataset."""
    if not frames:
        raise InputError(Problem(file=str(file), field="", expected=expected))
    t0 = frames[0].time
    return [replace(f, time=f.time - t0) for f in frames]
