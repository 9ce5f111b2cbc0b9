"""What the things a question names say about its answer: target encodings of its words.

A generator gives itself away through the nouns of its questions as often as through its
options: "Could the mug be set down on top of the bed?" is "Yes" for a mug and "No" for a
sofa, whatever the video shows; "which object is blocking your view of the rug?" is a chair
more often than a lamp; "the bed's longest edge" is two metres.  Option-side features
(text, position, rank) cannot see such a cue, and TF-IDF of thousands of word pairs dilutes
it on a hundred items.  These encodings hand it to every learner in a few columns: per option,
how often options of that text were correct in training *when the question named the same
word*; per numeric question, the mean (log) answer of training questions naming its words.

Counts come from the training fold only; a training row is encoded from the counts of the
training houses outside its own inner fold (:func:`inner_folds`), as a test row is.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from .tst_features import Point, content_words, words

# Smoothing towards the prior (chance, or the overall mean): a word seen with one option
# text once says little.
PSEUDO = 1.0


def terms(question: str) -> set[str]:
    """The question's content words and its neighbouring word pairs: a bag of words cannot
    tell "could the rug be set down on …" (it fits on nothing) from "… on top of the rug"
    (it takes anything); the pairs "rug be" and "rug without" can."""
    ws = words(question)
    return content_words(question) | {f"{a} {b}" for a, b in itertools.pairwise(ws)}


def _slog(v: float) -> float:
    return float(np.sign(v) * np.log1p(abs(v)))


INNER = 5  # inner folds (by house) the training rows are encoded on


def inner_folds(train: Sequence[Point]) -> list[list[int]]:
    """Training rows dealt into ``INNER`` folds by house (groups in sorted order, round robin).

    A training row is encoded from the *other* inner folds' counts, as a test row is from
    other houses'.  Leaving only the row's own point out is not enough: a word's
    leave-one-out mean is its total less the row's own answer, so a forest reads the answer
    back off it (a planted size cue fell from 0.46 to 0.11 MRA that way).
    """
    groups = sorted({p.group for p in train})
    where = {g: i % INNER for i, g in enumerate(groups)}
    out: list[list[int]] = [[] for _ in range(min(INNER, len(groups)))]
    for n, p in enumerate(train):
        out[where[p.group] % len(out)].append(n)
    return out


class WordOptionPrior:
    """Per (question word, option text): how often that option was correct in training."""

    def __init__(self, train: Sequence[Point]):
        self.train = list(train)
        self.shown, self.correct = self._count(self.train)

    @staticmethod
    def _count(points: Sequence[Point]) -> tuple[Counter, Counter]:
        shown: Counter[tuple[str, str]] = Counter()
        correct: Counter[tuple[str, str]] = Counter()
        for p in points:
            for j, o in enumerate(p.options):
                shown[("", o)] += 1  # the text's own rate, whatever the question names
                correct[("", o)] += int(j == p.correct)
                for w in terms(p.question):
                    shown[(w, o)] += 1
                    correct[(w, o)] += int(j == p.correct)
        return shown, correct

    @staticmethod
    def _encode(p: Point, shown: Counter, correct: Counter) -> np.ndarray:
        """Per option, over the question's words: the summed log-odds of the smoothed rate
        beyond the text's own rate (naive Bayes: words every question has add nothing, the
        one noun that decides adds its all), and the rates' mean, max and min."""
        qwords = sorted(terms(p.question))

        def rate(w: str, o: str, prior: float) -> float:
            r = (correct[(w, o)] + PSEUDO * prior) / (shown[(w, o)] + PSEUDO)
            return min(0.98, max(0.02, r))

        def logit(r: float) -> float:
            return math.log(r / (1 - r))

        rows = []
        for o in p.options:
            own = rate("", o, p.chance)  # a pair never seen falls back on the text's own rate
            rates = [rate(w, o, own) for w in qwords] or [own]
            odds = sum(logit(r) - logit(own) for r in rates)
            rows.append([odds, float(np.mean(rates)), max(rates), min(rates)])
        return np.asarray(rows, dtype=float)

    def train_features(self) -> list[np.ndarray]:
        """The training points' encodings, each from the other inner folds' counts."""
        out: list[np.ndarray] = [np.empty(0)] * len(self.train)
        folds = inner_folds(self.train)
        for fold in folds:
            inside = set(fold)
            shown, correct = self._count([p for n, p in enumerate(self.train) if n not in inside])
            for n in fold:
                out[n] = self._encode(self.train[n], shown, correct)
        return out

    def features(self, p: Point) -> np.ndarray:
        return self._encode(p, self.shown, self.correct)


WORD_OPTION_NAMES = (
    "word_text_log_odds",
    "word_text_rate_mean",
    "word_text_rate_max",
    "word_text_rate_min",
)


class WordValuePrior:
    """Per question word: the mean log answer of the training questions naming it."""

    def __init__(self, train: Sequence[Point]):
        self.train = list(train)
        self.stats = self._count(self.train)

    @staticmethod
    def _count(points: Sequence[Point]) -> tuple[Counter, Counter, float]:
        total: Counter[str] = Counter()
        n: Counter[str] = Counter()
        ys = [_slog(float(p.value)) for p in points]  # type: ignore[arg-type]
        for p, y in zip(points, ys, strict=True):
            for w in terms(p.question):
                total[w] += y
                n[w] += 1
        return total, n, float(np.mean(ys)) if ys else 0.0

    @staticmethod
    def _encode(p: Point, stats: tuple[Counter, Counter, float]) -> list[float]:
        """Mean, max and min over the question's words of the smoothed mean log answer, and
        the spread between them (a word that pins the answer stands out of the others)."""
        total, n, overall = stats
        means = [
            (total[w] + PSEUDO * overall) / (n[w] + PSEUDO) for w in sorted(terms(p.question))
        ] or [overall]
        return [float(np.mean(means)), max(means), min(means), max(means) - min(means)]

    def train_features(self) -> list[list[float]]:
        out: list[list[float]] = [[]] * len(self.train)
        for fold in inner_folds(self.train):
            inside = set(fold)
            stats = self._count([p for n, p in enumerate(self.train) if n not in inside])
            for n in fold:
                out[n] = self._encode(self.train[n], stats)
        return out

    def features(self, p: Point) -> list[float]:
        return self._encode(p, self.stats)


WORD_VALUE_NAMES = ("word_mean", "word_max", "word_min", "word_spread")

__all__ = [
    "WORD_OPTION_NAMES",
    "WORD_VALUE_NAMES",
    "WordOptionPrior",
    "WordValuePrior",
    "inner_folds",
]
