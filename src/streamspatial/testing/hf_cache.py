"""Put a model folder into a Hugging Face cache exactly as the Hub client lays one out.

Hub ids (``hf:ORG/NAME``) must be tested through the real resolution path, offline: the files
of a model (the tiny VLM) are written where ``huggingface_hub`` looks for a downloaded
repository, so ``HF_HOME=... HF_HUB_OFFLINE=1`` finds them as it finds a real download::

    <hub cache>/models--ORG--NAME/
        blobs/<etag>                       file contents, named as the Hub names them
        refs/main                          the commit the branch points at
        snapshots/<commit>/<file>          relative symlinks into blobs/

Blob names follow the Hub: the SHA-256 of a file stored with Git LFS (weights), the git blob
SHA-1 of any other file.  The commit id is a SHA-1 over the files, so it is stable.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

LFS_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".onnx", ".msgpack", ".h5")


def _etag(path: Path) -> str:
    data = path.read_bytes()
    if path.name.endswith(LFS_SUFFIXES):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def write_hub_cache(
    folder: str | Path, hub_cache: str | Path, repo_id: str, ref: str = "main"
) -> str:
    """Copy the files of ``folder`` into ``hub_cache`` (``$HF_HOME/hub``) as the Hub's
    ``repo_id`` at branch or tag ``ref``; returns the commit id (also a valid revision)."""
    folder, hub_cache = Path(folder), Path(hub_cache)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    etags = {p: _etag(p) for p in files}
    listing = "".join(f"{p.relative_to(folder).as_posix()} {etags[p]}\n" for p in files)
    commit = hashlib.sha1(listing.encode()).hexdigest()
    repo = hub_cache / ("models--" + repo_id.replace("/", "--"))
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    snapshot = repo / "snapshots" / commit
    for path in files:
        blob = repo / "blobs" / etags[path]
        if not blob.exists():
            shutil.copyfile(path, blob)
        link = snapshot / path.relative_to(folder)
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs" / ref).write_text(commit)  # no newline, as the Hub client writes it
    return commit


__all__ = ["write_hub_cache"]
