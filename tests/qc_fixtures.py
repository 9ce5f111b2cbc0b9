"""Small OVO-S items for the QC tests, written in the released JSONL layout."""

from __future__ import annotations

import json
from pathlib import Path


def row(
    item_id,
    question,
    options,
    answer,
    *,
    code="2.2.1",
    task="Out-of-View Localization",
    source="synthetic",
    times=(10.0,),
):
    answers = [answer] * len(times) if isinstance(answer, str) else list(answer)
    return {
        "id": item_id,
        "category_index": f"{code}_{item_id}",
        "source_dataset": source,
        "video_id": "v",
        "video_path": "v.mp4",
        "level": int(code[0]),
        "task_main_category": code.rsplit(".", 1)[0],
        "task_subcategory": code,
        "task_type_name": task,
        "question": question,
        "options": {chr(65 + i): o for i, o in enumerate(options)},
        "query_times": list(times),
        "evidence_times": [[0.0, 1.0] for _ in times],
        "answers": answers,
    }


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
