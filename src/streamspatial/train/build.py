"""Writing a generated folder's training records: ``train.jsonl`` beside ``items.jsonl``.

``streamspatial sim generate --split train`` renders walks and asks their questions like any
benchmark; this step then turns the folder into S3-Train-style examples.  It is a fixed
pipeline of sources, each making one kind of example from the folder's items and walks
(:data:`SOURCES`): ``qa`` from the items, ``fold`` from each walk's ground truth; exploration
examples plug in as one more source.  The records are written atomically, in source order, and
``export-sft`` turns them into what fine-tuning frameworks read.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item
from streamspatial.sim.qa.export import episode_dir, read_items, video_ref
from streamspatial.sim.types import EpisodeMeta, load_episode_meta, meta_path_for

from .folds import fold_examples
from .qa import qa_examples
from .records import KINDS, TRAIN_FILE, TrainingExample, write_examples


@dataclass(frozen=True)
class Walk:
    """One rendered episode of the folder: its name, how items name its video, its metadata."""

    name: str
    video: str
    meta_path: Path

    def meta(self) -> EpisodeMeta:
        return load_episode_meta(self.meta_path)


@dataclass(frozen=True)
class Source:
    """One step of the pipeline: a kind of example and how to make it."""

    kind: str
    make: Callable[[list[Item], list[Walk]], Iterable[TrainingExample]]


def _qa(items: list[Item], walks: list[Walk]) -> Iterator[TrainingExample]:
    return qa_examples(items)


def _folds(items: list[Item], walks: list[Walk]) -> Iterator[TrainingExample]:
    for walk in walks:
        yield from fold_examples(walk.meta(), walk.video)


# The pipeline, in order.  ``explore`` examples (planned actions, rendered views) join here.
SOURCES: tuple[Source, ...] = (Source("qa", _qa), Source("fold", _folds))


@dataclass
class TrainingSummary:
    path: Path
    counts: dict[str, int] = field(default_factory=dict)  # examples per kind
    left_out: dict[str, int] = field(default_factory=dict)  # items no source took, by reason

    def line(self) -> str:
        made = ", ".join(f"{self.counts.get(k, 0)} {k}" for k in KINDS)
        skipped = "".join(f"; {n} {why}" for why, n in sorted(self.left_out.items()) if n)
        return f"training records: {made}{skipped} → {self.path}"


def walks_of(out: Path) -> list[Walk]:
    """The episodes a generated folder's manifest lists, in its order."""
    manifest = Path(out) / "manifest.json"
    try:
        names = json.loads(manifest.read_text(encoding="utf-8"))["episodes"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(
            Problem(str(manifest), "episodes", "a generated folder's manifest listing its walks")
        ) from None
    walks = []
    for name in names:
        walks.append(Walk(name, video_ref(name), meta_path_for(episode_dir(out) / f"{name}.mp4")))
    return walks


def write_training_set(out: Path, *, sources: tuple[Source, ...] = SOURCES) -> TrainingSummary:
    """Make every source's examples for the generated folder ``out``; write ``train.jsonl``."""
    out = Path(out)
    items = read_items(out)
    walks = walks_of(out)
    summary = TrainingSummary(out / TRAIN_FILE)
    counts: Counter[str] = Counter()

    def stream() -> Iterator[TrainingExample]:
        for source in sources:
            for ex in source.make(items, walks):
                counts[ex.kind] += 1
                yield ex

    write_examples(stream(), summary.path)
    summary.counts = dict(counts)
    summary.left_out = {
        "explorable items left to explore examples": sum(it.explorable for it in items)
    }
    return summary
