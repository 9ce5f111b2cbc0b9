"""Writing generated items as benchmark files the adapters read, laid out like a release.

A generated benchmark goes through exactly the same path as a published one: each family is
written in the format of the benchmark it imitates (S3-Bench JSONL, OVO-S E.6 JSONL, VCBench
``vcbench_data.jsonl``) by the bench package's own writers, and read back by its own adapters.
Which file a format gets, and its writer, is what the benchmark's home declares
(``Benchmark.generated``, :data:`streamspatial.bench.registry.HOMES`): :data:`WRITERS`.
Layout under the output folder::

    s3.jsonl  ovos.jsonl  vcbench.jsonl     one file per format (only those with items)
    ucs.json                                UCS-Bench's JSON array (HH:MM:SS, open answers)
    items.jsonl                             every item in the unified schema, intents included
    manifest.json                           seed, split, episodes, item counts per task
    videos/<VIDEO_GROUP>/<episode>.mp4      + <episode>.mp4.meta.json.gz (ground truth)

``--videos <out>/videos`` resolves every item's video for all four formats: OVO-S and S3
items name ``<VIDEO_GROUP>/<episode>.mp4``, which VCBench reads as source dataset + file and
UCS-Bench as ``video_uid`` + ``.mp4``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.bench.home import Export
from streamspatial.bench.registry import HOMES
from streamspatial.core.schema import Item

VIDEO_GROUP = "streamspatial-sim"

# Format → the file and writer of its items, as each benchmark's home declares them
# (``Benchmark.generated``), in the registry's order.
WRITERS: dict[str, Export] = {
    name: b.generated for name, b in HOMES.items() if b.generated is not None
}
FILES = {fmt: w.file for fmt, w in WRITERS.items()}  # format → file name


def videos_dir(out: Path) -> Path:
    """The folder to pass as ``--videos`` for every file of a generated benchmark."""
    return Path(out) / "videos"


def episode_dir(out: Path) -> Path:
    """Where the rendered episodes (mp4 + metadata) of a generated benchmark go."""
    return videos_dir(out) / VIDEO_GROUP


def video_ref(episode: str) -> str:
    """How items name an episode's video (relative to :func:`videos_dir`)."""
    return f"{VIDEO_GROUP}/{episode}.mp4"


@dataclass
class Exported:
    """A benchmark folder :func:`export_items` has written: where it is, its files (format,
    ``items``, ``manifest`` → path) and the items in them.  ``sim generate`` and ``scans build``
    each return one, with what their own build adds (walks or scenes, pruning)."""

    out: Path
    files: dict[str, Path]
    items: list[Item]

    @property
    def videos(self) -> Path:
        """The folder to pass as ``--videos`` for every file (:func:`videos_dir`)."""
        return videos_dir(self.out)


def export_items(
    items: list[Item], out: Path, *, manifest: dict[str, Any] | None = None
) -> dict[str, Path]:
    """Write one benchmark file per format plus ``items.jsonl`` and ``manifest.json``.

    Items are written in (video, first query time) order, so a multi-turn chain's earlier turn
    always precedes the turn that uses its answer, as the S3 reader requires.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ordered = sorted(items, key=lambda it: (it.video, it.queries[0].time, it.id))
    written: dict[str, Path] = {}
    for fmt, name in FILES.items():
        chosen = [it for it in ordered if it.benchmark == fmt]
        path = out / name
        if chosen:
            WRITERS[fmt].write(chosen, path)
            written[fmt] = path
        elif path.exists():
            path.unlink()  # a stale file from an earlier run would be silently mixed in
    unknown = {it.benchmark for it in ordered} - set(FILES)
    if unknown:
        raise ValueError(f"items for formats without a writer: {sorted(unknown)}")
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for it in ordered:
            f.write(it.model_dump_json() + "\n")
    written["items"] = out / "items.jsonl"
    info = dict(manifest or {})
    info["files"] = {k: v.name for k, v in written.items()}
    info["videos"] = "videos"
    info["items"] = len(ordered)
    info["tasks"] = dict(
        sorted(Counter(f"{it.benchmark}:{it.task.task}" for it in ordered).items())
    )
    (out / "manifest.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    written["manifest"] = out / "manifest.json"
    return written


def read_items(out: Path) -> list[Item]:
    """The unified items of a generated benchmark (``items.jsonl``), intents included."""
    path = Path(out) / "items.jsonl"
    with path.open(encoding="utf-8") as f:
        return [Item.model_validate_json(line) for line in f if line.strip()]
