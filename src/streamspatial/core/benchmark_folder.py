"""A folder holds one benchmark: when a generation may write into it, continue it or replace it.

A generated folder's ``manifest.json`` carries its configuration (every option that changes
what is made) and ``generation``, a fingerprint of it. A generation claims its folder before
anything is planned or rendered:

* a new or empty folder is taken;
* a folder whose manifest has the same configuration is the same benchmark (``--resume``
  continues it; without it, the same files are made again);
* anything else (another configuration, or files but no manifest) is refused with one line,
  and nothing is touched, unless ``--force``: then the folder is set aside, the new benchmark
  made in its place, and the old one deleted only once the new one is complete (an
  interrupted or failed generation puts it back). ``--force`` replaces only a folder of
  generated files, never one holding anything else.

The same fingerprint stamped on records made from the folder (``train.jsonl``) lets a later
step (``export-sft``) refuse records of another generation left beside it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from streamspatial.core.errors import InputError

MANIFEST = "manifest.json"
GENERATION = "generation"  # the manifest's key for the configuration's fingerprint


def canonical(configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as JSON reads it back (tuples as lists, paths as text)."""
    return json.loads(json.dumps(dict(configuration), default=str))


def fingerprint(configuration: Mapping[str, Any]) -> str:
    """16 hex digits of SHA-256 over the configuration's canonical JSON."""
    text = json.dumps(canonical(configuration), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest, None when it has none; an unreadable one is an empty dict."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def differences(manifest: Mapping[str, Any], configuration: Mapping[str, Any]) -> list[str]:
    """``key: there → asked`` for every option the manifest holds otherwise."""
    asked = canonical(configuration)
    missing = object()
    return [
        f"{key} {_show(manifest.get(key, missing))} there, {_show(value)} asked"
        for key, value in asked.items()
        if manifest.get(key, missing) != value
    ]


def _show(value: Any) -> str:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]}x{value[1]}"  # a frame size
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value)


def _foreign(folder: Path, written: Iterable[str]) -> list[str]:
    patterns = tuple(written)
    return sorted(
        p.name for p in folder.iterdir() if not any(fnmatch.fnmatch(p.name, w) for w in patterns)
    )


@contextlib.contextmanager
def claimed(
    folder: Path,
    configuration: Mapping[str, Any],
    *,
    force: bool = False,
    written: Iterable[str] = (),
    flag: str = "--out",
) -> Iterator[Path]:
    """Claim ``folder`` for a generation of ``configuration`` (see the module); yields it.

    ``written`` are the names (``fnmatch`` patterns) a generation and the steps after it write
    at the folder's top level: only such a folder may be replaced with ``force``.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{flag} {folder}: a file, not a folder")
    manifest = read_manifest(folder) if folder.is_dir() else None
    busy = folder.is_dir() and any(folder.iterdir())
    if not busy or (manifest and not differences(manifest, configuration)):
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    if manifest is None:
        why = "is not empty and holds no benchmark (no manifest.json)"
    elif not manifest:
        why = "holds a manifest.json that cannot be read"
    else:
        shown = differences(manifest, configuration)
        why = "holds another benchmark (" + "; ".join(shown[:4])
        why += f"; {len(shown) - 4} more)" if len(shown) > 4 else ")"
    if not force:
        raise InputError(
            f"{flag} {folder} {why}: choose another {flag}, or pass --force to replace it "
            "(--resume continues only a benchmark of the same options)"
        )
    foreign = _foreign(folder, written)
    if foreign:
        raise InputError(
            f"{flag} {folder} {why}, and --force replaces only generated files: it also holds "
            f"{', '.join(foreign[:3])}{' …' if len(foreign) > 3 else ''}; choose another {flag}"
        )
    old = folder.with_name(f".{folder.name}.replaced-{os.getpid()}")
    folder.rename(old)
    try:
        folder.mkdir()
        yield folder
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        old.rename(folder)
        raise
    shutil.rmtree(old, ignore_errors=True)
