"""VSI-Bench (``nyu-visionx/VSI-Bench``): questions asked at the end of the video.

As its dataset card publishes it: ``test-00000-of-00001.parquet`` (or the same records as
``test.jsonl`` / a JSON array) with columns ``id, dataset, scene_name, question_type, question,
options, ground_truth`` (``options`` null for numeric types, ``ground_truth`` a string; extra
columns of later versions are ignored); the video
is ``<videos>/<dataset>/<scene_name>.mp4``.  The query time is the end of the video, which a
benchmark file cannot know.  Items are therefore loaded with query time 0.0 and
``meta["query_at_end"] = True``; :func:`streamspatial.bench.registry.load_benchmark` replaces
that with the video's duration when it is given ``videos``.  A runner that somehow skipped the
resolution would show the model no frames at all — it fails closed, never showing the future.
Numeric question types are scored with MRA, the others by accuracy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels

from .. import prompts
from .._items import IdRegistry, build_item, load_items, options_from_list
from .._rows import Row
from ..base import QUERY_AT_END, BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, greedy

COLUMNS = ("id", "dataset", "scene_name", "question_type", "question", "options", "ground_truth")
NUMERIC_TYPES = (
    "object_counting",
    "object_abs_distance",
    "object_size_estimation",
    "room_size_estimation",
)


class VSIBenchAdapter(BenchmarkAdapter):
    title = "VSI-Bench"
    short_title = "VSI"
    scoring = ScoringSpec(
        official="vision-x-nyu/thinking-in-space lmms_eval/tasks/vsibench/utils.py",
    )
    generation = greedy(
        16,
        "lmms-eval tasks/vsibench/_default_template_yaml generation_kwargs: max_new_tokens 16, "
        "temperature 0, do_sample false",
    )

    keys_all = frozenset({"scene_name", "ground_truth", "question_type"})

    def load(self, path: Path) -> LoadResult:
        ids = IdRegistry()
        return load_items(path, lambda row: _item(row, ids), COLUMNS)

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # Both scorers send the prompts of VSI-Bench's lmms-eval task (vsibench.yaml).
        return prompts.vsibench_prompt(
            item.question,
            item.options,
            numeric=item.answer_type is AnswerType.NUMBER,
            text_only=options.text_only,
        )


def _item(row: Row, ids: IdRegistry) -> Item | None:
    ids.item_id(row)  # the id the item takes (build_item), checked unique
    dataset = row.str("dataset")
    scene = row.str("scene_name")
    qtype = row.str("question_type")
    question = row.str("question")
    numeric = qtype in NUMERIC_TYPES
    truth = row.data.get("ground_truth")
    options: Any = ()
    answer: float | str | None = None
    if numeric:
        answer = _number(truth)
        if answer is None:
            row.problem("ground_truth", f"expected a number for {qtype}, got {truth!r}")
    else:
        raw = row.list("options")
        if raw is not None:
            options = options_from_list(row, "options", raw)
        letters = "".join(o.letter for o in options) if options else ""
        if not isinstance(truth, str) or truth.strip().upper() not in (letters or "?"):
            row.problem(
                "ground_truth", f"expected a letter among the options {letters}, got {truth!r}"
            )
        else:
            answer = truth.strip().upper()
    if not row.ok:
        return None
    return build_item(
        row,
        benchmark="vsibench",
        video=f"{dataset}/{scene}.mp4",
        question=question,
        answer_type=AnswerType.NUMBER if numeric else AnswerType.CHOICE,
        options=options or (),
        queries=(QueryPoint(index=0, time=0.0, answer=answer),),
        task=TaskLabels(category="numeric" if numeric else "multiple-choice", task=qtype),
        source=dataset,
        meta={QUERY_AT_END: True, "scene_name": scene},
    )


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        f = float(v)
    elif isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            return None
    else:
        return None
    return f if f == f and f not in (float("inf"), float("-inf")) else None


def at_end(item: Item, duration: float) -> Item:
    """The item with its query time set to the end of its video."""
    return VSIBenchAdapter().with_duration(item, duration)


__all__ = ["NUMERIC_TYPES", "QUERY_AT_END", "VSIBenchAdapter", "at_end"]
