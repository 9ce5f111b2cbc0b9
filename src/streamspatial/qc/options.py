"""Option checks from the text-only review (OVO-S-Bench E.5.1, UCS-Bench F.4.2 stage 5, F.5).

What a reviewer looks for by eye, made mechanical so it runs on every item:

* **length imbalance** — the correct option is the longest and clearly longer than the
  distractors ("more specific or more wordy than its distractors"; F.5's information
  imbalance);
* **lexical overlap** — exactly one option shares content words with the question, which
  points at it whether or not it is right (a leak when it is, a trap when it is not);
* **duplicate options** — two options that read the same once case, spacing and punctuation
  are ignored;
* **counting options** — numeric options where the true count is the median or an extreme
  (F.4.2's rule, :func:`~streamspatial.qc.counting.check_count_options`).

Image options (OVO-S maps) are left out of the text checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from streamspatial.core.schema import AnswerType, Item

from .counting import check_count_options

LENGTH_RATIO = 1.5  # correct option at least this many times the distractors' mean length

# Words that carry no content; overlap on them is not a cue.
_STOPWORDS_TEXT = """
    a an the and or of to in on at by for with from into onto over under than then is are
    was were be been being do does did has have had it its this that these those what which who
    whom whose where when how why you your yours i me my we our they them their he she his her
    not no yes as if so there here up down out off about after before while during can could
    would should will shall may might must now just only also very more most many much any
    some each every all both either neither one two three four five six seven eight nine ten
    first second last left right front back side times time"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class OptionFinding:
    """One problem with one item's options."""

    item_id: str
    check: str  # length | overlap | duplicate | count
    detail: str
    letter: str | None = None
    correct: bool | None = None  # whether the flagged option is the right answer

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _answers(item: Item) -> set[str]:
    return {str(q.answer) for q in item.queries}


def check_item(item: Item, *, length_ratio: float = LENGTH_RATIO) -> list[OptionFinding]:
    if item.answer_type is not AnswerType.CHOICE:
        return []
    texts = {o.letter: o.text for o in item.options if o.text is not None}
    if len(texts) < 2:
        return []
    answers = _answers(item)
    out: list[OptionFinding] = []

    # Duplicates.
    seen: dict[str, str] = {}
    for letter, text in texts.items():
        key = normalise(text)
        if key in seen:
            out.append(
                OptionFinding(
                    item.id,
                    "duplicate",
                    f"{seen[key]} and {letter} read the same",
                    letter=letter,
                    correct=letter in answers or seen[key] in answers,
                )
            )
        else:
            seen[key] = letter

    # Length imbalance of the correct option.
    for letter in sorted(answers & texts.keys()):
        own = len(texts[letter].strip())
        others = [len(t.strip()) for k, t in texts.items() if k != letter]
        mean = sum(others) / len(others)
        if own > max(others) and own >= length_ratio * mean:
            out.append(
                OptionFinding(
                    item.id,
                    "length",
                    f"correct option {letter} has {own} characters, the others "
                    f"{mean:.1f} on average (≥ {length_ratio:g}×)",
                    letter=letter,
                    correct=True,
                )
            )

    # Lexical overlap between the question and exactly one option.
    question_words = content_words(item.question)
    shared = {k: content_words(t) & question_words for k, t in texts.items()}
    hits = [k for k, words in shared.items() if words]
    if len(hits) == 1:
        letter = hits[0]
        out.append(
            OptionFinding(
                item.id,
                "overlap",
                f"only option {letter} shares words with the question: "
                f"{', '.join(sorted(shared[letter]))}",
                letter=letter,
                correct=letter in answers,
            )
        )

    # Counting options.
    numbers = {k: _as_count(t) for k, t in texts.items()}
    if len(texts) >= 4 and all(v is not None for v in numbers.values()):
        for letter in sorted(answers & numbers.keys()):
            why = check_count_options(
                [v for v in numbers.values() if v is not None], numbers[letter]
            )  # type: ignore[arg-type]
            if why is not None:
                out.append(OptionFinding(item.id, "count", why, letter=letter, correct=True))
    return out


_NUMBER_TEXT = "zero one two three four five six seven eight nine ten eleven twelve"
_NUMBER_WORDS = {w: i for i, w in enumerate(_NUMBER_TEXT.split())}


def _as_count(text: str) -> float | None:
    t = text.strip().lower().rstrip(".")
    if t in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[t])
    try:
        return float(t)
    except ValueError:
        return None


def check_options(
    items: Iterable[Item], *, length_ratio: float = LENGTH_RATIO
) -> list[OptionFinding]:
    """Every finding over ``items``, in file order."""
    out: list[OptionFinding] = []
    for item in items:
        out.extend(check_item(item, length_ratio=length_ratio))
    return out


def longest_is_correct_rate(items: Iterable[Item]) -> tuple[float | None, float | None]:
    """How often the correct option is the (unique) longest, and what chance would give.

    A benchmark whose answers are the longest option far more often than ``1/n`` has a length
    bias even when no single item crosses the ratio.
    """
    hits = chance = n = 0.0
    for item in items:
        texts = {o.letter: o.text for o in item.options if o.text is not None}
        if item.answer_type is not AnswerType.CHOICE or len(texts) < 2:
            continue
        lengths = {k: len(t.strip()) for k, t in texts.items()}
        top = max(lengths.values())
        longest = [k for k, v in lengths.items() if v == top]
        for q in item.queries:
            n += 1
            chance += 1 / len(texts)
            hits += 1 if longest == [q.answer] else 0
    if n == 0:
        return None, None
    return hits / n, chance / n


__all__ = [
    "LENGTH_RATIO",
    "OptionFinding",
    "check_item",
    "check_options",
    "content_words",
    "longest_is_correct_rate",
]
