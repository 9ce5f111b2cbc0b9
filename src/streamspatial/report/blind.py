"""The vision–blind gap: each task's score next to what a text-only model gets on it.

A task score means little without its blind score beside it: VSI-Bench-Debiased reports
both, since a model can only claim what it gets *beyond* a text-only model that never saw a
frame.  The blind numbers come from the blind stress test (``streamspatial qc blind --out
blind.json``) or, for a generated benchmark, from the ``pruning`` table its ``manifest.json``
holds (the probe of the items that were kept).  Both are per task (``benchmark/task``, the
key :mod:`streamspatial.qc` uses); the model's score is put on the same footing — accuracy
for choice tasks, MRA for numeric ones (the probe's metric for numbers on every benchmark,
VCBench's included) — so a row compares like with like.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from streamspatial.core.errors import InputError
from streamspatial.eval.results import Record
from streamspatial.grading.aggregate import Table
from streamspatial.grading.metrics import mean_relative_accuracy

BLIND_JSON = "blind.json"
MANIFEST_JSON = "manifest.json"
COLUMNS = ("task", "n", "score", "blind", "chance", "vision_gap")


@dataclass(frozen=True)
class BlindTask:
    chance: float
    blind: float
    items: int


def load_blind(path: Path) -> dict[str, BlindTask]:
    """Per-task blind scores from a ``qc blind --out`` file or a generated ``manifest.json``."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not a readable JSON file ({e})") from e
    out: dict[str, BlindTask] = {}
    if isinstance(raw, dict) and isinstance(raw.get("tasks"), list):  # qc blind --out
        for t in raw["tasks"]:
            if t.get("blind") is not None:
                out[str(t["task"])] = BlindTask(
                    float(t["chance"]), float(t["blind"]), int(t["items"])
                )
        return out
    pruning = raw.get("pruning") if isinstance(raw, dict) else None
    if isinstance(pruning, dict) and isinstance(pruning.get("tasks"), dict):  # sim generate
        for task, row in pruning["tasks"].items():
            after = row.get("after")
            if after and after.get("blind") is not None:
                out[task] = BlindTask(
                    float(after["chance"]), float(after["blind"]), int(after["items"])
                )
        return out
    raise InputError(
        f"{path}: expected the JSON of `qc blind --out` (a 'tasks' list) or a generated "
        "benchmark's manifest.json with a 'pruning' table"
    )


def find_blind(data: str | Path | None) -> Path | None:
    """``blind.json`` beside a run's benchmark file, else a pruned benchmark's manifest."""
    if not data:
        return None
    folder = Path(data) if Path(data).is_dir() else Path(data).parent
    if (folder / BLIND_JSON).is_file():
        return folder / BLIND_JSON
    manifest = folder / MANIFEST_JSON
    if manifest.is_file():
        try:
            if json.loads(manifest.read_text(encoding="utf-8")).get("pruning"):
                return manifest
        except (OSError, ValueError, AttributeError):
            return None
    return None


def _point_score(r: Mapping[str, Any], invalid: str) -> float | None:
    """Accuracy for a choice, MRA for a number (the blind probe's metric), invalid rule applied."""
    extracted, answer = r.get("extracted"), r.get("answer")
    if not r.get("valid") or extracted is None:
        return 0.0 if invalid == "wrong" else None
    if r.get("answer_type") == "number" and isinstance(answer, (int, float)):
        try:
            return mean_relative_accuracy(float(extracted), float(answer))
        except (TypeError, ValueError):
            return 0.0
    return None if r.get("score") is None else float(r["score"])


def gap_table(
    records: Iterable[Record | Mapping[str, Any]],
    blind: Mapping[str, BlindTask],
    *,
    invalid: str = "wrong",
) -> Table | None:
    """One row per task the probe scored: query points, score, blind, chance, score − blind.

    ``records``: a run's records, or the plain dicts :func:`~streamspatial.scoring.scorers.rescored`
    makes of them under a scorer."""
    scores: dict[str, list[float]] = defaultdict(list)
    for rec in records:
        r = asdict(rec) if isinstance(rec, Record) else rec
        s = _point_score(r, invalid)
        key = f"{r.get('benchmark')}/{(r.get('task') or {}).get('task')}"
        if s is not None and key in blind:
            scores[key].append(s)
    if not scores:
        return None
    rows: list[dict[str, Any]] = []
    for task in sorted(scores):
        model = sum(scores[task]) / len(scores[task])
        b = blind[task]
        rows.append(
            {
                "task": task,
                "n": len(scores[task]),
                "score": model,
                "blind": b.blind,
                "chance": b.chance,
                "vision_gap": model - b.blind,
            }
        )
    return Table(
        "Vision–blind gap",
        COLUMNS,
        tuple(rows),
        (
            "score: this run per query point (accuracy; numbers: MRA); blind: the best text-only "
            "model of `qc blind` (cross-validated by house, no frame seen); chance: its uniform "
            "guess (numbers: the training median's MRA); vision_gap = score − blind",
        ),
    )


__all__ = ["BLIND_JSON", "BlindTask", "find_blind", "gap_table", "load_blind"]
