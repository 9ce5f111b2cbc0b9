"""Items as OVO-S-Bench's E.6 JSONL (``ovos.jsonl`` of ``sim generate``), one record an item,
which :mod:`.reader` reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .._files import write_jsonl


def write_ovos_jsonl(items: Iterable[Item], path: Path) -> int:
    """Write items in the E.6 JSONL layout, so generated benchmarks load through this reader;
    returns the count."""
    items = list(items)
    write_jsonl((to_ovos_record(item) for item in items), path)
    return len(items)


def to_ovos_record(item: Item) -> dict[str, Any]:
    if item.answer_type is not AnswerType.CHOICE:
        raise ValueError(f"item {item.id}: OVO-S-Bench items are multiple choice")
    level = item.task.level or "L1"
    record: dict[str, Any] = {
        "id": int(item.id) if item.id.isdigit() else item.id,
        "category_index": item.meta.get("category_index", f"{item.task.subcategory}_{item.id}"),
        "source_dataset": item.source or "",
        "video_id": str(item.meta.get("video_id", Path(item.video).stem)),
        "video_path": item.video,
        "level": int(level.removeprefix("L")),
        "task_main_category": item.task.category,
        "task_subcategory": item.task.subcategory,
        "task_type_name": item.task.task,
        "question": item.question,
        "options": {o.letter: o.text if o.text is not None else o.image for o in item.options},
        "query_times": [q.time for q in item.queries],
        "evidence_times": [_evidence_out(q.evidence) for q in item.queries],
        "answers": [q.answer for q in item.queries],
    }
    if item.intent is not None:
        record["intent"] = item.intent
    return record


def _evidence_out(spans: tuple[tuple[float, float], ...]) -> list[Any]:
    if len(spans) == 1:
        return list(spans[0])
    return [list(s) for s in spans]


__all__ = ["to_ovos_record", "write_ovos_jsonl"]
