"""The plain layout, for replies made anywhere else: one JSON object per line,

``{"item_id": "...", "query_index": 0, "reply": "..."}`` or ``{"item_id": "...", "t_q":
12.0, "reply": "..."}``

``item_id`` is streamspatial's id of the item (``docs/benchmarks.md`` says each benchmark's;
the ids ``predictions.jsonl`` of a run holds), ``query_index`` or ``t_q`` (seconds, as the
item's query point) picks the query point (either may be left out for an item asked once), and
``reply`` is the model's text (``null``: no reply, counted as a failed call).  The file names
no model: pass ``--model-name``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamspatial.core.errors import Problem

from .types import Release, Reply, ReplySource, first_json_line, json_lines


class PlainReplies(ReplySource):
    name = "jsonl"
    title = "JSONL of {item_id, query_index | t_q, reply}"

    def sniff(self, path: Path) -> bool:
        line = first_json_line(path)
        return isinstance(line, dict) and "item_id" in line and "reply" in line

    def read(self, path: Path, release: Release, problems: list[Problem]) -> Iterator[Reply]:
        for location, rec in json_lines(path, problems):
            reply = _reply(rec, str(path), location, problems)
            if reply is not None:
                yield reply


def _reply(rec: Any, file: str, location: str, problems: list[Problem]) -> Reply | None:
    def bad(field: str, expected: str, item_id: str | None = None) -> None:
        problems.append(Problem(file, field, expected, item_id=item_id, location=location))

    if not isinstance(rec, dict):
        bad("", "expected a JSON object {item_id, query_index | t_q, reply}")
        return None
    item_id = rec.get("item_id")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or item_id == "":
        bad("item_id", f"expected the item's id, got {item_id!r}")
        return None
    item_id = str(item_id)
    if "reply" not in rec:
        bad("reply", "expected the model's reply (text, or null)", item_id)
        return None
    text = rec["reply"]
    if text is not None and not isinstance(text, str):
        bad("reply", f"expected text or null, got {text!r}", item_id)
        return None
    index = rec.get("query_index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
        bad("query_index", f"expected a query index 0, 1, …, got {index!r}", item_id)
        return None
    t_q = rec.get("t_q")
    if t_q is not None and (isinstance(t_q, bool) or not isinstance(t_q, int | float)):
        bad("t_q", f"expected the query time in seconds, got {t_q!r}", item_id)
        return None
    return Reply(
        file,
        location,
        text,
        item_id=item_id,
        query_index=index,
        t_q=float(t_q) if t_q is not None else None,
    )


__all__ = ["PlainReplies"]
