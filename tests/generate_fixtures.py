"""Small generations for the tests of how a generation runs (stages, workers, Ray)."""

from __future__ import annotations

import json
from pathlib import Path

from streamspatial.sim.pipeline.config import GenerateConfig


def tiny(out: Path, **kw) -> GenerateConfig:
    """Two short walks of small houses at a tiny size (a few seconds to render)."""
    base = dict(
        out=out, houses=2, minutes=0.1, seed=3, size=(96, 72), fps=5.0, rooms=3, per_family=1,
        prune=False,
    )  # fmt: skip
    base.update(kw)
    return GenerateConfig(**base)


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file's bytes; the manifest without the stage times (they differ run to run)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if path.name == "manifest.json":
                info = json.loads(data)
                info.pop("stages")
                info.pop("out")
                data = json.dumps(info, sort_keys=True).encode()
            out[path.relative_to(folder).as_posix()] = data
    return out
