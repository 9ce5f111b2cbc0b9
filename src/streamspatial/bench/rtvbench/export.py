"""A generated benchmark as RTV-Bench's ``QA.json`` (``sim export --format rtvbench``).

Written so that RTV-Bench's own scripts (``compute_acc.py``, ``compute_score.py``) and this
package's reader (:mod:`.reader`) read it as they read the release: groups per video, levels
from the chains, ids that never carry the answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .._files import write_json_array

# A generated item's main category, by the family's own category (S3-Bench's domains): motion
# of the camera is an action, temporal dependency an event, everything else an object.
MAIN_OF = {"Ego-centric": "Action", "Temporal Dependency": "Event"}
GENERATED_TAG = "SR"  # spatial reasoning: compute_acc.py's dimension "Reasoning"


def to_rtvbench_records(items: Iterable[Item]) -> list[dict[str, Any]]:
    """Single-time text multiple-choice items as ``QA.json`` records.

    ``video`` / ``field``: the item's video file and the folder above it (so ``--videos``
    resolves ``<videos>/<field>/<video>`` as the official inference does); ``end_time`` the
    query time; ``start_time`` where its evidence starts (else 0).  Groups: one per video, the
    hierarchy read from the chains — an item another depends on is level 1, one that depends
    on another level 2, the rest level 0.  The id's last part numbers the group's questions
    (``option<n>``: never the answer, unlike the release's).  ``type`` is
    ``<Object|Action|Event>-SR-<task>``.
    """
    items = list(items)
    depended = {it.depends_on for it in items if it.depends_on}
    counts: dict[str, int] = {}
    out = []
    for it in items:
        if (
            it.answer_type is not AnswerType.CHOICE
            or len(it.queries) != 1
            or any(o.text is None for o in it.options)
        ):
            raise ValueError(
                f"item {it.id}: RTV-Bench questions are text multiple choice, asked once"
            )
        (q,) = it.queries
        gid = hashlib.sha1(it.video.encode()).hexdigest()[:10]
        level = 2 if it.depends_on else 1 if it.id in depended else 0
        n = counts[gid] = counts.get(gid, -1) + 1
        main = MAIN_OF.get(str(it.task.category), "Object")
        video = Path(it.video)
        out.append({
            "video": video.name, "questionID": f"q-group-{gid}-{level}-option{n}",
            "type": f"{main}-{GENERATED_TAG}-{it.task.task}", "field": str(video.parent),
            "start_time": min((s for s, _ in q.evidence), default=0.0), "end_time": q.time,
            "question": it.question, "options": {o.letter: o.text for o in it.options},
            "answer": str(q.answer),
        })  # fmt: skip
    return out


def write_rtvbench_json(items: Iterable[Item], path: Path) -> int:
    """Write items as a ``QA.json`` array (:func:`to_rtvbench_records`); returns the count."""
    return write_json_array(to_rtvbench_records(items), path)


__all__ = ["GENERATED_TAG", "MAIN_OF", "to_rtvbench_records", "write_rtvbench_json"]
