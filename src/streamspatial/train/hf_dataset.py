"""``export-sft --format hf``: a Hugging Face dataset folder, pictures inside its parquet files.

The layout SAT publishes its spatial training data in (``array/SAT-v2``: ``data/<split>-*``
parquet shards holding the image bytes, a ``README.md`` dataset card whose YAML declares the
``configs`` and the features): ``datasets.load_dataset(OUT)`` reads it offline, and
``push_to_hub`` or ``huggingface-cli upload`` publishes it as it is.

* ``data/train-0000k-of-0000n.parquet``: one row per example, in order, shards of at most
  :data:`SHARD_BYTES` of pictures (the Hub's own default shard size);
* columns: ``messages`` (``role``, ``content`` with one ``<image>`` per picture, in order: the
  LLaMA-Factory layout), ``images`` (the pictures as the ``Image`` feature stores them: JPEG
  ``bytes`` and the ``path`` they had in the export), then the causality fields every format
  carries (``id``, ``kind``, ``source_video``, ``t_q``, ``frame_times``, ``view_times``);
* ``README.md``: the card: features, split size, the generation's settings (the folder
  manifest's configuration and fingerprint, the encoder) and the export's (policy, frame
  size, kinds), and how to load it.

A picture shared by several examples is stored in each of their rows (a row is read on its
own); the folder's ``images/`` is not kept.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .prepared import ExportTarget, Prepared

SPLIT = "train"
SHARD_BYTES = 500 * 1024**2  # huggingface datasets' default max_shard_size, "500MB"
ROWS_PER_GROUP = 64  # parquet row groups: a reader holds this many rows' pictures at once
SCHEMA = pa.schema(
    [
        ("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("images", pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
        ("id", pa.string()),
        ("kind", pa.string()),
        ("source_video", pa.string()),
        ("t_q", pa.float64()),
        ("frame_times", pa.list_(pa.float64())),
        ("view_times", pa.list_(pa.float64())),
    ]
)
# The same columns as the card's YAML declares them (datasets' Features._to_yaml_list()).
FEATURES_YAML = """\
  features:
  - name: messages
    list:
    - name: role
      dtype: string
    - name: content
      dtype: string
  - name: images
    list: image
  - name: id
    dtype: string
  - name: kind
    dtype: string
  - name: source_video
    dtype: string
  - name: t_q
    dtype: float64
  - name: frame_times
    list: float64
  - name: view_times
    list: float64
"""
# Manifest entries that are results or bookkeeping, not settings of the generation.
NOT_SETTINGS = ("out", "stages", "files", "videos", "items", "tasks", "episodes", "house_seeds",
                "pruning", "shortfall", "forecast", "stretched", "encoder")  # fmt: skip


class HuggingFace:
    name = "hf"
    source = (
        "https://huggingface.co/docs/hub/datasets-data-files-configuration "
        "(data/<split>-* parquet shards, README.md YAML configs and features; "
        "the layout of SAT's array/SAT-v2)"
    )

    def write(self, examples: list[Prepared], to: ExportTarget) -> list[str]:
        folder = to.folder
        data = folder / "data"
        data.mkdir()
        shards = _shards(folder, examples)
        names, size = [], 0
        for k, shard in enumerate(shards):
            name = f"data/{SPLIT}-{k:05d}-of-{len(shards):05d}.parquet"
            size += _write_shard(folder, shard, folder / name)
            names.append(name)
        shutil.rmtree(folder / "images", ignore_errors=True)  # inside the parquet files now
        card = _card(to.dataset, examples, dict(to.about or {}), len(shards), size)
        (folder / "README.md").write_text(card, encoding="utf-8")
        return [*names, "README.md"]


def _shards(folder: Path, examples: list[Prepared]) -> list[list[Prepared]]:
    """Consecutive examples, at most :data:`SHARD_BYTES` of pictures a shard (one at least)."""
    sizes: dict[str, int] = {}
    shards: list[list[Prepared]] = [[]]
    filled = 0
    for ex in examples:
        size = sum(sizes.setdefault(p, (folder / p).stat().st_size) for p in ex.images)
        if shards[-1] and filled + size > SHARD_BYTES:
            shards.append([])
            filled = 0
        shards[-1].append(ex)
        filled += size
    return shards


def _write_shard(folder: Path, examples: list[Prepared], path: Path) -> int:
    """Write one shard; its size in Arrow's memory layout (the card's ``num_bytes``)."""
    size = 0
    with pq.ParquetWriter(path, SCHEMA) as writer:
        for start in range(0, len(examples), ROWS_PER_GROUP):
            rows = [_row(folder, ex) for ex in examples[start : start + ROWS_PER_GROUP]]
            table = pa.Table.from_pylist(rows, schema=SCHEMA)
            writer.write_table(table)
            size += table.nbytes
    return size


def _row(folder: Path, ex: Prepared) -> dict[str, Any]:
    extra = ex.extra()
    return {
        "messages": ex.messages(),
        "images": [{"bytes": (folder / p).read_bytes(), "path": p} for p in ex.images],
        **{k: extra[k] for k in SCHEMA.names if k in extra},
    }


def _card(
    dataset: str, examples: list[Prepared], about: dict[str, Any], shards: int, size: int
) -> str:
    manifest = about.get("manifest") or {}
    settings = {k: v for k, v in sorted(manifest.items()) if k not in NOT_SETTINGS}
    export = {k: about[k] for k in ("policy", "frame_size", "kinds") if k in about}
    counts = Counter(ex.kind for ex in examples)
    images = sum(len(ex.images) for ex in examples)
    recorded = {"generation": settings, "encoder": manifest.get("encoder"), "export": export}
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files:",
        f"  - split: {SPLIT}",
        f"    path: data/{SPLIT}-*",
        "dataset_info:",
        FEATURES_YAML.rstrip("\n"),
        "  splits:",
        f"  - name: {SPLIT}",
        f"    num_bytes: {size}",
        f"    num_examples: {len(examples)}",
        "task_categories:",
        "- visual-question-answering",
        "tags:",
        "- spatial-reasoning",
        "- streaming",
        "- egocentric-video",
        "- synthetic",
        "---",
        "",
        f"# {dataset}",
        "",
        f"{len(examples)} training examples ("
        + ", ".join(f"{counts[k]} {k}" for k in sorted(counts))
        + f"), {images} pictures in {shards} parquet shard{'s' * (shards != 1)}, made by "
        "streamspatial's simulator (`streamspatial sim generate --split train`) and exported "
        "with `streamspatial export-sft --format hf`.",
        "",
        "Each row is one conversation: `messages` (`role`, `content`; each `<image>` in a "
        "user turn is the next picture of `images`), the pictures themselves (JPEG bytes), "
        "and the fields that show it is causal: the video it was taken from (`source_video`), "
        "the query time `t_q`, the times of the video frames shown (`frame_times`, all at or "
        "before `t_q`) and of exploration views (`view_times`, after `t_q` by design, in "
        "`explore` examples only).",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'rows = load_dataset("path/to/{dataset}", split="{SPLIT}")',
        "row = rows[0]  # row['images'] are PIL images, one per <image> of row['messages']",
        "```",
        "",
        "## Generation settings",
        "",
        "The generated folder's `manifest.json` (its configuration: the same settings give the "
        "same bytes) and the export's:",
        "",
        "```json",
        json.dumps(recorded, indent=2, sort_keys=True, default=str),
        "```",
        "",
    ]
    return "\n".join(lines)
