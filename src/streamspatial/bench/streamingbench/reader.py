"""StreamingBench (THUNLP-MT/StreamingBench): its four question files as released.

* ``questions_real.json`` / ``questions_omni.json``: a JSON array of entries ``{video_path,
  questions: [{task_type, question, time_stamp, options ["A. …"], answer "C"}], …}``;
* ``questions_sqa.json``: an array of dialogues, each a list of such entries (five questions
  on one video); each question's prompt recounts the earlier ones (``StreamingBenchSQA.py``);
* ``questions_proactive.json``: entries whose questions carry ``ground_truth_time_stamp`` and
  ``ground_truth_output``: polled every second from ``time_stamp`` (``StreamingBenchProactive.py``).

``time_stamp`` is read as the official code reads it, ``sum(int(x) * 60**i)`` over its
colon-separated parts from the right, so ``"00:24"`` is 24 s, ``"0:00:12"`` 12 s and
``"00:12450"`` 12 450 s (past most videos: ``validate --videos`` says so).  Videos resolve as
the official scripts open them, ``video_path`` relative to the folder they run in: pass that
folder as ``--videos``.  Prompts are the repository's templates; options without ``"A."``
prefixes are lettered as the official code letters them.

An item's task labels: ``level`` the file kind (``real``, ``omni``, ``sqa``, ``proactive`` —
the official counter is run on each file and scores it its own way), ``category``
StreamingBench's (Real-Time Visual Understanding, Omni-Source Understanding, Contextual
Understanding), ``task`` the question's ``task_type``.  The kind is the file's: the name it was
read from (``questions_omni.json`` is omni, its contextual questions included), since the real
and omni files have the same shape; SQA's nesting and proactive questions' fields say so too,
and a multiple-choice file of another name is counted as one real-time file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from streamspatial.core.errors import Problem
from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

from .._files import read_json_array
from .._items import IdRegistry, build_item
from .._rows import Row
from ..base import (
    BenchmarkAdapter,
    LoadResult,
    Polling,
    PromptOptions,
    ScoringSpec,
    papers_protocol,
)

REAL, OMNI, SQA, PROACTIVE = "real", "omni", "sqa", "proactive"
# StreamingBench, Table 1: the three categories and the tasks of the two smaller ones.
REALTIME_CATEGORY = "Real-Time Visual Understanding"
OMNI_CATEGORY = "Omni-Source Understanding"
CONTEXT_CATEGORY = "Contextual Understanding"
OMNI_TASKS = frozenset(
    {"Emotion Recognition", "Scene Understanding", "Source Discrimination", "Multimodal Alignment"}
)
CONTEXT_TASKS = frozenset(
    {
        "Misleading Context Understanding",
        "Anomaly Context Understanding",
        "Sequential Question Answering",
        "Proactive Output",
    }
)
POLL_AFTER_S = 4  # StreamingBenchProactive.py: polling stops at ground truth + 4 s

# src/benchmark/StreamingBench.py, StreamingBenchSQA.py, StreamingBenchProactive.py.
PROMPT = (
    "You are an advanced video question-answering AI assistant. You have been provided with "
    "some frames from the video and a multiple-choice question related to the video. Your task "
    "is to carefully analyze the video and provide the best answer to question, choosing from "
    "the four options provided. Respond with only the letter (A, B, C, or D) of the correct "
    "option.\n\nQuestion: {}\n\nOptions:\n{}\n\nThe best option is:"
)
SQA_PROMPT = (
    "You are an advanced video question-answering AI assistant. You have been provided with a "
    "video and a multiple-choice question related to the video. Your task is to carefully "
    "analyze the video and the provided context to answer the question, choosing from the four "
    "options provided. Respond with only the letter (A, B, C, or D) of the correct option.\n\n"
    "{}\n\nHere is the question. Answer it and don't confuse it with the previous "
    "conversation.\nQuestion: {}\n\nOptions:\n{}\n\nThe best option is:"
)
SQA_CONTEXT = (
    "Here are the contextual information related to the video. Please answer the questions "
    "based on the contextual information: "
)
SQA_TURN = (
    "At timestamp {ts}, the following question and answer occurred: Question: {q}; "
    "Options: {opts}; Answer: {a}; "
)
PROACTIVE_PROMPT = (
    "You are an advanced image question-answering AI assistant. You have been provided with "
    "images and a question related to the images. Your task is to carefully analyze the images "
    "and provide the answer to the question. You need to carefully confirm whether the images "
    "content meet the conditions of the question, and then output the correct content.\n\n"
    "Question: {}\n\nThe answer is:\n"
)
PROBE = '{} Is it the right time to output "{}"? You can only answer yes or no.'
OFFICIAL_SCORER = "THUNLP-MT/StreamingBench src/data/count.py"
_LETTERED = re.compile(r"^[A-Z]\.")
_FILE_KIND = re.compile(r"^questions_(real|omni|sqa|proactive)(?=[._])")


class StreamingBenchAdapter(BenchmarkAdapter):
    title = "StreamingBench"
    short_title = "StrB"
    headline_metric = "total"
    scoring = ScoringSpec(number_metric="exact", official=OFFICIAL_SCORER)
    generation = papers_protocol(
        "StreamingBench fixes no decoding for all models (src/model/*: each model's own, e.g. "
        "MiniCPM-o samples at 0.5)"
    )

    keys_all = frozenset({"questions", "video_path"})

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        ids = IdRegistry()
        if _is_sqa(path):
            _load_sqa(path, result, ids)
            return result
        choice_kind = OMNI if file_kind(path) == OMNI else REAL
        for n, (loc, entry) in enumerate(read_json_array(path, result.problems)):
            row = Row(entry, str(path), loc, result.problems)
            for k, q in _questions(row):
                qrow = Row(q, str(path), f"{loc}, questions[{k}]", result.problems, f"{n}-{k}")
                kind = PROACTIVE if "ground_truth_time_stamp" in q else choice_kind
                item = _item(qrow, ids, f"{n}-{k}", row, kind)
                result.add(item, qrow.location)
        return result

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # The repository's templates under both scorers.
        listed = "\n".join(item.meta["options"])
        if item.task.level != SQA:
            return PROMPT.format(item.question, listed)
        context = ""
        for turn in item.meta.get("context", []):
            context = context or SQA_CONTEXT
            if options.history == "official":  # StreamingBenchSQA.py: the ground-truth letter
                answer = turn["answer"]
            else:
                answer = _letter(turn, (options.prior_answers or {}).get(turn["id"]))
            opts = ", ".join(turn["options"])
            context += SQA_TURN.format(
                ts=turn["time_stamp"], q=turn["question"], opts=opts, a=answer
            )
        return SQA_PROMPT.format(context, item.question, listed)

    def polling(self, item: Item) -> Polling | None:
        if item.task.level != PROACTIVE:
            return None
        return Polling(
            start=float(item.meta["start"]),
            until=item.queries[0].time,
            probe=PROACTIVE_PROMPT.format(PROBE.format(item.question, item.meta["output"])),
            answer=PROACTIVE_PROMPT.format(item.question),
        )


def _letter(turn: dict[str, Any], answer: str | None) -> str:
    """The model's earlier answer as the letter it chose (the official context prints the
    ground-truth letter there, which only ``run --history official`` sends)."""
    if answer is None:
        return ""
    for k, text in enumerate(turn["texts"]):
        if answer == text:
            return LETTERS[k]
    return answer


def file_kind(path: Path) -> str | None:
    """The kind a release file's name says (``questions_omni.json`` → ``omni``), else None."""
    m = _FILE_KIND.match(path.name)
    return m.group(1) if m else None


def official_seconds(text: str) -> int | None:
    """``sum(int(x) * 60 ** i for i, x in enumerate(reversed(t.split(":"))))``; None where the
    official code would raise."""
    try:
        return sum(int(x) * 60**i for i, x in enumerate(reversed(text.split(":"))))
    except ValueError:
        return None


def _is_sqa(path: Path) -> bool:
    """``questions_sqa.json`` nests its entries one level deeper: an array of arrays."""
    head = path.read_bytes()[:4096].removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(b"[") and head[1:].lstrip().startswith(b"[")


def _questions(row: Row) -> list[tuple[int, dict[str, Any]]]:
    questions = row.list("questions")
    row.str("video_path")
    if questions is None or not row.ok:
        return []
    return [(k, q) for k, _, q in row.objects("questions", questions, "expected a question object")]


def _category(kind: str, task: str) -> str:
    if kind in (SQA, PROACTIVE) or task in CONTEXT_TASKS:
        return CONTEXT_CATEGORY
    return OMNI_CATEGORY if task in OMNI_TASKS else REALTIME_CATEGORY


def _item(row: Row, ids: IdRegistry, item_id: str, entry: Row, kind: str) -> Item | None:
    ids.check(row, "id", item_id)
    task = row.str("task_type")
    question = row.str("question")
    stamp = row.str("time_stamp")
    t = official_seconds(stamp) if stamp is not None else None
    if stamp is not None and t is None:
        row.problem("time_stamp", f'expected "HH:MM:SS" (whole numbers), got {stamp!r}')
    video = entry.data.get("video_path")
    if kind == PROACTIVE:
        fields = _proactive_fields(row, task, t)
    else:
        fields = _choice_fields(row, task, t, stamp, kind)
    if fields is None:
        return None
    return build_item(
        row,
        benchmark="streamingbench",
        video=_relative(video),
        question=question,
        **fields,
    )


def _choice_fields(
    row: Row, task: str | None, t: int | None, stamp: str | None, kind: str
) -> dict[str, Any] | None:
    """A multiple-choice question's own item fields; None when the row cannot make one."""
    raw = row.list("options")
    answer = row.str("answer")
    options, listed = _options(row, raw)
    if answer is not None and options and answer.strip() not in LETTERS[: len(options)]:
        row.problem("answer", f"expected a letter among {LETTERS[: len(options)]}, got {answer!r}")
    if not row.ok or t is None or task is None:
        return None
    return {
        "answer_type": AnswerType.CHOICE,
        "options": options,
        "queries": (QueryPoint(index=0, time=float(t), answer=answer.strip()),),
        "task": TaskLabels(level=kind, category=_category(kind, task), task=task),
        "meta": {"time_stamp": stamp, "options": listed},
    }


def _options(row: Row, raw: list[Any] | None) -> tuple[tuple[Option, ...], list[str]]:
    """Options and the lines the official prompt lists: as released when they start with
    "A.", else lettered ``"A. …"`` the way the official code letters them."""
    if raw is None:
        return (), []
    if not 2 <= len(raw) <= len(LETTERS) or not all(isinstance(o, str) for o in raw):
        row.problem("options", f"expected 2–{len(LETTERS)} option texts")
        return (), []
    lettered = raw[0].startswith("A.")
    listed = list(raw) if lettered else [f"{LETTERS[i]}. {o}" for i, o in enumerate(raw)]
    options = []
    for i, o in enumerate(raw):
        text = _LETTERED.sub("", o, count=1).strip() if lettered else o
        options.append(Option(letter=LETTERS[i], text=text or o))
    return tuple(options), listed


def _proactive_fields(row: Row, task: str | None, t: int | None) -> dict[str, Any] | None:
    """A Proactive Output question's own item fields: its answer is the second the output is
    due; None when the row cannot make one."""
    truth = row.str("ground_truth_time_stamp")
    output = row.str("ground_truth_output", allow_empty=True)
    t_gt = official_seconds(truth) if truth is not None else None
    if truth is not None and t_gt is None:
        row.problem("ground_truth_time_stamp", f'expected "HH:MM:SS", got {truth!r}')
    if not row.ok or t is None or t_gt is None or task is None:
        return None
    return {
        "answer_type": AnswerType.NUMBER,
        "queries": (
            QueryPoint(index=0, time=float(max(t, t_gt + POLL_AFTER_S)), answer=float(t_gt)),
        ),
        "task": TaskLabels(level=PROACTIVE, category=CONTEXT_CATEGORY, task=task),
        "meta": {"start": t, "output": output, "time_stamp": row.data.get("time_stamp")},
    }


def _relative(video: Any) -> str:
    return str(video).removeprefix("./")


def _load_sqa(path: Path, result: LoadResult, ids: IdRegistry) -> None:
    """Dialogues: every question after the first depends on the one before it."""
    text = path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    try:
        dialogues = json.loads(text)
    except (ValueError, RecursionError) as exc:
        result.problems.append(Problem(str(path), "", f"not valid JSON ({exc})"))
        return
    for d, dialogue in enumerate(dialogues):
        previous: Item | None = None
        context: list[dict[str, Any]] = []
        entries = dialogue if isinstance(dialogue, list) else []
        for n, entry in enumerate(entries):
            loc = f"[{d}][{n}]"
            row = Row(entry if isinstance(entry, dict) else {}, str(path), loc, result.problems)
            for k, q in _questions(row):
                item_id = f"{d}-{n}-{k}"
                qrow = Row(q, str(path), f"{loc}.questions[{k}]", result.problems, item_id)
                item = _item(qrow, ids, item_id, row, SQA)
                if item is None:
                    continue
                if previous is not None and previous.queries[0].time > item.queries[0].time:
                    qrow.problem("time_stamp", "expected the dialogue's questions in time order")
                    continue
                item = item.model_copy(
                    update={
                        "depends_on": previous.id if previous else None,
                        "meta": {**item.meta, "context": list(context)},
                    }
                )
                result.add(item, qrow.location)
                context.append(
                    {
                        "id": item.id,
                        "time_stamp": item.meta["time_stamp"],
                        "question": item.question,
                        "options": item.meta["options"],
                        "texts": [o.text for o in item.options],
                        "answer": item.queries[0].answer,
                    }
                )
                previous = item


# -- writing --------------------------------------------------------------------------------


__all__ = [
    "OFFICIAL_SCORER",
    "StreamingBenchAdapter",
    "file_kind",
    "official_seconds",
]
