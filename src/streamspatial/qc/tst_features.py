"""What a blind model may read of a benchmark item: text, option structure, query timing.

The stress test (:mod:`.tst`) trains text-only models on these views of each query point,
the way the Test-set Stress-Test (TsT) does on VSI-Bench: the question and option wording, each
option's position, length, numeric value and rank among the options, the words it shares with
the question, where the question mentions it, and when the question is asked (time, time as a
share of the video, index of the query point, how many there are).  Nothing here reads a frame,
an evidence interval or an intent: an item a model can answer from these alone measures
nothing about the video.

Choice items become one row per option (a correct/incorrect classifier scores each option and
the highest-scoring option is the answer); numeric items one row per query point.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from streamspatial.core.schema import AnswerType, Item

# Episodes of one simulator house share its layout and objects; a blind model trained on one
# of its walks would learn the house, not the benchmark.  Everything else groups by video.
DEFAULT_GROUP = r"(house-\d+)-"

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
STOP = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "you",
        "your",
        "i",
        "me",
        "my",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "how",
        "many",
        "much",
        "where",
        "when",
        "who",
        "do",
        "did",
        "does",
        "have",
        "has",
        "had",
        "so",
        "far",
        "now",
        "there",
        "here",
        "than",
        "as",
        "into",
        "not",
        "no",
        "yes",
        "about",
    )
)


@dataclass(frozen=True)
class Point:
    """One query point as a blind model sees it (plus the truth, for scoring only)."""

    item_id: str
    index: int
    task: str
    group: str
    question: str
    options: tuple[str, ...]  # display text per option; "" for an image option
    correct: int | None  # index of the correct option (choice)
    value: float | None  # numeric answer (number)
    time: float
    n_queries: int
    # The video's length as a blind model can read it off the file: the latest query time
    # of any item on the same video (a generated walk is asked at up to its last seconds).
    duration: float = float("nan")

    @property
    def time_frac(self) -> float:
        """The query time as a share of the video: where in the walk the question falls."""
        return self.time / self.duration if self.duration > 0 else 0.0

    @property
    def is_choice(self) -> bool:
        return self.correct is not None

    @property
    def chance(self) -> float:
        return 1.0 / len(self.options) if self.options else float("nan")


def task_key(item: Item) -> str:
    return f"{item.benchmark}/{item.task.task}"


def group_key(item: Item, pattern: str = DEFAULT_GROUP) -> str:
    """The unit cross-validation never splits: the house when the video names one, else the
    video."""
    m = re.search(pattern, item.video) if pattern else None
    return m.group(1) if m and m.groups() else (m.group(0) if m else item.video)


def points_of(items: Iterable[Item], *, group_pattern: str = DEFAULT_GROUP) -> list[Point]:
    items = list(items)
    duration: dict[str, float] = {}
    for it in items:
        duration[it.video] = max(duration.get(it.video, 0.0), *(float(q.time) for q in it.queries))
    out = []
    for it in items:
        texts = tuple(o.text or "" for o in it.options)
        for q in it.queries:
            choice = it.answer_type is AnswerType.CHOICE
            out.append(
                Point(
                    item_id=it.id,
                    index=q.index,
                    task=task_key(it),
                    group=group_key(it, group_pattern),
                    question=it.question,
                    options=texts if choice else (),
                    correct=it.letters.index(str(q.answer)) if choice else None,
                    value=None if choice else float(q.answer),
                    time=float(q.time),
                    n_queries=len(it.queries),
                    duration=duration[it.video],
                )
            )
    return out


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP and not w.isdigit()}


def number_in(text: str) -> float | None:
    m = _NUMBER.search(text)
    return float(m.group()) if m else None


def mention_rank(question: str, option: str) -> int:
    """Where the question names this option's text: 0 first, 1 second, …; -1 not at all."""
    low = question.lower()
    opt = option.lower().strip().rstrip(".")
    if len(opt) < 3:
        return -1
    pos = low.find(opt)
    if pos < 0:
        head = opt.removeprefix("the ").strip()
        pos = low.find(head) if len(head) >= 3 else -1
    return pos


def point_features(p: Point) -> list[float]:
    """Timing and size of the question: shared by every option row of the point."""
    return [
        p.time,
        math.log1p(p.time),
        p.time_frac,
        float(p.index),
        float(p.n_queries),
        p.index / max(1, p.n_queries - 1),
        float(len(words(p.question))),
    ]


POINT_NAMES = (
    "time",
    "log_time",
    "time_frac",
    "query_index",
    "n_queries",
    "query_frac",
    "question_words",
)
OPTION_NAMES = (
    "position",
    "position_frac",
    "n_options",
    "chars",
    "words",
    "length_rank",
    "is_longest",
    "is_shortest",
    "has_number",
    "value",
    "value_rank",
    "is_min_value",
    "is_max_value",
    "value_over_median",
    "value_minus_query_number",
    "overlap",
    "overlap_jaccard",
    "is_max_overlap",
    "mention_order",
    "mentioned",
    "is_image",
)


def option_features(p: Point) -> np.ndarray:
    """One row per option: structure of the option within its set (see ``OPTION_NAMES``)."""
    n = len(p.options)
    lengths = [len(o) for o in p.options]
    values = [number_in(o) for o in p.options]
    numeric = [v for v in values if v is not None]
    med = float(np.median(numeric)) if numeric else 0.0
    qwords = content_words(p.question)
    overlaps = [len(content_words(o) & qwords) for o in p.options]
    jacc = [
        len(content_words(o) & qwords) / max(1, len(content_words(o) | qwords)) for o in p.options
    ]
    positions = [mention_rank(p.question, o) for o in p.options]
    mentioned = sorted(x for x in positions if x >= 0)
    rows = []
    for j, opt in enumerate(p.options):
        v = values[j]
        rank_len = sorted(lengths).index(lengths[j]) / max(1, n - 1)
        if v is not None and numeric:
            vrank = sorted(numeric).index(v) / max(1, len(numeric) - 1)
            vmin, vmax = float(v == min(numeric)), float(v == max(numeric))
            vmed = v / med if med else 0.0
            vq = v - (p.index + 1)
        else:
            v, vrank, vmin, vmax, vmed, vq = 0.0, -1.0, 0.0, 0.0, 0.0, 0.0
        order = mentioned.index(positions[j]) if positions[j] >= 0 else -1
        rows.append(
            [
                float(j),
                j / max(1, n - 1),
                float(n),
                float(lengths[j]),
                float(len(words(opt))),
                rank_len,
                float(lengths[j] == max(lengths) and lengths.count(max(lengths)) == 1),
                float(lengths[j] == min(lengths) and lengths.count(min(lengths)) == 1),
                float(values[j] is not None),
                float(v),
                vrank,
                vmin,
                vmax,
                vmed,
                vq,
                float(overlaps[j]),
                jacc[j],
                float(overlaps[j] == max(overlaps) and overlaps[j] > 0),
                float(order),
                float(order >= 0),
                float(opt == ""),
            ]
        )
    return np.asarray(rows, dtype=float)


def time_features(p: Point) -> list[float]:
    """When the question is asked and nothing else: the query time, its share of the video and
    the index of the query point (what the time-only models read)."""
    return [p.time, p.time_frac, float(p.index)]


TIME_NAMES = ("time", "time_frac", "query_index")


def question_numbers(p: Point) -> list[float]:
    nums = [float(x) for x in _NUMBER.findall(p.question)]
    return [float(len(nums)), nums[0] if nums else 0.0, max(nums) if nums else 0.0]


class AnswerPrior:
    """How often each option text (and each position) was correct in the training points.

    For a training row the row's own point is left out of the counts, so the forest cannot
    learn the identity "this text's rate includes me" (target leakage).
    """

    def __init__(self, train: Sequence[Point]):
        self.correct: Counter[str] = Counter()
        self.shown: Counter[str] = Counter()
        self.letter: Counter[int] = Counter()
        self.n = 0
        for p in train:
            self.n += 1
            self.letter[p.correct] += 1  # type: ignore[index]
            for j, o in enumerate(p.options):
                self.shown[o] += 1
                self.correct[o] += int(j == p.correct)

    def features(self, p: Point, *, own: bool) -> np.ndarray:
        """Per option: smoothed correct-rate of its text, raw wins, the letter's rate."""
        rows = []
        n = self.n - int(own)
        for j, o in enumerate(p.options):
            won = self.correct[o] - int(own and j == p.correct)
            seen = self.shown[o] - int(own)
            lw = self.letter[j] - int(own and j == p.correct)
            rows.append(
                [
                    (won + p.chance) / (max(seen, 0) + 1.0),
                    float(won),
                    (lw + 1.0) / (n + len(p.options)) if n >= 0 else p.chance,
                ]
            )
        return np.asarray(rows, dtype=float)


PRIOR_NAMES = ("text_correct_rate", "text_wins", "letter_rate")


def option_text(p: Point, j: int) -> str:
    """Text the TF-IDF model reads for option ``j``: its words, and its position token."""
    return f"{p.options[j]} __pos{j}__"


__all__ = [
    "DEFAULT_GROUP",
    "OPTION_NAMES",
    "POINT_NAMES",
    "PRIOR_NAMES",
    "TIME_NAMES",
    "AnswerPrior",
    "Point",
    "content_words",
    "group_key",
    "mention_rank",
    "number_in",
    "option_features",
    "option_text",
    "point_features",
    "points_of",
    "question_numbers",
    "task_key",
    "time_features",
    "words",
]
