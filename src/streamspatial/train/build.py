"""Writing a generated folder's training records: ``train.jsonl`` beside ``items.jsonl``.

``streamspatial sim generate --split train`` renders walks and asks their questions like any
benchmark; this step then turns the folder into S3-Train-style examples.  It is a fixed
pipeline of sources, each making one kind of example from the folder's items and walks
(:data:`SOURCES`): ``qa`` from the items, ``explore`` from the explorable ones (planned actions,
executed and rendered in the exploration environment), ``fold`` from each walk's ground truth.
A source may write files its records name (the exploration views) into a folder it owns;
everything is written beside the destination first and moved into place when complete, the
records last, in source order.  ``export-sft`` turns them into what fine-tuning frameworks read.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from streamspatial.core.benchmark_folder import GENERATION, read_manifest
from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item
from streamspatial.scene.types import EpisodeMeta, load_episode_meta, meta_path_for
from streamspatial.sim.qa.export import episode_dir, read_items, video_ref

from .folds import fold_examples
from .qa import qa_examples
from .records import KINDS, TRAIN_FILE, VIEWS_DIR, TrainingExample, write_examples


@dataclass(frozen=True)
class Walk:
    """One rendered episode of the folder: its name, how items name its video, its metadata."""

    name: str
    video: str
    meta_path: Path

    def meta(self) -> EpisodeMeta:
        return load_episode_meta(self.meta_path)


@dataclass
class Inputs:
    """What a source reads, where it writes the files its records name, and what it skipped."""

    items: list[Item]
    walks: list[Walk]
    files: Path  # a file written at ``files / P`` is ``P`` relative to the generated folder
    notes: Counter[str] = field(default_factory=Counter)  # what the summary counts besides


@dataclass(frozen=True)
class Source:
    """One step of the pipeline: a kind of example, how to make it, and the folder (relative
    to the generated folder) it owns for the files its records name, if any."""

    kind: str
    make: Callable[[Inputs], Iterable[TrainingExample]]
    owns: str | None = None


def _qa(inputs: Inputs) -> Iterator[TrainingExample]:
    return qa_examples(inputs.items)


def _explore(inputs: Inputs) -> Iterator[TrainingExample]:
    from .explore import explore_examples  # the exploration env: the `sim` extra's Gymnasium

    metas = {w.video: w.meta for w in inputs.walks}
    return explore_examples(inputs.items, metas, inputs.files, inputs.notes)


def _folds(inputs: Inputs) -> Iterator[TrainingExample]:
    for walk in inputs.walks:
        yield from fold_examples(walk.meta(), walk.video)


# The pipeline, in order.
SOURCES: tuple[Source, ...] = (
    Source("qa", _qa),
    Source("explore", _explore, owns=VIEWS_DIR),
    Source("fold", _folds),
)


@dataclass
class TrainingSummary:
    path: Path
    counts: dict[str, int] = field(default_factory=dict)  # examples per kind
    # what else is worth a word: plans confirmed, items left out by reason
    notes: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        made = ", ".join(f"{self.counts.get(k, 0)} {k}" for k in KINDS)
        notes = "".join(f"; {n} {what}" for what, n in sorted(self.notes.items()) if n)
        return f"training records: {made}{notes} → {self.path}"


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
    """Make every source's examples for the generated folder ``out``; write ``train.jsonl``
    and the folders the sources own (replacing what an earlier run wrote there). Each record
    carries the manifest's ``generation``."""
    out = Path(out)
    generation = (read_manifest(out) or {}).get(GENERATION)
    staging = out / f".train-partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    inputs = Inputs(read_items(out), walks_of(out), staging)
    summary = TrainingSummary(out / TRAIN_FILE)
    counts: Counter[str] = Counter()

    def stream() -> Iterator[TrainingExample]:
        for source in sources:
            for ex in source.make(inputs):
                counts[ex.kind] += 1
                yield ex.model_copy(update={"generation": generation})

    try:
        write_examples(stream(), staging / TRAIN_FILE)
        for name in [s.owns for s in sources if s.owns is not None] + [TRAIN_FILE]:
            _replace(staging / name, out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary.counts = dict(counts)
    summary.notes = dict(inputs.notes)
    return summary


def _replace(new: Path, old: Path) -> None:
    """Put ``new`` where ``old`` is (a file or a folder); an ``old`` with no ``new`` goes."""
    if new.is_file():
        new.replace(old)  # atomic
        return
    if old.is_dir():
        shutil.rmtree(old)
    elif old.exists():
        old.unlink()
    if new.exists():
        new.rename(old)
