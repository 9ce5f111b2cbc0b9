"""A generated benchmark's S3-Bench items as our S3-Bench JSONL (``s3.jsonl`` of ``sim
generate``), the layout :mod:`.reader` defines and reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .._files import write_jsonl


def to_s3_record(item: Item) -> dict[str, Any]:
    fmt = "num" if item.answer_type is AnswerType.NUMBER else "mc"
    if len(item.queries) != 1:
        raise ValueError(f"item {item.id}: S3-Bench items have exactly one query point")
    q = item.queries[0]
    if any(o.text is None for o in item.options):
        raise ValueError(f"item {item.id}: S3-Bench options are text")
    rec: dict[str, Any] = {
        "id": item.id,
        "video": item.video,
        "task": item.task.task,
        "format": fmt,
        "question": item.question,
    }
    if fmt == "mc":
        rec["options"] = [o.text for o in item.options]
    rec["query_time"] = q.time
    rec["answer"] = q.answer
    rec["evidence"] = [list(s) for s in q.evidence]
    if item.depends_on is not None:
        rec["depends_on"] = item.depends_on
    if item.intent is not None:
        rec["intent"] = item.intent
    rec["explorable"] = item.explorable
    if item.source is not None:
        rec["source"] = item.source
    return rec


def write_s3_jsonl(items: Iterable[Item], path: Path) -> int:
    """Write items as S3-Bench JSONL (earlier turns must come before the turns that use them);
    returns the count."""
    items = list(items)
    write_jsonl((to_s3_record(item) for item in items), path)
    return len(items)


__all__ = ["to_s3_record", "write_s3_jsonl"]
