"""VSI-SUPER (Cambrian-S): ``nyu-visionx/VSI-SUPER-Recall`` and ``VSI-SUPER-Count`` as released.

Rows as the Cambrian-S lmms-eval tasks read them (``cambrians_vsr``, ``cambrians_vsc``,
``cambrians_vsc_streaming`` ``utils.py``), from parquet, JSONL or a JSON array:

* Recall: ``video_path, question, options ["A. …"], answer`` (a letter), ``type`` (the
  duration: ``10mins`` … ``240mins``), asked once at the end of the 10–240-minute video;
* Count: ``video_path, question, answer`` (a number), ``split`` (``10mins``, ``30mins``), asked
  at the end;
* Count, streaming: ``split`` ``…_streaming`` with ``query_times`` (seconds) and ``answers``:
  one query point per time, each answered from the stream so far.

Videos resolve as ``doc_to_visual`` resolves them, ``<videos>/<video_path>``.  End-of-video
query times are resolved from the video (as for VSI-Bench).  Prompts are the tasks'
``doc_to_text`` under both scorers.
"""

from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from .._items import IdRegistry, build_item, load_items, options_from_list
from .._rows import Row, check_number, check_time
from ..base import QUERY_AT_END, BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, greedy

RECALL, COUNT = "Recall", "Count"
STREAMING = "_streaming"
RECALL_PROMPT = "{}\nOptions:\n{}\nAnswer with the option's letter from the given choices directly."
COUNT_PROMPT = (
    "These are frames of a video.\n{}\nPlease answer the question using a single word or phrase."
)
OFFICIAL_SCORER = "cambrian-mllm/cambrian-s lmms-eval tasks cambrians_vsr, cambrians_vsc utils.py"


class VSISuperAdapter(BenchmarkAdapter):
    title = "VSI-SUPER"
    short_title = "VSI-S"
    scoring = ScoringSpec(official=OFFICIAL_SCORER)
    generation = greedy(
        16,
        "cambrian-s lmms-eval tasks cambrians_vsr, cambrians_vsc yaml generation_kwargs: "
        "max_new_tokens 16, temperature 0, do_sample false",
    )

    keys_all = frozenset({"video_path", "question"})
    keys_any = frozenset({"type", "split"})

    def load(self, path: Path) -> LoadResult:
        ids, n = IdRegistry(), count()  # n: the record's place, which names an id-less row
        return load_items(path, lambda row: _item(row, ids, next(n)), ("video_path", "question"))

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        question = item.question.strip()
        if item.task.category == RECALL:
            return RECALL_PROMPT.format(question, "\n".join(item.meta["options"]))
        return COUNT_PROMPT.format(question)


def _item(row: Row, ids: IdRegistry, n: int) -> Item | None:
    split = row.data.get("type") if "type" in row.data else row.data.get("split")
    if not isinstance(split, str) or not split.strip():
        row.problem("type" if "type" in row.data else "split", "expected the split's name")
        return None
    item_id = row.ident("id") if row.has("id") else f"{split}-{n}"
    row.item_id = item_id
    if item_id is None:
        return None
    ids.check(row, "id", item_id)
    video = row.str("video_path")
    question = row.str("question")
    common: dict[str, Any] = {
        "benchmark": "vsisuper",
        "video": video,
        "question": question,
        "source": split,
    }
    if "options" in row.data:  # Recall
        raw = row.list("options")
        options = options_from_list(row, "options", raw) if raw is not None else None
        answer = row.str("answer")
        letters = "".join(o.letter for o in options or ())
        if answer is not None and answer.strip().upper() not in (letters or "?"):
            row.problem("answer", f"expected a letter among {letters}, got {answer!r}")
        if not row.ok or options is None or answer is None:
            return None
        return build_item(
            row, **common, answer_type=AnswerType.CHOICE, options=options,
            queries=(QueryPoint(index=0, time=0.0, answer=answer.strip().upper()),),
            task=TaskLabels(category=RECALL, task=split),
            meta={QUERY_AT_END: True, "options": raw},
        )  # fmt: skip
    if split.endswith(STREAMING):
        return _streaming(row, common, split)
    answer = row.number("answer")
    if not row.ok or answer is None:
        return None
    return build_item(
        row, **common, answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=0.0, answer=answer),),
        task=TaskLabels(category=COUNT, task=split), meta={QUERY_AT_END: True},
    )  # fmt: skip


def _streaming(row: Row, common: dict[str, Any], split: str) -> Item | None:
    times = row.list("query_times")
    answers = row.list("answers")
    if times is not None and answers is not None and len(times) != len(answers):
        row.problem("answers", f"expected one answer per query time ({len(times)}), got "
                    f"{len(answers)}")  # fmt: skip
    if not row.ok or times is None or answers is None:
        return None
    queries = []
    for i, (raw_t, raw_a) in enumerate(zip(times, answers, strict=True)):
        t = check_time(row, f"query_times[{i}]", raw_t)
        a = check_number(row, f"answers[{i}]", raw_a, what="a count")
        if t is not None and a is not None:
            queries.append(QueryPoint(index=i, time=t, answer=a))
    if not row.ok or not queries:
        if row.ok:
            row.problem("query_times", "expected at least one query time")
        return None
    return build_item(
        row, **common, answer_type=AnswerType.NUMBER, queries=tuple(queries),
        task=TaskLabels(category=COUNT, task=split),
    )  # fmt: skip


__all__ = ["COUNT", "OFFICIAL_SCORER", "RECALL", "STREAMING", "VSISuperAdapter"]
