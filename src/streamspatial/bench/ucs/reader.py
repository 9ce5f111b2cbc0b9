"""UCS-Bench: user-centric questions with timestamps, in the three shapes its
repository uses, read as released.

* **Multiple choice, JSON array** (``directme/eval/eval_ucsbench.py``): ``qid, video_uid``
  (a ``-mcq`` / ``__mcq`` suffix names the MCQ variant of the video's annotation and is
  stripped), ``question, question_timestamps`` (``"HH:MM:SS"``), ``options`` (an object A–E),
  ``answer_label``, and optionally ``category, subcategory, qtype, evidence``.
* **Open-ended, JSON array** (the demo QA files ``directme/demo/sample_qa.json``): the same
  fields with empty ``options`` and a free-text ``answer`` ("It is to your front-left and
  rear-left.").  These are direction items: scored by the set of egocentric direction classes
  the answer names (:mod:`streamspatial.core.directions`).
* **Multiple choice, JSONL** (``examples/evaluate_ucsbench_vlm.py``): ``video_uid,
  query_timestamp`` (seconds; ``timestamp`` also read), ``question``, ``options`` as ``"A. text"``
  strings, ``answer_idx`` (0-based; ``correct_idx`` also read), ``dimension``; an id from
  ``qid`` / ``question_id`` / ``id`` when present, else ``<video_uid>#<line>``.

A missing category is reported as ``"unknown"`` in every table rather than rejected.  Times are
``"HH:MM:SS"``, ``"MM:SS"`` or seconds (as a number or text).  Evidence segments are accepted as
``[start, end]`` (seconds or ``"HH:MM:SS"``), ``{"start", "end"}`` objects or
``"HH:MM:SS-HH:MM:SS"`` strings, alone or in a list.  The video is ``<videos>/<video_uid>.mp4``
or, when that is absent, the 1 fps frame folder ``<videos>/<video_uid>/`` (App. C).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from streamspatial.core.directions import DIRECTIONS, direction_classes
from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

from .. import prompts
from .._items import (
    IdRegistry,
    build_item,
    evidence_before,
    interval,
    load_items,
    options_from_map,
)
from .._rows import Row, parse_hms
from ..base import BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, greedy

UNKNOWN = "unknown"
# Which released shape an item came from: the official script that reads that shape scores it.
SHAPE = "ucs_shape"
SHAPE_ARRAY = "array"  # directme/eval/eval_ucsbench.py
SHAPE_JSONL = "jsonl"  # examples/evaluate_ucsbench_vlm.py
_MCQ_SUFFIX = re.compile(r"(?:-mcq|__mcq)$", re.IGNORECASE)
_LETTERED = re.compile(r"^\s*([A-Ga-g])\s*[.):]\s*(.*)$", re.DOTALL)


class UCSAdapter(BenchmarkAdapter):
    title = "UCS-Bench"
    short_title = "UCS"
    scoring = ScoringSpec(
        number_metric="exact",
        official="cocowy1/UCS-Bench eval_ucsbench.py / evaluate_ucsbench_vlm.py",
    )
    generation = greedy(
        16,
        "cocowy1/UCS-Bench examples/evaluate_ucsbench_vlm.py: temperature 0.0, max_tokens 16 "
        "(UCS-Bench App. C: deterministic decoding)",
    )

    keys_all = frozenset({"video_uid"})
    keys_any = frozenset(
        {"question_timestamps", "query_timestamp", "timestamp", "answer_label", "answer_idx"}
    )

    def load(self, path: Path) -> LoadResult:
        ids = IdRegistry()
        return load_items(path, lambda row: _item(row, ids))

    def video_path(self, item: Item, videos: Path) -> Path:
        from streamspatial.video.sources import VIDEO_SUFFIXES

        for suffix in VIDEO_SUFFIXES:
            candidate = videos / f"{item.video}{suffix}"
            if candidate.is_file():
                return candidate
        folder = videos / item.video
        if folder.is_dir():
            return folder
        return videos / f"{item.video}.mp4"

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # The official evaluation scripts prompt DirectMe's scene-graph memory, not a video
        # model, so both scorers send our template (docs/reproducing.md).
        return prompts.ucs_prompt(
            item.question, item.options, query.time, cot=options.cot, text_only=options.text_only
        )


def strip_mcq(video_uid: str) -> str:
    return _MCQ_SUFFIX.sub("", video_uid)


def _seconds(row: Row, field: str, raw: Any) -> float | None:
    """A question time: ``"HH:MM:SS"``, ``"MM:SS"``, seconds as text, or a number."""
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if isinstance(raw, bool) or raw is None:
        row.problem(field, f'expected a time as "HH:MM:SS" or seconds, got {raw!r}')
        return None
    if isinstance(raw, int | float):
        t: float | None = float(raw)
    elif isinstance(raw, str):
        t = parse_hms(raw)
        if t is None:
            try:
                t = float(raw.strip())
            except ValueError:
                t = None
    else:
        t = None
    if t is None or not (t >= 0 and t != float("inf")):
        row.problem(field, f'expected a time as "HH:MM:SS" or seconds ≥ 0, got {raw!r}')
        return None
    return t


def _evidence(row: Row, query_time: float | None, field: str = "evidence") -> list | None:
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
        if any(s is None for s in spans):
            return None
    elif isinstance(raw, list) and not raw:
        return []
    else:
        span = interval(row, field, raw)
        if span is None:
            return None
        spans = [span]
    if query_time is not None:
        evidence_before(row, field, spans, query_time)  # type: ignore[arg-type]
    return spans


def _labels(row: Row) -> TaskLabels:
    category = row.str("category", required=False) or UNKNOWN
    subcategory = row.str("subcategory", required=False)
    qtype = row.str("qtype", required=False)
    return TaskLabels(
        category=category, subcategory=subcategory, task=qtype or subcategory or category
    )


def _array_item(row: Row, ids: IdRegistry) -> Item | None:
    qid = row.ident("qid")
    row.item_id = qid
    if qid is not None:
        ids.check(row, "qid", qid)
    uid = row.str("video_uid")
    question = row.str("question")
    t = None
    if not row.has("question_timestamps"):
        row.problem("question_timestamps", 'missing; expected a time as "HH:MM:SS"')
    else:
        t = _seconds(row, "question_timestamps", row.data["question_timestamps"])
    raw_opts = row.dict("options", required=False) or {}
    options = options_from_map(row, "options", raw_opts) if raw_opts else ()
    if raw_opts:
        answer: str | None = _answer_label(row, options)
        answer_type = AnswerType.CHOICE
    else:
        answer = _direction_answer(row)
        answer_type = AnswerType.DIRECTION
    spans = _evidence(row, t)
    if not row.ok:
        return None
    assert t is not None and uid is not None and spans is not None
    meta: dict[str, Any] = {"video_uid": uid, SHAPE: SHAPE_ARRAY}
    for extra in ("question_chinese", "answer", "answer_chinese", "task_difficulty"):
        if extra in row.data:
            meta[extra] = row.data[extra]
    intent = row.dict("intent", required=False)  # generated benchmarks only (not released)
    return build_item(
        row,
        benchmark="ucs",
        intent=intent,
        video=strip_mcq(uid),
        question=question,
        answer_type=answer_type,
        options=options or (),
        queries=(QueryPoint(index=0, time=t, answer=answer, evidence=tuple(spans)),),
        task=_labels(row),
        meta=meta,
    )


def _answer_label(row: Row, options: tuple[Option, ...] | None) -> str | None:
    """``answer_label``; the official loader falls back to ``answer`` when it is empty."""
    field = "answer_label" if row.has("answer_label") and row.data["answer_label"] else "answer"
    raw = row.data.get(field)
    if raw is None:
        row.problem("answer_label", "missing; expected the correct option letter")
        return None
    if not isinstance(raw, str) or len(raw.strip()) != 1:
        row.problem(field, f"expected an option letter, got {raw!r}")
        return None
    answer = raw.strip().upper()
    letters = "".join(o.letter for o in options or ())
    if options is not None and answer not in letters:
        row.problem(field, f"expected a letter among the options {letters}, got {answer}")
        return None
    return answer


def _direction_answer(row: Row) -> str | None:
    """The free-text answer of an open-ended item; it must name a direction class."""
    answer = row.str("answer")
    if answer is None:
        return None
    if not direction_classes(answer):
        named = ", ".join(
            d.replace("behind_", "back-").replace("front_", "front-") for d in DIRECTIONS
        )
        row.problem(
            "answer",
            f"expected an answer naming a direction ({named}) for a question without options, "
            f"got {answer!r}",
        )
        return None
    return answer


def _item(row: Row, ids: IdRegistry) -> Item | None:
    """A record of the JSONL shape (a query time of its own) or of the JSON-array one."""
    rec = row.data
    jsonl_shape = "query_timestamp" in rec or "answer_idx" in rec or "timestamp" in rec
    return _jsonl_item(row, ids) if jsonl_shape else _array_item(row, ids)


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
    time_field = "query_timestamp" if row.has("query_timestamp") else "timestamp"
    t = None
    if not row.has(time_field):
        row.problem("query_timestamp", "missing; expected a time in seconds")
    else:
        t = _seconds(row, time_field, row.data[time_field])
    question = row.str("question")
    dimension = row.str("dimension", required=False) or UNKNOWN
    options = _lettered_options(row)
    answer = None
    idx_field = (
        "answer_idx" if row.has("answer_idx") or not row.has("correct_idx") else "correct_idx"
    )
    idx = row.int(idx_field)
    if idx is not None and options is not None:
        if not 0 <= idx < len(options):
            row.problem(
                idx_field,
                f"expected a 0-based index below {len(options)} (the number of options), got {idx}",
            )
        else:
            answer = LETTERS[idx]
    spans = _evidence(row, t)
    if not row.ok:
        return None
    assert uid is not None and t is not None and spans is not None
    return build_item(
        row,
        benchmark="ucs",
        video=strip_mcq(uid),
        question=question,
        answer_type=AnswerType.CHOICE,
        options=options,
        queries=(QueryPoint(index=0, time=t, answer=answer, evidence=tuple(spans)),),
        task=TaskLabels(category=dimension, task=dimension),
        meta={"video_uid": uid, SHAPE: SHAPE_JSONL},
    )


def _lettered_options(row: Row) -> tuple[Option, ...] | None:
    """``["A. text", …]``: each string lettered, in order A, B, C, …."""
    raw = row.list("options")
    if raw is None:
        return None
    as_map: dict[str, str] = {}
    lettered = True
    for i, e in enumerate(raw):
        m = _LETTERED.match(e) if isinstance(e, str) else None
        if m is None:
            row.problem(f"options[{i}]", f'expected "A. text", got {e!r}')
            lettered = False
            continue
        as_map[m.group(1).upper()] = m.group(2).strip()
    if not lettered:
        return None
    if len(raw) > len(LETTERS):
        row.problem("options", f"expected at most {len(LETTERS)} options, got {len(raw)}")
        return None
    order = list(as_map)
    if order != list(LETTERS[: len(order)]):
        row.problem(
            "options", f"expected options lettered A, B, C, … in order, got {', '.join(order)}"
        )
        return None
    return options_from_map(row, "options", as_map)


__all__ = ["SHAPE", "SHAPE_ARRAY", "SHAPE_JSONL", "UCSAdapter", "strip_mcq"]
