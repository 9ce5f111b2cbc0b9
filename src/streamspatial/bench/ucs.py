"""UCS-Bench (seed 003): user-centric multiple-choice questions with timestamps and evidence.

Both layouts its repository uses:

* a JSON array of questions: ``qid, video_uid`` (a ``-mcq`` / ``__mcq`` suffix names the MCQ
  variant of the video's annotation and is stripped), ``question, question_timestamps``
  (``"HH:MM:SS"``), ``options`` (an object A–E), ``answer_label, category, subcategory, qtype,
  evidence``;
* JSONL: ``video_uid, query_timestamp`` (seconds), ``question``, ``options`` as ``"A. text"``
  strings, ``answer_idx`` (0-based), ``dimension``; an id from ``qid`` / ``question_id`` / ``id``
  when present, else ``<video_uid>#<line>``.

Evidence segments are accepted as ``[start, end]`` (seconds or ``"HH:MM:SS"``), ``{"start",
"end"}`` objects or ``"HH:MM:SS-HH:MM:SS"`` strings, alone or in a list.  The video is
``<videos>/<video_uid>.mp4`` or, when that is absent, the 1 fps frame folder
``<videos>/<video_uid>/`` (App. C).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from streamspatial.core.schema import LETTERS, AnswerType, Item, QueryPoint, TaskLabels

from . import prompts
from ._items import IdRegistry, build_item, evidence_before, interval, options_from_map
from ._rows import Row, first_keys, parse_hms, read_json_array, read_jsonl
from .base import LoadResult, ScoringSpec

VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".avi")
_MCQ_SUFFIX = re.compile(r"(?:-mcq|__mcq)$", re.IGNORECASE)
_LETTERED = re.compile(r"^\s*([A-Ga-g])\s*[.):]\s*(.*)$", re.DOTALL)


class UCSAdapter:
    name = "ucs"
    scoring = ScoringSpec(invalid="wrong", number_metric="exact", table="ucs")

    def sniff(self, path: Path) -> bool:
        keys = first_keys(path)
        return "video_uid" in keys and bool(
            {"question_timestamps", "query_timestamp", "answer_label", "answer_idx"} & keys
        )

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        head = path.read_bytes()[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
        ids = IdRegistry()
        if head.startswith(b"["):
            for loc, rec in read_json_array(path, result.problems):
                row = Row(rec, str(path), loc, result.problems)
                result.add(_array_item(row, ids), loc)
        else:
            for loc, rec in read_jsonl(path, result.problems):
                row = Row(rec, str(path), loc, result.problems)
                result.add(_jsonl_item(row, ids), loc)
        return result

    def video_path(self, item: Item, videos: Path) -> Path:
        for suffix in VIDEO_SUFFIXES:
            candidate = videos / f"{item.video}{suffix}"
            if candidate.is_file():
                return candidate
        folder = videos / item.video
        if folder.is_dir():
            return folder
        return videos / f"{item.video}.mp4"

    def prompt(
        self,
        item: Item,
        query: QueryPoint,
        *,
        variant: Literal["default", "cot"] = "default",
        text_only: bool = False,
        prior_answers: Mapping[str, str] | None = None,
    ) -> str:
        return prompts.ucs_prompt(
            item.question, item.options, query.time, cot=variant == "cot", text_only=text_only
        )

    def system_prompt(self, item: Item) -> str | None:
        return None


def strip_mcq(video_uid: str) -> str:
    return _MCQ_SUFFIX.sub("", video_uid)


def _evidence(row: Row, field: str = "evidence") -> list[tuple[float, float]] | None:
    if not row.has(field):
        return []
    raw = row.data[field]
    if (
        isinstance(raw, list)
        and raw
        and all(isinstance(e, list | dict | str) for e in raw)
        and not (
            len(raw) == 2 and all(isinstance(e, str) and ":" in e and "-" not in e for e in raw)
        )
    ):
        spans = [interval(row, f"{field}[{i}]", e) for i, e in enumerate(raw)]
        return None if any(s is None for s in spans) else spans  # type: ignore[misc]
    if isinstance(raw, list) and not raw:
        return []
    span = interval(row, field, raw)
    return None if span is None else [span]


def _array_item(row: Row, ids: IdRegistry) -> Item | None:
    qid = row.ident("qid")
    row.item_id = qid
    if qid is not None:
        ids.check(row, "qid", qid)
    uid = row.str("video_uid")
    question = row.str("question")
    t = None
    stamp = row.data.get("question_timestamps")
    if isinstance(stamp, list) and len(stamp) == 1:
        stamp = stamp[0]
    if stamp is None:
        row.problem("question_timestamps", 'missing; expected a time as "HH:MM:SS"')
    elif isinstance(stamp, str):
        t = parse_hms(stamp)
        if t is None:
            row.problem("question_timestamps", f'expected a time as "HH:MM:SS", got {stamp!r}')
    else:
        row.problem("question_timestamps", f'expected a time as "HH:MM:SS", got {stamp!r}')
    raw_opts = row.dict("options")
    options = None
    if raw_opts is not None:
        options = options_from_map(row, "options", raw_opts)
    answer = row.str("answer_label")
    if answer is not None:
        answer = answer.strip().upper()
        if options is not None and answer not in "".join(o.letter for o in options):
            row.problem(
                "answer_label",
                f"expected a letter among the options "
                f"{''.join(o.letter for o in options)}, got {answer}",
            )
    category = row.str("category")
    subcategory = row.str("subcategory", required=False)
    qtype = row.str("qtype", required=False)
    spans = _evidence(row)
    if t is not None and spans:
        evidence_before(row, "evidence", spans, t)
    if not row.ok:
        return None
    assert t is not None and uid is not None and spans is not None
    meta: dict[str, Any] = {"video_uid": uid}
    for extra in ("question_chinese", "answer", "task_difficulty"):
        if extra in row.data:
            meta[extra] = row.data[extra]
    return build_item(
        row,
        benchmark="ucs",
        id=qid,
        video=strip_mcq(uid),
        question=question,
        answer_type=AnswerType.CHOICE,
        options=options,
        queries=(QueryPoint(index=0, time=t, answer=answer, evidence=tuple(spans)),),
        task=TaskLabels(
            category=category, subcategory=subcategory, task=qtype or subcategory or category or ""
        ),
        meta=meta,
    )


def _jsonl_item(row: Row, ids: IdRegistry) -> Item | None:
    uid = row.str("video_uid")
    id_field = next((f for f in ("qid", "question_id", "id") if row.has(f)), None)
    if id_field is not None:
        item_id = row.ident(id_field)
    else:
        item_id = f"{strip_mcq(uid) if uid else '?'}#{row.location.removeprefix('line ')}"
    row.item_id = item_id
    if item_id is not None:
        ids.check(row, id_field or "id", item_id)
    t = row.time("query_timestamp")
    question = row.str("question")
    dimension = row.str("dimension")
    raw = row.list("options")
    options = None
    if raw is not None:
        as_map: dict[str, str] = {}
        lettered = True
        for i, e in enumerate(raw):
            m = _LETTERED.match(e) if isinstance(e, str) else None
            if m is None:
                row.problem(f"options[{i}]", f'expected "A. text", got {e!r}')
                lettered = False
                continue
            as_map[m.group(1).upper()] = m.group(2).strip()
        if lettered:
            if len(raw) > len(LETTERS):
                row.problem("options", f"expected at most {len(LETTERS)} options, got {len(raw)}")
            else:
                order = list(as_map)
                if order != list(LETTERS[: len(order)]):
                    row.problem(
                        "options",
                        f"expected options lettered A, B, C, … in order, got {', '.join(order)}",
                    )
                else:
                    options = options_from_map(row, "options", as_map)
    answer = None
    idx = row.int("answer_idx")
    if idx is not None and options is not None:
        if not 0 <= idx < len(options):
            row.problem(
                "answer_idx",
                f"expected a 0-based index below {len(options)} (the number of options), got {idx}",
            )
        else:
            answer = LETTERS[idx]
    spans = _evidence(row)
    if t is not None and spans:
        evidence_before(row, "evidence", spans, t)
    if not row.ok:
        return None
    assert uid is not None and t is not None and spans is not None
    return build_item(
        row,
        benchmark="ucs",
        id=item_id,
        video=strip_mcq(uid),
        question=question,
        answer_type=AnswerType.CHOICE,
        options=options,
        queries=(QueryPoint(index=0, time=t, answer=answer, evidence=tuple(spans)),),
        task=TaskLabels(category=dimension, task=dimension or ""),
        meta={"video_uid": uid},
    )


__all__ = ["UCSAdapter", "strip_mcq"]
