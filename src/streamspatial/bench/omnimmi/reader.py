"""OmniMMI (OmniMMI/OmniMMI, CVPR 2025): its six JSON lists as released.

The release (``ColorfulAI/OmniMMI`` on the Hub) holds ``videos/`` and one JSON array per task:

* ``action_prediction.json`` (AP): ``{video, question, answer, vocab}``;
* ``speaker_identification.json`` (SI): ``{video, question, answer, timestamp}``;
* ``multiturn_dependency_reasoning.json`` (MD) and ``dynamic_state_grounding.json`` (SG):
  ``{video, qa: [{question, answer, timestamp "s -- e"}]}``;
* ``proactive_alerting.json`` (PA): ``{video, question, answer: [s, e]}``;
* ``proactive_turntaking.json`` (PT): ``{video, conversation: [{speaker: utterance}, …]}``.

The file's name says its task; a file of another name is told by its first record.

Times follow the official online pipeline (``evaluations/online_inference_utils.py``): a
turn of MD or SG is asked at the middle of its ``"s -- e"`` span, SI at its ``timestamp``.
AP and PT carry no time: they are asked at the end of the video (``meta["query_at_end"]``,
named in every table), and PA is polled every second from the start to the end, every "yes"
an alert.  An MD turn's ``##ANSWER##`` is the model's own reply to the turn before; an SG turn
recounts the dialogue so far with the model's replies (both through ``depends_on``).  AP, SI,
MD and SG are scored by a language model judge (``run --judge``), PA on its alert times and PT
by whether the model kept silent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from .._files import first_keys, read_json_array
from .._items import IdRegistry, build_item
from .._rows import Row, check_time
from ..base import (
    QUERY_AT_END,
    BenchmarkAdapter,
    LoadResult,
    Polling,
    PromptOptions,
    ScoringSpec,
    papers_protocol,
)

AP, SI, MD, SG, PA, PT = "AP", "SI", "MD", "SG", "PA", "PT"
JUDGED = frozenset({AP, SI, MD, SG})
# The release's file names (README "Data"), and the task each holds.
FILES = {
    "action_prediction": AP,
    "speaker_identification": SI,
    "multiturn_dependency_reasoning": MD,
    "dynamic_state_grounding": SG,
    "proactive_alerting": PA,
    "proactive_turntaking": PT,
}
TASKS = {
    AP: "Action Prediction",
    SI: "Speaker Identification",
    MD: "Multi-turn Dependency Reasoning",
    SG: "Dynamic State Grounding",
    PA: "Proactive Alerting",
    PT: "Proactive Turn-taking",
}
# README "Introduction": the benchmark's two challenges.
STATE = "Streaming Temporal State Awareness"
PROACTIVE = "Proactive Reasoning and Turn-Taking"
CATEGORY = {AP: STATE, SG: STATE, MD: STATE, SI: PROACTIVE, PA: PROACTIVE, PT: PROACTIVE}
ANSWER_MARK = "##ANSWER##"
OFFICIAL_SCORER = "OmniMMI/OmniMMI evaluations/evaluate.py"
# meta keys; AT_END marks a question the release gives no time (asked at the video's end).
KIND, WINDOW, DURATION, AT_END = "kind", "window", "duration", "asked_at_end"
_KEYS = frozenset({"video", "question", "answer", "vocab", "timestamp", "qa", "conversation"})

# online_inference_utils.py, action prediction.
AP_PROMPT = "{question}, Please select the next step from the provided vocabulary list: {vocab}."
# Ours: the official online models decide themselves when to speak; a model asked by polling
# is asked whether it is the moment (StreamingBench's probe, in OmniMMI's terms).
PA_PROBE = "{question} Is it the right time to respond? You can only answer yes or no."
SG_HISTORY = "The conversation so far:\n{turns}\n\n{question}"
PT_INSTRUCTION = (
    "\n\nIf this is not addressed to you or needs no reply, answer with <2> and nothing else."
)

# evaluate.py openai_eval: the judge's system and user messages, word for word.
JUDGE_SYSTEM = (
    "You are an intelligent chatbot designed for evaluating the correctness of generative "
    "outputs for question-answer pairs. Your task is to compare the predicted answer with the "
    "correct answer and determine if they match meaningfully. Here's how you can accomplish "
    "the task:------##INSTRUCTIONS: - Focus on the meaningful match between the predicted "
    "answer and the correct answer.\n- Consider synonyms or paraphrases as valid matches.\n"
    "- Evaluate the correctness of the prediction compared to the answer."
)
JUDGE_USER = (
    "Please evaluate the following video-based question-answer pair:\n\n"
    "Question: {question}\nCorrect Answer: {answer}\nPredicted Answer: {pred}\n\n"
    "Provide your evaluation only as a yes/no and score where the score is an integer value "
    "between 0 and 5, with 5 indicating the highest meaningful match. Please generate the "
    "response in the form of a Python dictionary string with keys 'pred' and 'score', where "
    "value of 'pred' is  a string of 'yes' or 'no' and value of 'score' is in INTEGER, not "
    "STRING.DO NOT PROVIDE ANY OTHER OUTPUT TEXT OR EXPLANATION. Only provide the Python "
    "dictionary string without codeblock. For example, your response should look like this: "
    "{{'pred': 'yes', 'score': 4.8}}."
)
_SPAN = re.compile(r"^\s*([0-9.eE+-]+)\s*--\s*([0-9.eE+-]+)\s*$")


def file_task(path: Path) -> str | None:
    """The task a release file's name says (``proactive_alerting.json`` → PA), else None."""
    return FILES.get(path.stem)


def task_of_keys(keys: set[str]) -> str | None:
    """The task a record's fields say; MD and SG share theirs (MD is told by its marker)."""
    if "vocab" in keys:
        return AP
    if "conversation" in keys:
        return PT
    if "qa" in keys:
        return SG
    if "timestamp" in keys:
        return SI
    if {"question", "answer"} <= keys:
        return PA
    return None


class OmniMMIAdapter(BenchmarkAdapter):
    title = "OmniMMI"
    short_title = "OMMI"
    headline_metric = "avg. w/o P"
    scoring = ScoringSpec(official=OFFICIAL_SCORER)
    generation = papers_protocol(
        "OmniMMI fixes no decoding for all models (baselines/*_modeling.py: each model's own)"
    )
    keys_all = frozenset({"video"})

    def sniff(self, path: Path) -> bool:
        keys = first_keys(path)
        return "video" in keys and keys <= _KEYS and bool(keys & {"question", "qa", "conversation"})

    def reads_folder(self, path: Path) -> bool:
        return any((path / f"{stem}.json").is_file() for stem in FILES)

    def load(self, path: Path) -> LoadResult:
        if path.is_dir():  # the release folder: each task list it holds, in the README's order
            whole = LoadResult()
            for stem in FILES:
                if (path / f"{stem}.json").is_file():
                    part = self.load(path / f"{stem}.json")
                    whole.items += part.items
                    whole.problems += part.problems
                    whole.locations.update(part.locations)
            return whole
        result = LoadResult()
        ids = IdRegistry()
        records = list(read_json_array(path, result.problems))
        task = file_task(path) or (task_of_keys(set(records[0][1])) if records else None)
        if task == SG and _has_marker(records):
            task = MD
        for n, (loc, rec) in enumerate(records):
            row = Row(rec, str(path), loc, result.problems, f"{task}-{n}".lower())
            video = row.str("video")
            if task in (MD, SG):
                for item, where in _turns(row, task, n, video, ids):
                    result.add(item, where)
                continue
            result.add(_single(row, task or PA, video), loc)
        return result

    def video_path(self, item: Item, videos: Path) -> Path:
        """``<videos>/videos/<video>`` as the official scripts open it (``--videos`` the
        release folder), else ``<videos>/<video>`` (the videos folder itself)."""
        nested, flat = videos / "videos" / item.video, videos / item.video
        return nested if nested.exists() or not flat.exists() else flat

    def with_duration(self, item: Item, duration: float) -> Item:
        item = super().with_duration(item, duration)
        return item.model_copy(update={"meta": {**item.meta, DURATION: duration}})

    def clip_end(self, item: Item, query: QueryPoint) -> float:
        """``--clips official``: the offline pipeline gives speaker identification the whole
        video, past its timestamp; every other task's clip ends at its query."""
        if item.meta[KIND] == SI:
            return float(item.meta.get(DURATION, query.time))
        return query.time

    def official_clip_refusal(self, item: Item) -> str | None:
        if item.meta[KIND] != PA:
            return None
        return ("OmniMMI's offline pipeline raises TypeError for proactive alerting (offline "
                "models have no PA number on its leaderboard)")  # fmt: skip

    def polling(self, item: Item) -> Polling | None:
        if item.meta[KIND] != PA:
            return None
        return Polling(
            start=0.0,
            until=item.queries[0].time,
            probe=PA_PROBE.format(question=item.question),
            stop_at_yes=False,
        )

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        kind = item.meta[KIND]
        prior = options.prior_answers or {}
        if kind == AP:
            return AP_PROMPT.format(question=item.question, vocab=item.meta["vocab"])
        if kind == MD and item.depends_on is not None:
            return item.question.replace(ANSWER_MARK, prior.get(item.depends_on, ""))
        if kind == SG and item.meta["earlier"]:
            return SG_HISTORY.format(turns=_history(item, prior), question=item.question)
        if kind == PT:
            return item.question + ("" if options.official else PT_INSTRUCTION)
        return item.question

    def judge_prompt(self, item: Item, query: QueryPoint, reply: str) -> tuple[str, str] | None:
        if item.meta[KIND] not in JUDGED:
            return None
        return JUDGE_SYSTEM, JUDGE_USER.format(question=item.question, answer=query.answer,
                                               pred=reply)  # fmt: skip


def _has_marker(records: list[tuple[str, dict[str, Any]]]) -> bool:
    """A dialogue file whose questions name the answer before (MD's ``##ANSWER##``)."""
    for _, rec in records:
        for qa in rec.get("qa") or []:
            if isinstance(qa, dict) and ANSWER_MARK in str(qa.get("question", "")):
                return True
    return False


def _history(item: Item, prior: Mapping[str, str]) -> str:
    return "\n".join(
        f"User: {turn['question']}\nAssistant: {prior.get(turn['id'], '')}"
        for turn in item.meta["earlier"]
    )


def _labels(task: str) -> TaskLabels:
    return TaskLabels(category=CATEGORY[task], subcategory=TASKS[task], task=task)


def _single(row: Row, task: str, video: str | None) -> Item | None:
    """An AP, SI, PA or PT record as one item."""
    meta: dict[str, Any] = {KIND: task}
    time = 0.0
    if task == PT:
        question = _conversation(row)
        answer: str = ""  # the right reply is none (empty, or <2>)
    else:
        question = row.str("question")
        answer = ""
        if task == PA:
            window = _window(row)
            answer = f"[{window[0]:g}, {window[1]:g}]" if window else ""
            meta[WINDOW] = list(window) if window else None
        else:
            answer = row.str("answer", allow_empty=True) or ""
    if task == AP:
        vocab = row.data.get("vocab")
        if not isinstance(vocab, list | str) or not vocab:
            row.problem("vocab", "expected the vocabulary list of next steps")
        meta["vocab"] = vocab
    if task == SI:
        time = row.time("timestamp") or 0.0
    else:
        meta[QUERY_AT_END] = True  # no time in the release: asked at the video's end
        meta[AT_END] = True
    if not row.ok:
        return None
    return _text_item(row, task, video, question, time, answer, meta=meta)


def _text_item(
    row: Row,
    task: str,
    video: str | None,
    question: str | None,
    time: float,
    answer: str,
    **fields: Any,
) -> Item | None:
    """An OmniMMI question of ``task``, answered in text and asked once, at ``time``."""
    return build_item(
        row,
        benchmark="omnimmi",
        video=video,
        question=question,
        answer_type=AnswerType.TEXT,
        queries=(QueryPoint(index=0, time=time, answer=answer),),
        task=_labels(task),
        **fields,
    )


def _window(row: Row) -> tuple[float, float] | None:
    raw = row.data.get("answer")
    if not isinstance(raw, list) or len(raw) != 2:
        row.problem("answer", f"expected the alert window [start, end] in seconds, got {raw!r}")
        return None
    s, e = (check_time(row, "answer", v) for v in raw)
    if s is None or e is None:
        return None
    if e < s:
        row.problem("answer", f"expected start ≤ end, got [{s:g}, {e:g}]")
        return None
    return s, e


def _conversation(row: Row) -> str | None:
    """The turn-taking query as the online pipeline builds it: ``"{k}\\n{v}\\n"`` for every
    key and value of every entry."""
    convs = row.list("conversation")
    if convs is None:
        return None
    text = ""
    for k, conv in enumerate(convs):
        if not isinstance(conv, dict) or not all(isinstance(v, str) for v in conv.values()):
            row.problem(f"conversation[{k}]", "expected an object of speaker: utterance")
            return None
        text += "".join(f"{who}\n{said}\n" for who, said in conv.items())
    if not text.strip():
        row.problem("conversation", "expected at least one utterance")
        return None
    return text


def _span(row: Row, field: str, raw: Any) -> tuple[float, float] | None:
    m = _SPAN.match(raw) if isinstance(raw, str) else None
    try:
        s, e = (float(m.group(1)), float(m.group(2))) if m else (None, None)
    except ValueError:
        s = e = None
    if s is None or e is None or not 0 <= s <= e < float("inf"):
        row.problem(field, f'expected "start -- end" in seconds, got {raw!r}')
        return None
    return s, e


def _turns(
    row: Row, task: str, n: int, video: str | None, ids: IdRegistry
) -> list[tuple[Item, str]]:
    """An MD or SG dialogue: each turn one item, asked at the middle of its span, depending
    on the turn before."""
    qa = row.list("qa")
    if qa is None or video is None:
        return []
    if not qa:
        row.problem("qa", "expected at least one question")
        return []
    out: list[tuple[Item, str]] = []
    earlier: list[dict[str, Any]] = []
    previous: Item | None = None
    for k, turn in enumerate(qa):
        item_id = f"{task.lower()}-{n}-{k}"
        where = f"{row.location}.qa[{k}]"
        trow = Row(turn if isinstance(turn, dict) else {}, row.file, where, row.problems, item_id)
        if not isinstance(turn, dict):
            trow.problem("qa", "expected a question object")
            continue
        ids.check(trow, "qa", item_id)
        question = trow.str("question")
        answer = trow.str("answer", allow_empty=True)
        span = _span(trow, "timestamp", turn.get("timestamp"))
        if span is None or question is None or answer is None:
            continue
        t = (span[0] + span[1]) / 2  # online_inference_utils.py: (s + e) / 2
        if previous is not None and t < previous.queries[0].time:
            trow.problem("timestamp", "expected the dialogue's turns in time order")
            continue
        if task == MD and k == 0 and ANSWER_MARK in question:
            trow.problem("question", f"expected {ANSWER_MARK} only after the first turn")
            continue
        item = _text_item(
            trow,
            task,
            video,
            question,
            t,
            answer,
            depends_on=previous.id if previous else None,
            meta={KIND: task, "turn": k, "span": list(span), "earlier": list(earlier)},
        )
        if item is None:
            continue
        out.append((item, where))
        earlier.append({"id": item_id, "question": question})
        previous = item
    return out


__all__ = [
    "ANSWER_MARK",
    "FILES",
    "JUDGED",
    "OFFICIAL_SCORER",
    "TASKS",
    "OmniMMIAdapter",
    "file_task",
    "task_of_keys",
]
