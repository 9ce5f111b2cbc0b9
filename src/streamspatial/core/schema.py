"""The unified item schema that every benchmark adapter produces.

One :class:`Item` is one question about one video.  It is asked at one or more
:class:`QueryPoint` s (Revisit Counting in OVO-S-Bench and every VCBench question ask the same
question several times as the stream advances).  A query point is the unit the runner
schedules, scores and records; its identity is ``(item.id, query.index)``.

Evidence intervals and answers live here but must never reach a model request: only the
offline oracle-evidence policy reads evidence, and it is labelled offline wherever it appears.
"""

from __future__ import annotations

import math
import string
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LETTERS = string.ascii_uppercase[:7]  # A–G: up to seven options (OVO-S Revisit Counting)

# A time in seconds on a video's clock: ``ge=0`` alone lets infinity and NaN through.
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class AnswerType(StrEnum):
    """How an answer is given: a letter, a number, or a free-text direction.

    ``direction`` is UCS-Bench's open-ended form (its demo QA files: "It is to your front-left
    and rear-left."); such answers are scored by the set of egocentric direction classes they
    name, see :mod:`streamspatial.core.directions`.
    """

    CHOICE = "choice"
    NUMBER = "number"
    DIRECTION = "direction"
    # Free text (or an answer only its benchmark's own rule reads: OmniMMI's open answers,
    # judged by a language model, and its alert windows); ``answer`` is the released text.
    TEXT = "text"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Option(_Frozen):
    """A lettered option: text, or an image (``data:image/png;base64,...``) for map options."""

    letter: str
    text: str | None = None
    image: str | None = None

    @field_validator("letter")
    @classmethod
    def _letter_in_range(cls, v: str) -> str:
        if v not in LETTERS:
            raise ValueError(f"expected an option letter A–G, got {v!r}")
        return v

    @model_validator(mode="after")
    def _has_content(self) -> Option:
        if (self.text is None) == (self.image is None):
            raise ValueError("an option has exactly one of text or image")
        return self

    @property
    def is_image(self) -> bool:
        return self.image is not None

    def display(self) -> str:
        """How the option reads in a prompt; image options are referred to by their letter."""
        return self.text if self.text is not None else f"[map image {self.letter}]"


class QueryPoint(_Frozen):
    """One time at which the item's question is asked, with its answer and evidence.

    ``answer`` is a letter for choice items, a number for number items and the released text
    for direction items.  ``evidence`` lists ``(start, end)`` second intervals, as annotated,
    that start no later than ``time``.  An interval may end at or after ``time`` (OVO-S-Bench
    releases evidence ``[t_start, t_q]``, and its own Figure 11 example ends after its query
    time): the prefix rule is about the frames a model is shown, which never go past ``time``,
    not about annotations.  Consumers that measure against the prefix clip evidence to it.
    """

    index: int = Field(ge=0)
    time: Seconds
    answer: str | float
    evidence: tuple[tuple[float, float], ...] = ()

    @model_validator(mode="after")
    def _evidence_before_query(self) -> QueryPoint:
        for start, end in self.evidence:
            if not (math.isfinite(start) and math.isfinite(end)) or start < 0 or end < start:
                raise ValueError(
                    f"expected evidence [start, end] with 0 ≤ start ≤ end, got [{start}, {end}]"
                )
            if start > self.time:
                raise ValueError(
                    f"expected evidence starting no later than the query time "
                    f"{self.time}, got [{start}, {end}]"
                )
        return self


class TaskLabels(_Frozen):
    """A benchmark's task hierarchy for one item, coarse to fine.

    The meaning of each level follows the benchmark's own tables: OVO-S level / main category /
    subcategory / task type name; VCBench counting type / subtype; UCS-Bench category /
    subcategory / qtype; S3-Bench task and format (Num or MC); VSI-Bench question type.
    """

    level: str | None = None
    category: str | None = None
    subcategory: str | None = None
    task: str


class Item(_Frozen):
    """One question about one video, in the benchmark-independent form."""

    benchmark: str
    id: str
    video: str  # path relative to the videos folder, or a frame folder
    question: str
    answer_type: AnswerType
    options: tuple[Option, ...] = ()
    queries: tuple[QueryPoint, ...]
    task: TaskLabels
    source: str | None = None  # source dataset (per-source tables)
    depends_on: str | None = None  # earlier item whose *model* answer enters this prompt
    intent: dict[str, Any] | None = None  # structured intent of generated items
    explorable: bool = False  # simulator items whose agent may act in the environment
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Item:
        if not self.queries:
            raise ValueError("expected at least one query point")
        indexes = [q.index for q in self.queries]
        if indexes != list(range(len(indexes))):
            raise ValueError("expected query indexes 0, 1, 2, … in order")
        if self.answer_type is AnswerType.CHOICE:
            letters = [o.letter for o in self.options]
            if not letters:
                raise ValueError("expected options for a choice item")
            if letters != list(LETTERS[: len(letters)]):
                raise ValueError(f"expected option letters A, B, C, … in order, got {letters}")
            for q in self.queries:
                if q.answer not in letters:
                    raise ValueError(
                        f"expected an answer among the options {''.join(letters)}, got {q.answer!r}"
                    )
        elif self.answer_type is AnswerType.TEXT:
            for q in self.queries:
                if not isinstance(q.answer, str):
                    raise ValueError(f"expected a text answer, got {q.answer!r}")
        elif self.answer_type is AnswerType.DIRECTION:
            for q in self.queries:
                if not isinstance(q.answer, str) or not q.answer.strip():
                    raise ValueError(f"expected a direction answer as text, got {q.answer!r}")
        else:
            for q in self.queries:
                if isinstance(q.answer, str) or not math.isfinite(q.answer):
                    raise ValueError(f"expected a finite numeric answer, got {q.answer!r}")
        return self

    @property
    def letters(self) -> str:
        return "".join(o.letter for o in self.options)

    def query_key(self, index: int) -> tuple[str, int]:
        return (self.id, index)
