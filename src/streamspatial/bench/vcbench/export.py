"""VCBench's ``vcbench_data.jsonl`` layout written from items: what ``sim generate`` writes as
``vcbench.jsonl`` and ``streamspatial overlay`` / ``loop`` write beside their videos."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .._files import write_jsonl


def write_vcbench_jsonl(items: Iterable[Item], path: Path) -> int:
    """Write items in the ``vcbench_data.jsonl`` layout (one line per question).

    ``occurrence_times`` comes from ``meta["occurrence_times"]`` when present, otherwise from
    the evidence of the last query point: point events as a list of times, intervals as
    ``{"start": [...], "end": [...]}``.  Returns the number written.
    """
    records = [to_vcbench_record(item) for item in items]
    write_jsonl(records, path)
    return len(records)


def to_vcbench_record(item: Item) -> dict[str, Any]:
    if item.answer_type is not AnswerType.NUMBER:
        raise ValueError(f"item {item.id}: VCBench items are numeric")
    source, _, video = item.video.partition("/")
    if not video:
        source, video = item.source or "", item.video
    occurrences = item.meta.get("occurrence_times")
    if occurrences is None:
        spans = sorted({s for q in item.queries for s in q.evidence})
        if all(s == e for s, e in spans):
            occurrences = [s for s, _ in spans]
        else:
            occurrences = {"start": [s for s, _ in spans], "end": [e for _, e in spans]}
    counts = [int(q.answer) if float(q.answer).is_integer() else q.answer for q in item.queries]
    record: dict[str, Any] = {
        "id": item.id,
        "source_dataset": source,
        "video_path": video,
        "question": item.question,
        "counting_type": item.task.category,
        "counting_subtype": item.task.subcategory,
        "occurrence_times": occurrences,
        "query_points": {"time": [q.time for q in item.queries], "count": counts},
    }
    if item.intent is not None:
        record["intent"] = item.intent  # generated benchmarks only (not in the release)
    return record


__all__ = ["to_vcbench_record", "write_vcbench_jsonl"]
