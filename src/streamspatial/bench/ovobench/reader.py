"""OVO-Bench (JoeLeelyf/OVO-Bench): ``data/ovo_bench_new.json`` as released.

One JSON array of annotations.  Backward-tracing (EPM, ASI, HLD) and real-time (STU, OJR, ATR,
ACR, OCR, FPD) items are multiple choice: ``{id, task, video, realtime, question, options,
gt}`` — ``realtime`` in seconds (int or float), the correct letter ``chr(65 + gt)``; their
``answer`` text is ignored, as the official code ignores it (it disagrees with
``options[gt]`` in many items).  Forward-active-responding items (REC, SSR, CRR) carry a
``test_info`` list whose every entry is its own probe at its own ``realtime``: REC
``{realtime, count}`` counts how many times "they" did ``activity``; SSR ``{realtime, step,
type}`` and CRR ``{realtime, type}`` (with the item's ``question``) are yes/no (``type`` 1 is
"Yes").  Each probe is one item here, ``"{id}_{i}"`` — the name of its official clip.

Videos resolve as ``inference.py`` resolves them: ``<videos>/<video>``.  The official clips of
forward probes are cut by the repository's ``utils/chunk_videos.py`` to ``[0, ⌈realtime⌉]``,
up to 0.99 s after the probe; ``run --clips official`` reproduces that (:meth:`clip_end`), the
default never shows a frame after the probe.  Prompts are the repository's (``constant.py``)
under both scorers.
"""

from __future__ import annotations

import math
from pathlib import Path

from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

from .._items import IdRegistry, build_item, load_items
from .._rows import Row, check_number, check_time
from ..base import BenchmarkAdapter, GenerationSettings, LoadResult, PromptOptions, ScoringSpec

# inference.py's three modes and their tasks, in the order OVO-Bench's Table 2 prints them.
MODES: dict[str, tuple[str, ...]] = {
    "Realtime": ("OCR", "ACR", "ATR", "STU", "FPD", "OJR"),
    "Backward": ("EPM", "ASI", "HLD"),
    "Forward": ("REC", "SSR", "CRR"),
}
MODE_OF = {task: mode for mode, tasks in MODES.items() for task in tasks}
YES_NO = (Option(letter="A", text="Yes"), Option(letter="B", text="No"))
FORWARD = "Forward"

# constant.py of the official repository, character for character (trailing spaces included).
BR_PROMPT = (
    "\nQuestion: {}\nOptions:\n{}\n\nRespond only with the letter corresponding to your chosen "
    "option (e.g., A, B, C). \nDo not include any additional text or explanation in your "
    "response.\n"
)
REC_PROMPT = (
    "\nYou're watching a video in which people may perform a certain type of action "
    "repetively. \nThe person performing this kind of action are referred to as 'they' in the "
    "following statement.\nYou're task is to count how many times have different people in "
    "the video perform this kind of action in total.\nOne complete motion counts as one. \n"
    "Now, answer the following question: {}\nProvide your answer as a single number (e.g., 0, "
    "1, 2, 3…) indicating the total count.\nDo not include any additional text or explanation "
    "in your response.\n"
)
SSR_PROMPT = (
    "\nYou're watching a tutorial video which contain a sequential of steps. \nThe following "
    "is one step from the whole procedures: \n{}\nYour task is to determine if the man or "
    "woman in the video is currently performing this step.\nAnswer only with “Yes” or “No”.\n"
    "Do not include any additional text or explanation in your response.\n"
)
CRR_PROMPT = (
    "\nYou're responsible of answering questions based on the video content. \nThe following "
    "question are relevant to the latest frames, i.e. the end of the video.\n{}\nDecide "
    "whether existing visual content, especially latest frames, i.e. frames that near the end "
    "of the video, provide enough information for answering the question.\nAnswer only with "
    "“Yes” or “No”.\nDo not include any additional text or explanation in your response.\n"
)
OFFICIAL_SCORER = "JoeLeelyf/OVO-Bench utils/OVOBenchScore.py"


class OVOBenchAdapter(BenchmarkAdapter):
    title = "OVO-Bench"
    short_title = "OVO"
    headline_metric = "Total Avg."
    scoring = ScoringSpec(number_metric="exact", official=OFFICIAL_SCORER)
    generation = GenerationSettings(
        temperature=0.1,
        top_p=0.001,
        max_tokens=256,
        source="JoeLeelyf/OVO-Bench models/QWen2VL.py (its vLLM path): temperature 0.1, top_p "
        "0.001, max_tokens 256",
    )

    keys_all = frozenset({"id", "task", "video"})
    keys_any = frozenset({"gt", "test_info"})

    def load(self, path: Path) -> LoadResult:
        ids = IdRegistry()
        return load_items(path, lambda row: _items(row, ids))

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # The repository's prompts under both scorers (it publishes no other wording).
        task = item.task.task
        if task == "REC":
            return REC_PROMPT.format(item.question)
        if task == "SSR":
            return SSR_PROMPT.format(item.question)
        if task == "CRR":
            return CRR_PROMPT.format(item.question)
        listed = "; ".join(f"{o.letter}. {o.text}" for o in item.options) + ";"
        return BR_PROMPT.format(item.question, listed)

    def record_id(self, item: Item) -> str:
        """The release's ``id``: a forward item's probes (``"{id}_{i}"``) share their item's."""
        return str(item.meta.get("ovo_id", item.id))

    def clip_end(self, item: Item, query: QueryPoint) -> float:
        """``chunk_videos.py`` cuts a forward probe's clip at ``⌈realtime⌉``; backward and
        real-time clips end at ``realtime``."""
        return float(math.ceil(query.time)) if item.task.category == FORWARD else query.time


def _items(row: Row, ids: IdRegistry) -> list[Item]:
    item_id = row.ident("id")
    row.item_id = item_id
    task = row.str("task")
    video = row.str("video")
    if task is not None and task not in MODE_OF:
        row.problem("task", f"expected one of {', '.join(MODE_OF)}, got {task!r}")
    if item_id is None or task not in MODE_OF or video is None:
        return []
    ids.check(row, "id", item_id)
    if MODE_OF[task] != FORWARD:
        item = _choice_item(row, item_id, task, video)
        return [item] if item is not None else []
    return _probes(row, item_id, task, video)


def _choice_item(row: Row, item_id: str, task: str, video: str) -> Item | None:
    question = row.str("question")
    options = row.list("options")
    realtime = row.time("realtime")
    gt = row.int("gt", minimum=0)
    opts: tuple[Option, ...] = ()
    if options is not None:
        if not 2 <= len(options) <= len(LETTERS):
            row.problem("options", f"expected 2–{len(LETTERS)} options, got {len(options)}")
        elif not all(isinstance(o, str) and o.strip() for o in options):
            row.problem("options", "expected option texts")
        else:
            opts = tuple(Option(letter=LETTERS[i], text=o) for i, o in enumerate(options))
    if opts and gt is not None and gt >= len(opts):
        row.problem("gt", f"expected an option index 0–{len(opts) - 1}, got {gt}")
    if not row.ok or realtime is None or gt is None:
        return None
    return build_item(
        row,
        benchmark="ovobench",
        video=video,
        question=question,
        answer_type=AnswerType.CHOICE,
        options=opts,
        queries=(QueryPoint(index=0, time=realtime, answer=chr(65 + gt)),),
        task=TaskLabels(category=MODE_OF[task], task=task),
        meta={"ovo_id": row.data["id"]},
    )


def _probes(row: Row, item_id: str, task: str, video: str) -> list[Item]:
    """One item per ``test_info`` entry of a forward item."""
    activity = row.str("activity") if task == "REC" else None
    question = row.str("question") if task == "CRR" else None
    probes = row.list("test_info")
    if probes is not None and not probes:
        row.problem("test_info", "expected at least one probe")
    if not row.ok or probes is None:
        return []
    items = []
    for i, field, probe in row.objects("test_info", probes, "expected an object with realtime"):
        t = check_time(row, f"{field}.realtime", probe.get("realtime"))
        if task == "REC":
            count = check_number(row, f"{field}.count", probe.get("count"), what="a count")
            if count is not None and (count < 0 or not count.is_integer()):
                row.problem(f"{field}.count", f"expected a whole count ≥ 0, got {count:g}")
                count = None
            text, answer, options = f"How many times did they {activity}?", count, ()
        else:
            kind = probe.get("type")
            if kind not in (0, 1) or isinstance(kind, bool):
                row.problem(f"{field}.type", f"expected 0 (No) or 1 (Yes), got {kind!r}")
                kind = None
            step = probe.get("step") if task == "SSR" else question
            if task == "SSR" and (not isinstance(step, str) or not step.strip()):
                row.problem(f"{field}.step", "expected the step's text")
                step = None
            text, options = step, YES_NO
            answer = None if kind is None else ("A" if kind == 1 else "B")
        if t is None or answer is None or text is None:
            continue
        item = build_item(
            row,
            benchmark="ovobench",
            id=f"{item_id}_{i}",
            video=video,
            question=text,
            answer_type=AnswerType.NUMBER if task == "REC" else AnswerType.CHOICE,
            options=options,
            queries=(QueryPoint(index=0, time=t, answer=answer),),
            task=TaskLabels(category=FORWARD, task=task),
            meta={"ovo_id": row.data["id"], "probe": i},
        )
        if item is not None:
            items.append(item)
    return items if row.ok else []


# -- writing --------------------------------------------------------------------------------


__all__ = [
    "MODES",
    "OFFICIAL_SCORER",
    "OVOBenchAdapter",
]
