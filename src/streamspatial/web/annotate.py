"""The annotation tool's server side: an item from the form becomes one OVO-S JSONL line.

UCS-Bench F.3.1: the tool's temporal constraints keep evidence strictly before the question
time.  The page checks that as the annotator types, but the authority is the OVO-S adapter
itself: every submitted item is written as a one-line OVO-S file and loaded back through
:class:`~streamspatial.bench.ovos.OvosAdapter`, so the annotation file holds only items that
``streamspatial validate`` (and ``run``) accept, with the same messages.  The video must be one
of the served files and the query time must lie within it.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from itertools import pairwise
from pathlib import Path
from typing import Any

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.bench.registry import video_duration
from streamspatial.core.errors import InputError, RequestRefused, StreamspatialError
from streamspatial.core.schema import LETTERS, Item

from .media import MediaError, resolve_media

# The format annotations are written in: the annotation file is OVO-S JSONL.
ANNOTATION_FORMAT = OvosAdapter.name


class AnnotationError(RequestRefused):
    """The submitted item is invalid (422); ``problems`` are one line each, for the form."""

    def __init__(self, problems: list[str]):
        super().__init__(422, "; ".join(problems))
        self.problems = problems


def split_code(code: str) -> tuple[int | None, str | None]:
    """``"2.1.2"`` → level 2 and main category ``"2.1"`` (the OVO-S taxonomy's numbering)."""
    parts = code.strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None, None
    return int(parts[0]), ".".join(parts[:2])


class AnnotationStore:
    """An OVO-S JSONL file that only ever grows by validated items."""

    def __init__(self, path: Path, videos: Path):
        self.path = Path(path)
        self.videos = Path(videos)
        self.adapter = OvosAdapter()
        self._lock = threading.Lock()
        self.items: list[Item] = []
        if self.path.exists() and self.path.stat().st_size > 0:
            result = self.adapter.load(self.path)
            if result.problems:
                raise InputError(result.problems)
            self.items = result.items

    def next_id(self) -> str:
        numeric = [int(it.id) for it in self.items if it.id.isdigit()]
        return str(max(numeric, default=0) + 1)

    def record_from_form(self, form: dict[str, Any], item_id: str) -> dict[str, Any]:
        """The OVO-S record the form describes; shape errors are left for the adapter.

        ``queries`` lists the query points (``time``, ``evidence``, ``answer``) of items asked
        several times (OVO-S Revisit Counting); a single point may also come as ``query_time``,
        ``evidence`` and ``answer``.
        """
        code = str(form.get("task_subcategory") or "").strip()
        level, main = split_code(code)
        options = form.get("options")
        options = [str(o).strip() for o in options] if isinstance(options, list) else []
        queries = form.get("queries")
        if not isinstance(queries, list):
            queries = [
                {
                    "time": form.get("query_time"),
                    "evidence": form.get("evidence"),
                    "answer": form.get("answer"),
                }
            ]
        queries = [q if isinstance(q, dict) else {} for q in queries]
        video = str(form.get("video") or "")
        return {
            "id": int(item_id) if item_id.isdigit() else item_id,
            "category_index": f"{code}_{item_id}",
            "source_dataset": str(form.get("source_dataset") or "annotated").strip(),
            "video_id": Path(video).stem,
            "video_path": video,
            "level": level,
            "task_main_category": main,
            "task_subcategory": code or None,
            "task_type_name": str(form.get("task_type_name") or "").strip(),
            "question": str(form.get("question") or "").strip(),
            "options": {LETTERS[i]: o for i, o in enumerate(options[: len(LETTERS)])},
            "query_times": [q.get("time") for q in queries],
            "evidence_times": [_evidence_field(q.get("evidence")) for q in queries],
            "answers": [str(q.get("answer") or "").strip().upper() for q in queries],
        }

    def check(self, record: dict[str, Any]) -> list[str]:
        """Every problem with one record, as the adapter and the video check report them."""
        problems: list[str] = []
        if not record["task_subcategory"] or record["level"] is None:
            problems.append("field 'task_subcategory': expected a task code like 2.1.2")
        if len(record["options"]) < 2:
            problems.append("field 'options': expected at least two options")
        if len(set(record["options"].values())) < len(record["options"]):
            problems.append("field 'options': expected every option to differ")
        with tempfile.TemporaryDirectory() as tmp:
            one = Path(tmp) / "item.jsonl"
            one.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
            result = self.adapter.load(one)
        problems += [_without_file(str(p), str(one)) for p in result.problems]
        problems += _evidence_not_before(result.items)
        if any(str(it.id) == str(record["id"]) for it in self.items):
            problems.append(f"field 'id': {record['id']} is already used")
        try:
            video = resolve_media([self.videos], record["video_path"] or "")
        except MediaError:
            problems.append(
                f"field 'video_path': expected a video under the served folder, "
                f"got {record['video_path']!r}"
            )
        else:
            times = record["query_times"]
            numeric = all(isinstance(t, int | float) for t in times)
            if numeric and any(b <= a for a, b in pairwise(times)):
                problems.append("field 'query_times': expected increasing query times")
            if numeric and times and not result.problems:
                try:
                    duration = video_duration(video)
                except StreamspatialError as exc:
                    problems.append(f"field 'video_path': {exc}")
                else:
                    for i, t in enumerate(times):
                        if t > duration + 1e-6:
                            problems.append(
                                f"field 'query_times[{i}]': expected a query time within the "
                                f"video ({duration:g} s), got {t:g} s"
                            )
        return problems

    def add(self, form: dict[str, Any]) -> Item:
        """Validate and append one item durably; raises :class:`AnnotationError` otherwise."""
        with self._lock:
            item_id = str(form.get("id") or "").strip() or self.next_id()
            record = self.record_from_form(form, item_id)
            problems = self.check(record)
            if problems:
                raise AnnotationError(problems)
            line = json.dumps(record, ensure_ascii=False) + "\n"
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            with tempfile.TemporaryDirectory() as tmp:
                one = Path(tmp) / "item.jsonl"
                one.write_text(line, encoding="utf-8")
                item = self.adapter.load(one).items[0]
            self.items.append(item)
            return item

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else ""


def _evidence_not_before(items: list[Item]) -> list[str]:
    """The tool's own constraint (UCS-Bench F.3.1): evidence ends strictly before its query.

    Released files may annotate evidence up to or past the query time and still load; a new
    annotation is held to the stricter rule.
    """
    return [
        f"field 'evidence_times[{q.index}]': expected evidence strictly before the query time "
        f"{q.time:g} s, got [{start:g}, {end:g}]"
        for item in items
        for q in item.queries
        for start, end in q.evidence
        if end >= q.time and not (start == end == q.time == 0)
    ]


def _evidence_field(raw: Any) -> Any:
    """One query point's evidence as OVO-S writes it: one interval, a list of them, or []."""
    if not raw:
        return []
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], list):
        return raw[0]
    return raw


def _without_file(problem: str, file: str) -> str:
    """Adapter messages start with the temporary file's name and line; the form needs neither."""
    rest = problem.removeprefix(file)
    rest = rest.lstrip(":0123456789").lstrip(": ")
    return rest


__all__ = ["AnnotationError", "AnnotationStore", "split_code"]
