"""MMSI-Video-Bench (``InternRobotics/MMSI-Video-Bench``): ``data/mmsivideo.json`` as released.

A JSON list of records ``{id, type, ori_question, ref_images, video_list [{path, start, end,
base_fps}], frames_list [[jpg]], system_prompt, task_prompt, user_prompt, format_prompt,
ground_truth}``.  One question spans several clips and reference images: the official loader
(``dataset.py`` ``MMSILOADER``) reads each clip's released frames (``data/frames/<jpg>``),
spreads its frame budget (Uniform-50) over the clips in proportion, and the API wrapper
(``models/api.py``) replaces each ``<video>`` of ``task + user + format`` with its clip's
frames and each ``<image>`` with a reference image (``data/ref_images/<image>``); the system
prompt goes as the system message.

Represented as **one stream**: every clip's frames in listed order, then the reference
images, one image a second (:meth:`MMSIVideoAdapter.frame_files`; ``--videos`` is the data
root holding ``frames/`` and ``ref_images/``), with each clip's ``[start, end]`` seconds and
frame span kept in ``meta["clips"]``.  :meth:`MMSIVideoAdapter.clips` says which frames each
placeholder takes.  The question is asked once, after the whole stream: the clips are shown
whole, as the authors ran them, and the benchmark is marked offline (``protocol``).

The options live in the question text; they are read from its ``A. …`` / ``(A) …`` lines where
it has them, else the six letters A–F the official reader accepts stand for them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels

from .._items import IdRegistry, build_item, load_items
from .._rows import Row
from ..base import (
    BenchmarkAdapter,
    Clips,
    GenerationSettings,
    LoadResult,
    PromptOptions,
    ScoringSpec,
)

OFFICIAL_SCORER = "InternRobotics/MMSI-Video-Bench evaluation.py extract_answer and its printer"
VIDEO, IMAGE = "<video>", "<image>"
LETTERS = "ABCDEF"  # evaluation.py: assert pred in ['A','B','C','D','E','F']
# evaluation.py ORDER_LIST (bench "main"): the 13 types it prints, spelled as released.
TYPES = (
    "(Cross-Video) Memoery Update",
    "(Cross-Video) Multi-View Integration",
    "Planning",
    "Prediction",
    "(Motion Understanding) Camera Motion",
    "(Motion Understanding) Instance Motion",
    "(Motion Understanding) Interactive Motion",
    "(Spatial Construction) Instance-Instance Spatial Relationship",
    "(Spatial Construction) Instance-Scene Spatial Relationship",
    "(Spatial Construction) Scene-Scene Spatial Relationship",
    "(Spatial Construction) Instance/Scene Attribute",
    "(Spatial Construction) Camera-Instance Spatial Relationship",
    "(Spatial Construction) Camera-Scene Spatial Relationship",
)
_OPTION_LINE = re.compile(r"^\s*\(?([A-F])[.):]\s*(\S.*?)\s*$", re.MULTILINE)


def option_texts(text: str) -> dict[str, str]:
    """The ``A. …`` / ``(A) …`` / ``A: …`` lines of a question, first of each letter."""
    out: dict[str, str] = {}
    for m in _OPTION_LINE.finditer(text):
        out.setdefault(m.group(1), m.group(2))
    return out


class MMSIVideoAdapter(BenchmarkAdapter):
    title = "MMSI-Video-Bench"
    short_title = "MMSI-V"
    scoring = ScoringSpec(official=OFFICIAL_SCORER)
    generation = GenerationSettings(
        max_tokens=10000,
        source="MMSI-Video-Bench utils/openai_api.py mimic_chat_budget: max_tokens = "
        "max_token_length 1000 × 10, no temperature sent",
    )
    official_policy = "uniform-50"  # inference.py's default setting, Uniform-50
    protocol = "offline"
    keys_all = frozenset({"frames_list", "video_list", "ground_truth"})

    def load(self, path: Path) -> LoadResult:
        ids = IdRegistry()
        return load_items(path, lambda row: _item(row, ids))

    def frame_files(self, item: Item, videos: Path) -> tuple[Path, ...]:
        frames = [videos / "frames" / f for clip in item.meta["frames"] for f in clip]
        return (*frames, *(videos / "ref_images" / r for r in item.meta["ref_images"]))

    def clips(self, item: Item) -> Clips:
        return Clips(sizes=tuple(len(c) for c in item.meta["frames"]),
                     refs=len(item.meta["ref_images"]))  # fmt: skip

    def system_prompt(self, item: Item) -> str | None:
        return item.meta.get("system") or None

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # input_prompt_wo_sys = task_prompt + user_prompt + format_prompt, under both scorers.
        text = item.question
        if options.text_only:  # the blind form: no placeholder for frames never shown
            text = text.replace(VIDEO, "").replace(IMAGE, "")
        return text


def _strings(row: Row, name: str, raw: Any) -> list[str] | None:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        row.problem(name, "expected a list of file names")
        return None
    return raw


def _clips(row: Row) -> list[dict[str, Any]] | None:
    raw = row.list("video_list")
    if raw is None:
        return None
    out = []
    for _, where, clip in row.objects("video_list", raw, "expected {path, start, end, base_fps}"):
        own: list[Any] = []  # the clip's problems, named by its place in video_list
        sub = Row(clip, row.file, row.location, own, row.item_id)
        path, start, end = sub.str("path"), sub.time("start"), sub.time("end")
        fps = sub.number("base_fps")
        for p in own:
            row.problem(f"{where}.{p.field}", p.expected)
        if not sub.ok:
            continue
        if start is not None and end is not None and end < start:
            row.problem(f"{where}.end", f"expected end ≥ start ({start:g} s), got {end:g} s")
        elif fps is not None and fps <= 0:
            row.problem(f"{where}.base_fps", f"expected a frame rate > 0, got {fps:g}")
        else:
            out.append({"path": path, "start": start, "end": end, "base_fps": fps})
    return out if row.ok else None


def _item(row: Row, ids: IdRegistry) -> Item | None:
    item_id = ids.item_id(row)
    qtype = row.str("type")
    row.str("ori_question")
    system = row.str("system_prompt", allow_empty=True)
    task, user = row.str("task_prompt", allow_empty=True), row.str("user_prompt")
    fmt = row.str("format_prompt", allow_empty=True)
    truth = row.str("ground_truth")
    if truth is not None and truth.strip() not in LETTERS:
        row.problem("ground_truth", f"expected a letter A–F, got {truth!r}")
    clips = _clips(row)
    raw_frames = row.list("frames_list")
    frames = None
    if raw_frames is not None:
        frames = [_strings(row, f"frames_list[{k}]", c) for k, c in enumerate(raw_frames)]
        for k, c in enumerate(frames):
            if c == []:
                row.problem(f"frames_list[{k}]", "expected at least one frame")
    refs = _strings(row, "ref_images", row.data.get("ref_images", []))
    if not row.ok or None in (task, user, fmt, clips, frames, refs, truth) or None in frames:
        return None
    text = f"{task}{user}{fmt}"
    if len(frames) != len(clips):
        row.problem("frames_list", f"expected one frame list per clip ({len(clips)}), got "
                    f"{len(frames)}")  # fmt: skip
    if text.count(VIDEO) != len(clips):
        row.problem("user_prompt", f"expected one {VIDEO} per clip ({len(clips)}), found "
                    f"{text.count(VIDEO)}")  # fmt: skip
    ori = str(row.data.get("ori_question"))
    if ori.count(IMAGE) != len(refs) or text.count(IMAGE) != len(refs):
        row.problem("ref_images", f"expected one reference image per {IMAGE} of ori_question "
                    f"and of the prompt ({ori.count(IMAGE)}, {text.count(IMAGE)}), got "
                    f"{len(refs)}")  # fmt: skip
    if not row.ok:
        return None
    found = option_texts(text)
    letters = LETTERS[: len(found)] if list(found) == list(LETTERS[: len(found)]) else ""
    if len(letters) >= 2 and truth.strip() in letters:
        options = tuple(Option(letter=k, text=found[k]) for k in letters)
    else:  # A–F, as the official reader accepts; the texts are in the question
        options = tuple(Option(letter=k, text=f"option {k}") for k in LETTERS)
    n = sum(len(c) for c in frames) + len(refs)
    spans, first = [], 0
    for clip, shown in zip(clips, frames, strict=True):
        spans.append({**clip, "frames": [first, first + len(shown) - 1]})
        first += len(shown)
    return build_item(
        row, benchmark="mmsivideo", video=f"mmsivideo/{item_id}", question=text,
        answer_type=AnswerType.CHOICE, options=options,
        queries=(QueryPoint(index=0, time=float(n - 1), answer=truth.strip()),),
        task=TaskLabels(task=qtype),
        meta={"system": system, "frames": frames, "ref_images": refs, "clips": spans,
              "offline": True},
    )  # fmt: skip


__all__ = ["IMAGE", "LETTERS", "OFFICIAL_SCORER", "TYPES", "VIDEO", "MMSIVideoAdapter",
           "option_texts"]  # fmt: skip
