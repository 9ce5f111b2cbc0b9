"""The dataset readers by name: which folders are scenes, and how each is read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamspatial.core.errors import InputError, Problem

from . import arkitscenes, scannet, scannetpp
from .types import Scan

READERS: dict[str, tuple[Callable[[Path], bool], Callable[[Path], Scan]]] = {
    "scannet": (scannet.is_scene, scannet.read_scannet),
    "arkitscenes": (arkitscenes.is_scene, arkitscenes.read_arkitscenes),
    "scannetpp": (scannetpp.is_scene, scannetpp.read_scannetpp),
}


def scene_dirs(dataset: str, root: Path) -> list[Path]:
    """``root`` itself when it is a scene of ``dataset``, else its scene sub-folders."""
    is_scene, _ = READERS[dataset]
    root = Path(root)
    if is_scene(root):
        return [root]
    found = sorted(p for p in root.iterdir() if p.is_dir() and is_scene(p)) if root.is_dir() else []
    if not found:
        raise InputError(
            Problem(
                file=str(root), field="", expected=f"a {dataset} scene folder, or a folder of them"
            )
        )
    return found


def read_scan(dataset: str, scene: Path) -> Scan:
    return READERS[dataset][1](Path(scene))
