"""A generated benchmark as OVO-Bench's ``ovo_bench_new.json`` (``sim export --format
ovobench``): backward and real-time multiple-choice records that OVO-Bench's own inference
and scorer read, and :mod:`.reader` reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import LETTERS, AnswerType, Item

from .._files import write_json_array
from .reader import FORWARD, MODE_OF


def ovobench_task(item: Item) -> str:
    """The OVO-Bench task a generated multiple-choice item is written as: its own task for an
    OVO-Bench item; else real-time Spatial Understanding (STU) when its evidence reaches the
    last second before the question, backward Episodic Memory (EPM) when it lies earlier."""
    if item.benchmark == "ovobench":
        return item.task.task
    q = item.queries[-1]
    recent = any(end >= q.time - 1.0 for _, end in q.evidence) or not q.evidence
    return "STU" if recent else "EPM"


def to_ovobench_records(item: Item) -> list[dict[str, Any]]:
    """The item as backward / real-time records, one per query point (``"{id}_{k}"`` when the
    item asks at several times)."""
    if item.answer_type is not AnswerType.CHOICE or any(o.text is None for o in item.options):
        raise ValueError(f"item {item.id}: OVO-Bench records are text multiple choice")
    task = ovobench_task(item)
    if MODE_OF.get(task) == FORWARD:
        raise ValueError(f"item {item.id}: forward probes are not written back")
    out = []
    for q in item.queries:
        gt = LETTERS.index(str(q.answer))
        out.append(
            {
                "id": item.id if len(item.queries) == 1 else f"{item.id}_{q.index}",
                "task": task,
                "video": item.video,
                "realtime": q.time,
                "question": item.question,
                "answer": item.options[gt].text,
                "options": [o.text for o in item.options],
                "gt": gt,
            }
        )
    return out


def write_ovobench_json(items: Iterable[Item], path: Path) -> int:
    """Write multiple-choice items as an ``ovo_bench_new.json`` array; returns the count."""
    return write_json_array([r for it in items for r in to_ovobench_records(it)], path)


__all__ = ["ovobench_task", "to_ovobench_records", "write_ovobench_json"]
