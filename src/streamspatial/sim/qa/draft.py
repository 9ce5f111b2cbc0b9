"""From a generator's answer to a benchmark :class:`~streamspatial.core.Item`.

Generators return a :class:`Draft`: the question, the correct answer *as content* (an option
text, an image, or a number), the distractors and a structured intent.  Letters are assigned
here, not by the generator, so that the correct letter is uniform per family by a seeded
:class:`LetterDealer` rather than by hope: a blind model that always answers "A" — or always
answers the family's most frequent letter — scores chance.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

Span = tuple[float, float]


@dataclass(frozen=True)
class DraftQuery:
    """One query point: its time, its answer (option content or number) and its evidence."""

    time: float
    answer: str | float
    evidence: tuple[Span, ...] = ()


@dataclass
class Draft:
    """A generated question before letters and ids are assigned.

    ``choices`` holds every option's content (the correct one(s) included) for choice items
    and is empty for numeric ones; ``images`` marks choices that are PNG data URLs.
    ``depends_on`` is the *family-local key* of an earlier draft in the same batch whose model
    answer this question builds on (S3-Bench multi-turn chains).  ``answer_class`` /
    ``classes`` mark families whose answers fall in a few fixed classes (Yes/No, directions).
    """

    family: str
    question: str
    queries: list[DraftQuery]
    intent: dict[str, Any]
    choices: list[str] = field(default_factory=list)
    images: bool = False
    key: str = ""  # set for chain heads so a later turn can point at them
    depends_on: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # Families with a fixed set of answer classes name the class of this draft, so the
    # builder can keep the classes balanced (see ``QuestionGenerator``).
    answer_class: str | None = None
    classes: tuple[str, ...] = ()
    # The model may act in the simulator before answering (S3 ``explorable``; S3-Bench §3).
    explorable: bool = False
    # When set, ``choices`` holds more distractors than fit: the builder keeps ``n_options``
    # options, drawing distractors the way answers fall (see ``balance.pick_distractors``).
    n_options: int | None = None
    # What distractors are balanced by, per option text (default: the text itself): a family
    # whose options name objects keys them by category, the unit a blind model learns.
    option_keys: dict[str, str] = field(default_factory=dict)
    # The object each choice names (same order as ``choices``), when the intent lists them:
    # trimming the choices trims ``intent["instances"]`` to the objects still offered.
    choice_instances: tuple[int, ...] = ()

    @property
    def is_choice(self) -> bool:
        return bool(self.choices)


def choice_draft(
    family: str, at: float, question: str, answer: str, choices, evidence, it, **kw
) -> Draft:
    """A one-query choice question asked at ``at``: the helper every family drafts through
    (``kw``: any other :class:`Draft` field, such as ``classes`` or ``meta``)."""
    return Draft(
        family=family,
        question=question,
        queries=[DraftQuery(at, answer, tuple(evidence))],
        intent=it,
        choices=list(choices),
        **kw,
    )


class LetterDealer:
    """Draws the correct answer's position uniformly and independently, seeded per family.

    Independent draws rather than shuffled decks on purpose: with decks every letter is
    correct exactly equally often, and then the leave-one-out frequent-answer baseline (which
    drops the item's own answer before voting) is *always* wrong — 0 %, as far below chance as
    a biased generator is above it.  Independent uniform letters put every blind letter
    strategy, that one included, at chance in expectation.
    """

    def __init__(self, rng: random.Random):
        self._rng = rng

    def deal(self, n: int) -> int:
        return self._rng.randrange(n)


def arrange(choices: list[str], correct: str, position: int, rng: random.Random) -> list[str]:
    """Put ``correct`` at ``position`` and the distractors, shuffled, around it."""
    others = [c for c in choices if c != correct]
    rng.shuffle(others)
    others.insert(position, correct)
    return others


def to_item(
    draft: Draft,
    *,
    item_id: str,
    benchmark: str,
    video: str,
    labels: TaskLabels,
    dealer: LetterDealer,
    rng: random.Random,
    depends_on: str | None = None,
    source: str = "streamspatial-sim",
) -> Item:
    """Assign letters (balanced through ``dealer``) and build the validated Item."""
    intent = dict(draft.intent)
    if draft.is_choice:
        if len(set(draft.choices)) != len(draft.choices):
            raise ValueError(f"{draft.family}: duplicate options {draft.choices}")
        if len(draft.choices) > len(LETTERS):
            raise ValueError(f"{draft.family}: more than {len(LETTERS)} options")
        first = str(draft.queries[0].answer)
        ordered = arrange(draft.choices, first, dealer.deal(len(draft.choices)), rng)
        letter_of = {c: LETTERS[i] for i, c in enumerate(ordered)}
        options = tuple(
            Option(letter=LETTERS[i], image=c)
            if draft.images
            else Option(letter=LETTERS[i], text=c)
            for i, c in enumerate(ordered)
        )
        queries = tuple(
            QueryPoint(index=i, time=q.time, answer=letter_of[str(q.answer)], evidence=q.evidence)
            for i, q in enumerate(draft.queries)
        )
        answer_type = AnswerType.CHOICE
    else:
        options = ()
        queries = tuple(
            QueryPoint(index=i, time=q.time, answer=float(q.answer), evidence=q.evidence)
            for i, q in enumerate(draft.queries)
        )
        answer_type = AnswerType.NUMBER
    return Item(
        benchmark=benchmark,
        id=item_id,
        video=video,
        question=draft.question,
        answer_type=answer_type,
        options=options,
        queries=queries,
        task=labels,
        source=source,
        depends_on=depends_on,
        intent=intent,
        explorable=draft.explorable,
        meta=dict(draft.meta),
    )
