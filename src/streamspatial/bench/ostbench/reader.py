"""OST-Bench (rbler1234/OST-Bench): ``OST_bench.json`` and its per-turn images, as released.

One JSON array of turns ``{scan_id, system_prompt, new_observations, user_message, type,
answer, option}``.  The official inference (``models/*_baseline.py``) groups the turns of a
scan, in file order, into one multi-turn dialogue: each turn sends only its
``new_observations`` (images under the image root, ``data/images``) followed by its
``user_message``; the model's own earlier replies stay in the chat.  Here each turn is an item
(``"{scan_id}#{k}"``, depending on the turn before it), and a scan's images, in the order its
turns add them, are its stream at one image per second: turn *k* is asked at the second of its
last image, so it sees exactly the images of turns 1…k.  Pass the image root as ``--videos``.

Question types (``type``) decide the answer: ``…(Judgement…)`` picks one of ``option`` (the
answer, quotes removed, must be one of them, as the evaluator asserts), ``…(Estimation)`` is a
number, ``…(Counting)`` and ``…(Temporal-loc…)`` whole numbers; any other type (the
evaluator's ``skip_type`` "None") is asked but never scored.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

from .._files import read_json_records
from .._items import IdRegistry, build_item
from .._rows import Row
from ..base import (
    BenchmarkAdapter,
    Dialogue,
    DialogueTurn,
    GenerationSettings,
    LoadResult,
    PromptOptions,
    ScoringSpec,
)

OFFICIAL_SCORER = "rbler1234/OST-Bench evaluation/OST_evaluator.py"
FORMATS = ("Judgement", "Estimation", "Counting", "Temporal-loc")
SCORED = "scored"  # meta key: False for the turns the evaluator skips
_TYPE = re.compile(r"^(?P<dim>[^-(]+)(?:-[^(]*)?\((?P<fmt>[A-Za-z-]+?)\d*\)$")


def answer_format(qtype: str) -> str | None:
    """The evaluator's dispatch on ``type``: the first format named in it, else None."""
    if "Estimation" in qtype:
        return "Estimation"
    if "Judgement" in qtype:
        return "Judgement"
    if "Counting" in qtype or "Temporal-loc" in qtype:
        return "Counting" if "Counting" in qtype else "Temporal-loc"
    return None


class OSTBenchAdapter(BenchmarkAdapter):
    title = "OST-Bench"
    short_title = "OST"
    scoring = ScoringSpec(official=OFFICIAL_SCORER)
    generation = GenerationSettings(
        max_tokens=1000,
        source="rbler1234/OST-Bench models/utils/openai_api.py: max_tokens 1000, no temperature "
        "(the server's own)",
    )

    keys_all = frozenset({"scan_id", "new_observations", "user_message"})

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        scans: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        for loc, rec in read_json_records(path, result.problems):
            row = Row(rec, str(path), loc, result.problems)
            scan = row.ident("scan_id")
            images = row.list("new_observations")
            if images is not None and not all(isinstance(i, str) and i for i in images):
                row.problem("new_observations", "expected image paths")
            if scan is not None and row.ok:
                scans[scan].append((loc, rec))
        ids = IdRegistry()
        for scan, turns in scans.items():
            for item, loc in _dialogue(str(path), scan, turns, ids, result):
                result.add(item, loc)
        return result

    def video_path(self, item: Item, videos: Path) -> Path:
        return videos / item.video

    def frame_files(self, item: Item, videos: Path) -> tuple[Path, ...]:
        return tuple(videos / image for image in item.meta["images"])

    def dialogue(self, item: Item) -> Dialogue:
        earlier = tuple(DialogueTurn(**turn) for turn in item.meta["earlier"])
        return Dialogue(earlier=earlier, start=float(item.meta["start"]))

    def system_prompt(self, item: Item) -> str | None:
        return item.meta.get("system") or None

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # The released user message under both scorers: it carries its own instructions.
        return item.question


def _dialogue(
    file: str, scan: str, turns: list[tuple[str, dict[str, Any]]], ids: IdRegistry, result: Any
) -> list[tuple[Item, str]]:
    """The scan's turns as items, each depending on the one before."""
    images: list[str] = [img for _, rec in turns for img in rec["new_observations"]]
    out: list[tuple[Item, str]] = []
    earlier: list[dict[str, Any]] = []
    seen = 0
    previous: str | None = None
    for k, (loc, rec) in enumerate(turns):
        item_id = f"{scan}#{k}"
        row = Row(rec, file, loc, result.problems, item_id)
        ids.check(row, "scan_id", item_id)
        start = seen
        seen += len(rec["new_observations"])
        t = float(max(seen - 1, 0))
        prompt = row.str("user_message")
        qtype = row.str("type")
        system = row.str("system_prompt", required=False, allow_empty=True)
        if seen == 0:
            row.problem("new_observations", "expected the first turn to show at least one image")
        answer = _answer(row, qtype)
        if not row.ok or answer is None or prompt is None or qtype is None:
            continue
        answer_type, value, options, scored = answer
        fmt = answer_format(qtype)
        m = _TYPE.match(qtype)
        item = build_item(
            row,
            benchmark="ostbench",
            video=scan,
            question=prompt,
            answer_type=answer_type,
            options=options,
            queries=(QueryPoint(index=0, time=t, answer=value),),
            task=TaskLabels(category=m.group("dim") if m else None, subcategory=fmt, task=qtype),
            depends_on=previous,
            meta={
                "images": images,
                "start": float(start),
                "earlier": list(earlier),
                "system": system,
                SCORED: scored,
            },
        )
        if item is None:
            continue
        out.append((item, loc))
        earlier.append({"item_id": item_id, "start": float(start), "end": t, "prompt": prompt})
        previous = item_id
    return out


def _answer(
    row: Row, qtype: str | None
) -> tuple[AnswerType, str | float, tuple[Option, ...], bool] | None:
    """(answer type, answer, options, scored) as the evaluator reads the turn."""
    if qtype is None:
        return None
    fmt = answer_format(qtype)
    raw = row.data.get("answer")
    if fmt is None:  # skip_type: asked, never scored
        return AnswerType.NUMBER, 0.0, (), False
    if fmt == "Judgement":
        options = row.list("option")
        if options is None:
            return None
        if not 2 <= len(options) <= len(LETTERS) or not all(isinstance(o, str) for o in options):
            row.problem("option", f"expected 2–{len(LETTERS)} option texts")
            return None
        truth = str(raw).replace('"', "")
        if truth not in options:
            row.problem("answer", f"expected one of the options {options}, got {raw!r}")
            return None
        opts = tuple(Option(letter=LETTERS[i], text=o) for i, o in enumerate(options))
        return AnswerType.CHOICE, LETTERS[options.index(truth)], opts, True
    try:  # the evaluator's float(gt) / int(gt)
        if isinstance(raw, bool):
            raise TypeError
        value = float(raw) if fmt == "Estimation" else float(int(raw))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        row.problem("answer", f"expected a {'number' if fmt == 'Estimation' else 'whole number'}"
                    f" for {qtype}, got {raw!r}")  # fmt: skip
        return None
    return AnswerType.NUMBER, value, (), True


__all__ = ["FORMATS", "OFFICIAL_SCORER", "SCORED", "OSTBenchAdapter", "answer_format"]
