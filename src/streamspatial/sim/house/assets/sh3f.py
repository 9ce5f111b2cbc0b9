"""Reading Sweet Home 3D furniture libraries (``.sh3f``): the catalogue and the model files.

A ``.sh3f`` file is a zip holding ``PluginFurnitureCatalog.properties`` (a Java properties
file: ``key#N=value`` for the N-th piece of furniture) and, per model, an OBJ file with its MTL
and images.  Debian's ``sweethome3d-furniture`` package installs five of them (Scopia, Blend
Swap CC-0 and CC-BY, Reallusion, Kator Legaz) under ``/usr/share/sweethome3d/furniture``;
``STREAMSPATIAL_FURNITURE_DIR`` points elsewhere (say, libraries downloaded by hand on a system
without that package).  Nothing here writes anything: conversion lives in
:mod:`streamspatial.sim.house.assets.convert`.
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from streamspatial.core.errors import StreamspatialError

DEFAULT_DIR = Path("/usr/share/sweethome3d/furniture")
ENV_VAR = "STREAMSPATIAL_FURNITURE_DIR"
INSTALL_HINT = "apt-get install -y sweethome3d-furniture"


class FurnitureMissing(StreamspatialError):
    """The furniture libraries are not installed where we look for them."""


@dataclass(frozen=True)
class CatalogEntry:
    """One piece of furniture as its library's catalogue describes it (sizes in metres)."""

    library: str  # file name of the .sh3f, e.g. "Scopia.sh3f"
    id: str  # catalogue id, unique across libraries: "Scopia#bed1"
    name: str
    category: str  # the catalogue's room category: "Bedroom", "Living room", ...
    model: str  # path of the OBJ inside the zip, without the leading slash
    width: float  # along the model's x (m)
    depth: float  # along the model's z, the model's front faces +z (m)
    height: float  # along the model's y, up (m)
    creator: str
    licence: str  # the library's licence line
    model_rotation: tuple[float, ...] | None = None  # 3×3 row-major, applied before scaling
    door_or_window: bool = False
    elevation: float = 0.0  # height of the bottom above the floor (m)


def furniture_dir() -> Path:
    return Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def library_paths(required: bool = True) -> list[Path]:
    """The ``.sh3f`` files present, sorted; raises :class:`FurnitureMissing` when none."""
    d = furniture_dir()
    paths = sorted(d.glob("*.sh3f")) if d.is_dir() else []
    if not paths and required:
        raise FurnitureMissing(
            f"no furniture libraries (*.sh3f) in {d}: install them with "
            f"`{INSTALL_HINT}` (or set {ENV_VAR} to a folder of .sh3f files; "
            "--furniture boxes renders the old box world instead)"
        )
    return paths


def parse_properties(text: str) -> dict[str, str]:
    """A Java ``.properties`` file: comments, ``\\`` continuations and ``\\uXXXX`` escapes."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#!":
            continue
        while line.endswith("\\") and not line.endswith("\\\\") and i < len(lines):
            line = line[:-1] + lines[i].lstrip()
            i += 1
        m = re.match(r"((?:[^=:\s\\]|\\.)+)\s*[=:\s]\s*(.*)$", line)
        if not m:
            continue
        out[_unescape(m.group(1))] = _unescape(m.group(2))
    return out


def _unescape(s: str) -> str:
    def rep(m: re.Match[str]) -> str:
        c = m.group(1)
        if c.startswith("u"):
            return chr(int(c[1:], 16))
        return {"n": "\n", "t": "\t", "r": "\r", "f": "\f"}.get(c, c)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", rep, s)


@lru_cache(maxsize=16)
def read_catalog(path: Path) -> tuple[CatalogEntry, ...]:
    """Every entry of one library's catalogue, in catalogue order."""
    with zipfile.ZipFile(path) as z:
        text = z.read("PluginFurnitureCatalog.properties").decode("latin-1")
    props = parse_properties(text)
    licence = props.get("license", "")
    out = []
    n = 1
    while f"id#{n}" in props:

        def g(key: str, default: str = "", n: int = n) -> str:
            return props.get(f"{key}#{n}", default)

        rot = g("modelRotation")
        out.append(
            CatalogEntry(
                library=path.name,
                id=g("id"),
                name=g("name"),
                category=g("category"),
                model=g("model").lstrip("/"),
                width=float(g("width", "0")) / 100,
                depth=float(g("depth", "0")) / 100,
                height=float(g("height", "0")) / 100,
                creator=g("creator"),
                licence=licence,
                model_rotation=tuple(float(v) for v in rot.split()) if rot else None,
                door_or_window=g("doorOrWindow") == "true",
                elevation=float(g("elevation", "0")) / 100,
            )
        )
        n += 1
    return tuple(out)


def all_entries() -> dict[str, CatalogEntry]:
    """Catalogue id → entry over every installed library."""
    return {e.id: e for p in library_paths() for e in read_catalog(p)}
