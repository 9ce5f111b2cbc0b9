"""RTV-Bench (NeurIPS'25, ``LJungang/RTV-Bench``): ``QA.json`` as released.

A JSON array of questions ``{video, questionID, type, field, start_time, end_time, question,
options {letter: text}, answer}``.  The official inference (``scripts/infer/infer_model_rtv.py``)
cuts each question's clip to ``[0, end_time]`` of ``<video_root>/<field>/<video>`` and asks
it there, so every question is one query point at ``end_time``: the stream up to the moment
asked about, which is the prefix rule itself.  ``[start_time, end_time]`` is the annotated
segment, kept as evidence.

``questionID`` (``q-group-<gid>-<level 0/1/2>-option<k>``) names the question's group and
level, which the official scorers read, and ends with ``option<k>``, which equals the answer in
almost every release row: so it must never reach a model.  An item's id is therefore made of
the group, the level and the row number (``q-group-<gid>-<level>#<row>``); the released id is
kept in ``meta`` and given back by :meth:`RTVBenchAdapter.record_id` for imports.

Task labels follow the official scripts' own parsing (:mod:`.score`
reads them): ``level`` = the question type ``compute_acc.py``'s ``parse_qtype`` reads from the
id, ``category`` = the main category (``Object`` / ``Action`` / ``Event``, the prefix of
``type``), ``subcategory`` = the group ``compute_score.py`` reads (``<gid>-<level>``; None
when its pattern does not match), ``task`` = ``type`` verbatim.

Prompt: the Qwen2.5-VL wrapper's words under both scorers.  Frames: under ``--scorer
official`` the wrappers' 8 uniform frames of the clip (``official_policy``).
"""

from __future__ import annotations

import re
from itertools import count
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from .._items import build_item, load_items, options_from_map
from .._rows import Row
from ..base import BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, greedy

OFFICIAL_SCORER = (
    "LJungang/RTV-Bench scripts/utils/prompt_utils.py extract_pred_letter, "
    "scripts/eval/compute_acc.py, scripts/eval/compute_score.py"
)
QUESTION_ID = "questionID"  # meta key: the released id (never sent)
MAIN_CATEGORIES = ("Object", "Action", "Event")
DIM_CATEGORIES = ("Reasoning", "Understanding", "Perception")
SUBDIM_CATEGORIES = ("TP", "VP", "SP", "IA", "PU", "GU", "SR", "FP")
QTYPES = ("0", "1", "2")
# compute_score.py GROUP_ID_RE: q-group-<gid>-<qtype>(-<suffix>)*, case-blind.
GROUP_ID = re.compile(r"^q-group-([a-z0-9]+)-([012])(?:-[^-]+)*$", re.IGNORECASE)
PROMPT_TAIL = (
    "Answer with the option's letter from the given choices directly and only give the best option."
)


def parse_qtype(question_id: Any) -> str:
    """``compute_acc.py`` ``parse_qtype``: the second-to-last ``-`` part when there are at
    least five and it is 0/1/2, else the last of at least four, else ``unknown``."""
    if not isinstance(question_id, str):
        return "invalid_format"
    parts = question_id.split("-")
    if len(parts) >= 5 and parts[-2] in QTYPES:
        return parts[-2]
    if len(parts) >= 4 and parts[-1] in QTYPES:
        return parts[-1]
    return "unknown"


def parse_group(question_id: str) -> tuple[str, str] | None:
    """``compute_score.py`` ``parse_group_id``: ``(gid, qtype)`` of a stripped id, or None."""
    m = GROUP_ID.match(question_id.strip())
    return (m.group(1), m.group(2)) if m else None


def main_category(type_str: str) -> str | None:
    """``parse_main_category``: the prefix ``Object-`` / ``Action-`` / ``Event-``."""
    return next((c for c in MAIN_CATEGORIES if type_str.startswith(f"{c}-")), None)


def dimension(type_str: str) -> str | None:
    """``parse_dimension``: by *substring*, in the scripts' order (SR/FP, IA/PU/GU, TP/VP/SP)."""
    for dim, tags in (("Reasoning", ("SR", "FP")), ("Understanding", ("IA", "PU", "GU")),
                      ("Perception", ("TP", "VP", "SP"))):  # fmt: skip
        if any(t in type_str for t in tags):
            return dim
    return None


def acc_subtype(type_str: str) -> str | None:
    """``compute_acc.py``'s dimension detail key: ``type.split("-")[1]`` (None without one)."""
    parts = type_str.split("-")
    return parts[1] if len(parts) > 1 and parts[1] else None


_SUBDIM = {k: re.compile(rf"(^|[-_]){k}($|[-_])") for k in SUBDIM_CATEGORIES}


def subdimension(type_str: str) -> str | None:
    """``compute_score.py`` ``parse_subdimension``: a tag delimited by ``-``/``_`` or an end."""
    s = type_str.strip()
    return next((k for k in SUBDIM_CATEGORIES if _SUBDIM[k].search(s)), None)


def option_lines(options: dict[str, str]) -> str:
    """``build_option_prompt``: ``Options:`` then ``K. text`` by sorted key."""
    return "\n".join(["Options:", *(f"{k}. {options[k]}" for k in sorted(options))])


class RTVBenchAdapter(BenchmarkAdapter):
    title = "RTV-Bench"
    short_title = "RTV"
    scoring = ScoringSpec(official=OFFICIAL_SCORER)
    generation = greedy(
        64, "RTV-Bench scripts/infer/qwen25vl_wrapper.py: max_new_tokens 64, do_sample False"
    )
    official_policy = "uniform-8"  # infer_offline_*_8f.sh: --sample_frames 8 of [0, end_time]
    keys_all = frozenset({"questionID", "end_time", "options", "field"})

    def load(self, path: Path) -> LoadResult:
        seen: dict[str, str] = {}
        n = count(1)  # the record's place, which its item's id carries
        return load_items(path, lambda row: _item(row, next(n), seen))

    def record_id(self, item: Item) -> str:
        return str(item.meta[QUESTION_ID])

    def video_path(self, item: Item, videos: Path) -> Path:
        return videos / str(item.source) / item.video

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        opts = {o.letter: o.text or "" for o in item.options}
        return f"Question: {item.question}\n{option_lines(opts)}\n{PROMPT_TAIL}"


def _item(row: Row, n: int, seen: dict[str, str]) -> Item | None:
    qid = row.str(QUESTION_ID)
    if qid is not None:
        group = parse_group(qid)
        # The id a model could see holds no option<k>: the group, the level, the row.
        item_id = f"q-group-{group[0]}-{group[1]}#{n}" if group else f"rtv#{n}"
        row.item_id = item_id
        if qid in seen:
            row.problem(QUESTION_ID, f"duplicate questionID; first used at {seen[qid]}")
        seen.setdefault(qid, row.location)
    video = row.str("video")
    field = row.str("field")
    type_str = row.str("type")
    question = row.str("question")
    start = row.time("start_time")
    end = row.time("end_time")
    if start is not None and end is not None and start > end:
        row.problem("start_time", f"expected start_time ≤ end_time ({end:g} s), got {start:g} s")
    raw = row.dict("options")
    options = options_from_map(row, "options", raw) if raw is not None else None
    answer = row.str("answer")
    if answer is not None and options is not None:
        letters = "".join(o.letter for o in options)
        if answer.strip() not in letters:
            row.problem("answer", f"expected a letter among {letters}, got {answer!r}")
    if not row.ok or qid is None or type_str is None or end is None or options is None:
        return None
    group = parse_group(qid)
    return build_item(
        row, benchmark="rtvbench", video=video, question=question,
        answer_type=AnswerType.CHOICE, options=options, source=field,
        queries=(QueryPoint(index=0, time=end, answer=str(answer).strip(),
                            evidence=((start, end),) if start is not None else ()),),
        task=TaskLabels(level=parse_qtype(qid), category=main_category(type_str),
                        subcategory=f"{group[0]}-{group[1]}" if group else None, task=type_str),
        meta={QUESTION_ID: qid},
    )  # fmt: skip


__all__ = [
    "DIM_CATEGORIES",
    "MAIN_CATEGORIES",
    "OFFICIAL_SCORER",
    "QTYPES",
    "QUESTION_ID",
    "SUBDIM_CATEGORIES",
    "RTVBenchAdapter",
    "acc_subtype",
    "dimension",
    "main_category",
    "option_lines",
    "parse_group",
    "parse_qtype",
    "subdimension",
]
