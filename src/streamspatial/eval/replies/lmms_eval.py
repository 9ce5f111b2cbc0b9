"""lmms-eval's ``--log_samples`` files: ``<output_path>/<model>/<date>_samples_<task>.jsonl``.

One JSON line per document, as ``EvaluationTracker.save_results_samples`` writes it:
``doc_id``, ``target``, ``filtered_resps`` (the reply the task's metric read; ``resps`` when it
differs), the task's metric values (``process_results``), and in older versions the ``doc``
itself.  Newer versions drop ``doc``, so the document is taken from ``doc`` when present, else
from the metric that carries it: every task read here returns its document from
``process_results`` (VSI-Bench's ``vsibench_score``; OVO-Bench's ``back_real_acc`` record and
``forward_acc`` document with each probe's ``response``; the Cambrian-S tasks' document with
its ``prediction``).

Tasks read, those that exist in both harnesses (a file of another task is refused):

* ``vsibench``, ``vsibench_debiased``, ``vsibench_pruned`` → VSI-Bench, by the document's
  ``id``;
* ``ovo_backward``, ``ovo_realtime``, ``ovo_forward`` (the ``ovobench`` group) → OVO-Bench,
  read as its own results records (:func:`.ovobench.ovobench_replies`);
* ``cambrians_vsr_*``, ``cambrians_vsc_*``, ``cambrians_vsc_streaming_*`` (Cambrian-S's fork)
  → VSI-SUPER, by ``id`` or else by video, question and split; a streaming reply is the JSON
  list of one count per query time (``json.loads(results[0])``), split into its query points.

The model is the folder the file sits in (lmms-eval's ``model_name_sanitized``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamspatial.bench.registry import HOMES
from streamspatial.core.errors import Problem

from .ovobench import ovobench_replies
from .types import Release, Reply, ReplySource, first_json_line, json_lines

_FILE = re.compile(r"(?:^|_)samples_(?P<task>[A-Za-z0-9_\-]+)\.jsonl$")
# The tasks whose sample's doc names the release's question by ``doc.id``, as each benchmark's
# folder declares them (``Benchmark.lmms_eval_tasks``: VSI-Bench's).
ID_TASKS: dict[str, str] = {t: b.name for b in HOMES.values() for t in b.lmms_eval_tasks}
# Task (or task-name prefix) -> the benchmark format whose release it answers.
TASKS: dict[str, str] = {
    **ID_TASKS,
    "ovo_backward": "ovobench",
    "ovo_realtime": "ovobench",
    "ovo_forward": "ovobench",
}
# The tasks whose samples are OVO-Bench results records (read by the OVO-Bench importer).
OVO_TASKS = frozenset({"ovo_backward", "ovo_realtime", "ovo_forward"})
TASK_PREFIXES: dict[str, str] = {"cambrians_vsr": "vsisuper", "cambrians_vsc": "vsisuper"}
_DOC_METRICS = ("vsibench_score", "back_real_acc", "forward_acc", "score")


def task_of(path: Path) -> str | None:
    m = _FILE.search(path.name)
    return m.group("task") if m else None


def benchmark_of(task: str) -> str | None:
    """The benchmark format a task answers; None for a task no adapter reads."""
    if task in TASKS:
        return TASKS[task]
    return next((b for p, b in TASK_PREFIXES.items() if task.startswith(p)), None)


class LmmsEvalSamples(ReplySource):
    name = "lmms-eval"
    title = "lmms-eval --log_samples samples_<task>.jsonl"

    def sniff(self, path: Path) -> bool:
        if task_of(path) is None:
            return False
        line = first_json_line(path)
        return isinstance(line, dict) and "doc_id" in line

    def read(self, path: Path, release: Release, problems: list[Problem]) -> Iterator[Reply]:
        file = str(path)
        task = task_of(path) or ""
        benchmark = benchmark_of(task)
        if benchmark is None:
            known = ", ".join([*TASKS, *(f"{p}_*" for p in TASK_PREFIXES)])
            problems.append(Problem(file, "", f"task {task!r}: expected one of {known}"))
            return
        if benchmark != release.adapter.name:
            problems.append(
                Problem(
                    file,
                    "",
                    f"task {task!r} answers {benchmark}, but the "
                    f"--data file is {release.adapter.title}",
                )
            )
            return
        for location, sample in json_lines(path, problems):
            if not isinstance(sample, dict) or "doc_id" not in sample:
                problems.append(
                    Problem(file, "doc_id", "expected a sample with doc_id", location=location)
                )
                continue
            yield from _sample_replies(task, benchmark, sample, file, location, problems)

    def model_name(self, path: Path) -> str | None:
        return path.parent.name or None


def _sample_replies(
    task: str,
    benchmark: str,
    sample: dict[str, Any],
    file: str,
    location: str,
    problems: list[Problem],
) -> Iterator[Reply]:
    doc = _doc(sample)
    if doc is None:
        problems.append(
            Problem(
                file,
                "doc",
                "expected the sample's doc, or a metric holding it (lmms-eval's process_results)",
                location=location,
            )
        )
        return
    if task in OVO_TASKS:
        yield from ovobench_replies(_ovo_record(doc, sample), file, location, problems)
        return
    reply = _reply(sample, doc)
    if task in ID_TASKS:
        if "id" not in doc:
            title = HOMES[benchmark].title
            problems.append(Problem(file, "doc.id", f"expected the {title} id", location=location))
            return
        yield Reply(
            file,
            location,
            reply,
            record=str(doc["id"]),
            truth=_truth(doc, "ground_truth"),
            question=_text(doc.get("question")),
            id_field="doc.id",
        )
        return
    yield from _vsisuper(doc, reply, file, location, problems)


def _doc(sample: dict[str, Any]) -> dict[str, Any] | None:
    doc = sample.get("doc")
    if isinstance(doc, dict):
        return doc
    for key in _DOC_METRICS:
        value = sample.get(key)
        if isinstance(value, dict):
            return value
    return None


def _reply(sample: dict[str, Any], doc: dict[str, Any]) -> str | None:
    """``filtered_resps`` unwrapped (``results[0]`` of the task), else the document's
    ``prediction``."""
    value: Any = sample.get("filtered_resps", sample.get("resps"))
    while isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, str):
        return value
    prediction = doc.get("prediction")
    return prediction if isinstance(prediction, str) else None


def _ovo_record(doc: dict[str, Any], sample: dict[str, Any]) -> dict[str, Any]:
    """The OVO-Bench results record of a sample: the metric's own, or one made from the doc
    and the reply (``ovo_back_real_process_results`` / ``ovo_forward_process_results``)."""
    if "response" in doc or any(
        "response" in p for p in doc.get("test_info") or [] if isinstance(p, dict)
    ):
        return doc
    replies: Any = sample.get("filtered_resps", sample.get("resps"))
    if "test_info" in doc:
        while isinstance(replies, list) and len(replies) == 1 and isinstance(replies[0], list):
            replies = replies[0]
        rounds = replies if isinstance(replies, list) else []
        info = [
            {**p, "response": rounds[i] if i < len(rounds) else None}
            for i, p in enumerate(doc["test_info"])
            if isinstance(p, dict)
        ]
        return {**doc, "test_info": info}
    while isinstance(replies, list) and replies:
        replies = replies[0]
    truth = doc.get("gt")
    letter = chr(65 + truth) if isinstance(truth, int) and not isinstance(truth, bool) else None
    text = replies.strip() if isinstance(replies, str) else None
    return {**doc, "response": text, "ground_truth": letter}


def _vsisuper(
    doc: dict[str, Any], reply: str | None, file: str, location: str, problems: list[Problem]
) -> Iterator[Reply]:
    split = doc.get("split", doc.get("type"))
    naming: dict[str, Any]
    if "id" in doc:
        naming = {"record": str(doc["id"]), "id_field": "doc.id"}
    else:
        naming = {
            "match": (
                ("video", str(doc.get("video_path"))),
                ("question", str(doc.get("question"))),
                ("task", str(split)),
            )
        }
    if "query_times" not in doc:
        yield Reply(file, location, reply, truth=_truth(doc, "answer"), **naming)
        return
    try:
        counts = json.loads(reply or "")
    except ValueError:
        counts = None
    answers = doc.get("answers") if isinstance(doc.get("answers"), list) else []
    if not isinstance(counts, list) or len(counts) != len(doc["query_times"]):
        problems.append(
            Problem(
                file,
                "filtered_resps",
                "expected a JSON list of one count per "
                f"query time ({len(doc['query_times'])}); the task's json.loads "
                f"reads {reply!r}",
                location=location,
            )
        )
        return
    for k, count in enumerate(counts):
        truth = answers[k] if k < len(answers) else None
        yield Reply(
            file,
            f"{location}[{k}]",
            json.dumps(count),
            query_index=k,
            truth=_number(truth),
            **naming,
        )


def _truth(doc: dict[str, Any], key: str) -> str | float | None:
    value = doc.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    return value.strip() if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


__all__ = ["TASKS", "TASK_PREFIXES", "LmmsEvalSamples", "benchmark_of", "task_of"]
