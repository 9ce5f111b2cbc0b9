"""A generated benchmark as StreamingBench's ``questions_real.json``
(``sim export --format streamingbench``): single-time multiple-choice items, each asked at a
whole second, read back by StreamingBench's own code and by :mod:`.reader`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .._files import write_json_array
from ..tasks import primitive_of

# The real-time task (StreamingBench, Table 1) a generated item's reasoning primitive is
# written as; spatial primitives (distance, direction, locate, ego) are Spatial Understanding.
TASK_TYPES = {
    "count": "Counting",
    "attribute": "Attribute Perception",
    "order": "Event Understanding",
}


def to_streamingbench_entry(item: Item) -> dict[str, Any]:
    """A ``questions_real.json`` entry for a multiple-choice item asked at one whole second
    (the time is floored, so the question is never asked later than the item asks it)."""
    if item.answer_type is not AnswerType.CHOICE or len(item.queries) != 1:
        raise ValueError(f"item {item.id}: StreamingBench entries are single-time multiple choice")
    q = item.queries[0]
    s = int(q.time)
    primitive = primitive_of((item.intent or {}).get("task"))
    if item.benchmark == "streamingbench":
        task = item.task.task
    else:
        task = TASK_TYPES.get(str(primitive), "Spatial Understanding")
    return {
        "video_path": f"./{item.video}",
        "questions": [
            {
                "task_type": task,
                "question": item.question,
                "time_stamp": f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}",
                "answer": q.answer,
                "options": [f"{o.letter}. {o.text}" for o in item.options],
            }
        ],
    }


def write_streamingbench_json(items: Iterable[Item], path: Path) -> int:
    """Write multiple-choice items as a ``questions_real.json`` array; returns the count."""
    return write_json_array([to_streamingbench_entry(it) for it in items], path)


__all__ = ["TASK_TYPES", "to_streamingbench_entry", "write_streamingbench_json"]
