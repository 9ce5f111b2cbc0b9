"""The training-example record: one line of ``train.jsonl``, whatever kind of example it is.

S3-Train teaches three kinds (S3-Bench §3, AMF-VLM §4): ``qa`` (a question at t_q answered
from the prefix), ``explore`` (a question whose answer needs views the prefix lacks: the
actions that bring them, then the answer from the prefix plus the new views) and ``fold`` (the
memory the folding module should write at a fold time).  One record shape holds all three, so
one exporter turns them into every framework's format:

* ``video`` and ``t_q``: the prefix is the video's frames at times ≤ ``t_q``; ``frames`` lists
  the prefix frames to show by their times, or is ``None`` to let the export's sampling policy
  pick them from the prefix (as ``--policy`` does in a run).
* ``messages``: the conversation, an optional system message, then user / assistant turns; the
  last assistant turn is the target.  A user turn with ``prefix`` shows the prefix frames
  (captioned ``Frame at T s:``) before its text, then its ``images``, then the text.
* ``images``: pictures that are not prefix frames, marked by ``source``: ``explore`` views
  rendered after t_q by exploration actions (their ``time`` is exploration-stream seconds, ≥ t_q,
  as ``--explore-steps`` runs ask them; files under the folder's ``explore/``) or ``option``
  pictures of answer options (no time).

* ``generation``: the fingerprint of the generation that made it (the folder manifest's
  ``generation``); ``export-sft`` refuses a record of another generation left in the folder.

A record never shows a video frame after its t_q: the model refuses it, and the exporter
checks it again against the video.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Seconds

KINDS = ("qa", "explore", "fold")
Kind = Literal["qa", "explore", "fold"]
TRAIN_FILE = "train.jsonl"  # under a generated folder, beside items.jsonl
VIEWS_DIR = "explore"  # under a generated folder: exploration views, one folder per item
PLACEHOLDERS = ("<image>", "<video>")  # what the frameworks' loaders count in the text
_EPS = 1e-6


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExtraImage(_Strict):
    """A picture shown in a user turn that is not a prefix frame (see the module)."""

    source: Literal["explore", "option"]
    caption: str  # the line before it: "Option A:", "View 2 after rotate_left at 13.5 s:"
    path: str | None = None  # a file, relative to the training folder, under "<source>/"
    data: str | None = None  # or inline, as a data: URI (answer options carry theirs so)
    time: float | None = None  # explore: exploration-stream seconds (≥ t_q); option: none

    @model_validator(mode="after")
    def _consistent(self) -> ExtraImage:
        if (self.path is None) == (self.data is None):
            raise ValueError("expected exactly one of path and data")
        if self.data is not None and not self.data.startswith("data:"):
            raise ValueError("expected data as a data: URI")
        if self.path is not None:
            parts = PurePosixPath(self.path).parts
            if "\\" in self.path or len(parts) < 2 or parts[0] != self.source or ".." in parts:
                raise ValueError(
                    f"expected a path relative to the training folder, under {self.source}/"
                )
        if self.source == "explore" and (self.time is None or not math.isfinite(self.time)):
            raise ValueError("an exploration view needs its exploration-stream time")
        if self.source == "option" and self.time is not None:
            raise ValueError("an option picture has no time")
        return self


class Message(_Strict):
    """One turn of the conversation."""

    role: Literal["system", "user", "assistant"]
    text: str
    prefix: bool = False  # user turns: the prefix frames come first
    images: tuple[ExtraImage, ...] = ()  # user turns: after the prefix frames, before the text

    @model_validator(mode="after")
    def _consistent(self) -> Message:
        if self.role != "user" and (self.prefix or self.images):
            raise ValueError(f"only user turns show pictures, not a {self.role} turn")
        for token in PLACEHOLDERS:
            if token in self.text:
                raise ValueError(f"text may not contain {token}: the exporter places pictures")
        return self


class TrainingExample(_Strict):
    """One training example (see the module)."""

    id: str = Field(min_length=1)
    kind: Kind
    video: str = Field(min_length=1)  # relative to the folder's videos/
    t_q: Seconds
    frames: tuple[float, ...] | None = None  # prefix frame times; None: the policy's
    messages: tuple[Message, ...]
    meta: dict[str, Any] = Field(default_factory=dict)
    generation: str | None = None  # the manifest's fingerprint of the generation it came from

    @field_validator("frames")
    @classmethod
    def _in_prefix(cls, v: tuple[float, ...] | None, info: ValidationInfo):
        t_q = info.data.get("t_q")
        if v is None or t_q is None:
            return v
        if any(not (0 <= t <= t_q + _EPS) for t in v):
            raise ValueError(f"expected prefix frame times in [0, t_q = {t_q}]")
        if list(v) != sorted(set(v)):
            raise ValueError("expected prefix frame times sorted and unique")
        return v

    @field_validator("messages")
    @classmethod
    def _conversation(cls, v: tuple[Message, ...], info: ValidationInfo):
        turns = [m.role for m in v]
        if turns and turns[0] == "system":
            turns = turns[1:]
        if (
            not turns
            or len(turns) % 2
            or any(r != ("user" if i % 2 == 0 else "assistant") for i, r in enumerate(turns))
        ):
            raise ValueError(
                "expected an optional system turn, then user and assistant turns in turn, "
                "ending with the assistant's"
            )
        if sum(m.prefix for m in v) != 1:
            raise ValueError("expected exactly one user turn showing the prefix frames")
        kind, t_q = info.data.get("kind"), info.data.get("t_q")
        for m in v:
            for image in m.images:
                if image.source == "explore" and kind != "explore":
                    raise ValueError(f"exploration views belong to explore examples: {kind}")
                if t_q is not None and image.time is not None and image.time < t_q - _EPS:
                    raise ValueError(f"an exploration view at {image.time} s precedes t_q = {t_q}")
        return v

    @property
    def target(self) -> str:
        """What the model learns to say: the last assistant turn."""
        return self.messages[-1].text


def write_examples(examples: Iterable[TrainingExample], path: Path) -> int:
    """Write ``examples`` as JSON lines, atomically (a temp file moved into place)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for ex in examples:
            f.write(ex.model_dump_json(exclude_defaults=True) + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_examples(path: Path) -> list[TrainingExample]:
    """Every record of a ``train.jsonl`` (see :func:`read_numbered`)."""
    return [ex for _, ex in read_numbered(path)]


def read_numbered(path: Path) -> list[tuple[int, TrainingExample]]:
    """Every record of a ``train.jsonl`` with its line number; each bad line is a
    :class:`Problem` (file, line, record id, field, what was expected), all raised together as
    one :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError(
            Problem(
                str(path),
                "",
                "no training records here: make them with "
                "`streamspatial sim generate --split train --out DIR`",
            )
        )
    problems: list[Problem] = []
    out: list[tuple[int, TrainingExample]] = []
    seen: set[str] = set()
    for line_no, line in _lines(path):
        at = f"line {line_no}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(str(path), "", f"expected JSON ({exc.msg})", None, at))
            continue
        rid = str(raw.get("id")) if isinstance(raw, dict) and raw.get("id") else None
        try:
            ex = TrainingExample.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "record"
            problems.append(Problem(str(path), field, err["msg"], rid, at))
            continue
        if ex.id in seen:
            problems.append(Problem(str(path), "id", "expected a unique id", ex.id, at))
            continue
        seen.add(ex.id)
        out.append((line_no, ex))
    if problems:
        raise InputError(problems)
    return out


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                yield i, line
