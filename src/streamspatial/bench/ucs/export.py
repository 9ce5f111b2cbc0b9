"""UCS-Bench's released JSON-array layout written from items: what ``sim generate`` writes
as ``ucs.json``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from streamspatial.core.schema import Item

from .._files import write_json_array


def hms(seconds: float) -> str:
    """``"HH:MM:SS"``, as UCS-Bench stamps its questions."""
    s = round(seconds)
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def write_ucs_json(items: Iterable[Item], path: Path) -> int:
    """UCS-Bench's released JSON-array layout: ``qid, video_uid, question,
    question_timestamps`` ("HH:MM:SS"), ``options`` (A–E), ``answer_label``, the open-ended
    ``answer`` the demo files carry ("It is on your left."), ``category, subcategory, qtype``
    and ``evidence`` (seconds), plus the generator's ``intent``.  Questions are asked at whole
    seconds; returns the number written."""
    rows = []
    for it in items:
        (q,) = it.queries
        if q.time != int(q.time):
            raise ValueError(f"{it.id}: UCS-Bench stamps questions in whole seconds, got {q.time}")
        rows.append(
            {
                "qid": it.id,
                "video_uid": it.video.removesuffix(".mp4"),
                "question": it.question,
                "question_timestamps": hms(q.time),
                "options": {o.letter: o.text for o in it.options},
                "answer_label": q.answer,
                "answer": it.meta.get("answer")
                or next(o.text for o in it.options if o.letter == q.answer),
                "category": it.task.category,
                "subcategory": it.task.subcategory,
                "qtype": it.task.task,
                "evidence": [[s, e] for s, e in q.evidence],
                # generated benchmarks only, as in ovos.jsonl: what the rules agent reads
                **({"intent": it.intent} if it.intent is not None else {}),
            }
        )
    return write_json_array(rows, path)


__all__ = ["hms", "write_ucs_json"]
