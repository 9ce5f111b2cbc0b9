"""The blind models of the stress test: scikit-learn learners and the rule baselines.

Choice models return, for each query point, a probability over its options (rules put all of
it on the option they pick, split evenly on ties); the answer is the most probable option.
Number models return a value.  Every model is fitted on training points only; the prior
features a learner reads (how often an option text was correct) are counted on the training
fold, leaving each training row's own point out.

* ``logreg`` — logistic regression over TF-IDF of option words and position tokens, hashed
  question-word × option-word pairs, and the scaled structure features (TsT's text model);
* ``forest`` — a random forest over the hand-made structure and prior features (TsT-RF);
* ``letter`` — the letter most often correct in training;
* ``answer`` — the option whose text was most often correct in training;
* ``longest`` — the longest option;
* ``overlap`` — the option sharing most content words with the question;
* ``time`` — a random forest over when the question is asked and nothing else of it (query
  time, its share of the video, query index) with what names each option (its text among the
  texts training showed, its number): "Yes" late and "No" early, or counts that grow with
  the walk, are found by it even where the other learners drown them in wording features;
* numbers: ``median`` (the training median), ``ridge`` (TF-IDF of the question plus timing
  and the question's numbers, on a log scale), ``forest`` (a random-forest regressor),
  ``time`` (a random-forest regressor on the query time, its share and the index alone).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .tst_features import (
    AnswerPrior,
    Point,
    content_words,
    number_in,
    option_features,
    option_text,
    point_features,
    question_numbers,
    time_features,
    words,
)
from .tst_words import WordOptionPrior, WordValuePrior

TREES = 60  # enough for a stable vote on a few hundred rows; the probe runs on 2 cores
# The time-only models: leaves of a few points (a trend over time, not one house's clock),
# and the option texts a choice model may tell apart (the commonest in training).
TIME_LEAF = 4
TIME_TEXTS = 40


class ChoiceModel(Protocol):
    name: str

    def fit(self, train: Sequence[Point]) -> None: ...

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]: ...


class NumberModel(Protocol):
    name: str

    def fit(self, train: Sequence[Point]) -> None: ...

    def predict(self, test: Sequence[Point]) -> np.ndarray: ...


def _one_hot(n: int, picks: Sequence[int]) -> np.ndarray:
    out = np.zeros(n)
    out[list(picks)] = 1.0 / len(picks)
    return out


def _argmax_all(values: Sequence[float]) -> list[int]:
    best = max(values)
    return [j for j, v in enumerate(values) if v == best]


def _split(scores: np.ndarray, points: Sequence[Point]) -> list[np.ndarray]:
    out, at = [], 0
    for p in points:
        s = np.clip(scores[at : at + len(p.options)], 1e-9, None)
        out.append(s / s.sum())
        at += len(p.options)
    return out


class Priors:
    """The training fold's answer priors a learner reads: per option text, and per question
    word and option text (:mod:`.tst_words`)."""

    def __init__(self, train: Sequence[Point]):
        self.text = AnswerPrior(train)
        self.words = WordOptionPrior(train)


def _dense(points: Sequence[Point], prior: Priors, *, own: bool) -> np.ndarray:
    """Feature rows; ``own``: ``points`` are the training points the priors were counted on."""
    words = prior.words.train_features() if own else [prior.words.features(p) for p in points]
    rows = []
    for p, w in zip(points, words, strict=True):
        opt = option_features(p)
        pt = np.repeat([point_features(p)], len(p.options), axis=0)
        rows.append(np.hstack([pt, opt, prior.text.features(p, own=own), w]))
    return np.vstack(rows)


def _labels(points: Sequence[Point]) -> np.ndarray:
    return np.concatenate([[float(j == p.correct) for j in range(len(p.options))] for p in points])


def _cross_tokens(p: Point, j: int) -> str:
    """Question word × option word pairs: which answer the things a question names go with.

    An option without content words ("Yes", "No", "2") is paired by its own words, so a
    yes/no question's nouns reach the option scores too ("Could the mug … on the bed?" →
    "Yes"): with stop words only, both options read alike and no learner saw the names.
    """
    q = sorted(content_words(p.question))
    o = sorted(content_words(p.options[j]) or set(words(p.options[j]))) or ["__empty__"]
    return " ".join(f"{a}__{b}" for a in q for b in o)


class LogReg:
    name = "logreg"

    def fit(self, train: Sequence[Point]) -> None:
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        self.prior = Priors(train)
        self.tfidf = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"\S+")
        self.hash = HashingVectorizer(n_features=2**12, token_pattern=r"\S+", alternate_sign=False)
        self.scale = StandardScaler()
        y = _labels(train)
        texts = [option_text(p, j) for p in train for j in range(len(p.options))]
        cross = [_cross_tokens(p, j) for p in train for j in range(len(p.options))]
        dense = self.scale.fit_transform(_dense(train, self.prior, own=True))
        x = hstack([self.tfidf.fit_transform(texts), self.hash.transform(cross), dense]).tocsr()
        self.constant = None if len(set(y)) > 1 else float(y[0])
        if self.constant is None:
            self.model = LogisticRegression(C=1.0, max_iter=2000, solver="liblinear")
            self.model.fit(x, y)

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        from scipy.sparse import hstack

        if self.constant is not None:
            return [np.full(len(p.options), 1 / len(p.options)) for p in test]
        texts = [option_text(p, j) for p in test for j in range(len(p.options))]
        cross = [_cross_tokens(p, j) for p in test for j in range(len(p.options))]
        dense = self.scale.transform(_dense(test, self.prior, own=False))
        x = hstack([self.tfidf.transform(texts), self.hash.transform(cross), dense]).tocsr()
        return _split(self.model.predict_proba(x)[:, 1], test)


class Forest:
    name = "forest"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def fit(self, train: Sequence[Point]) -> None:
        from sklearn.ensemble import RandomForestClassifier

        self.prior = Priors(train)
        y = _labels(train)
        self.constant = None if len(set(y)) > 1 else float(y[0])
        if self.constant is None:
            self.model = RandomForestClassifier(
                n_estimators=TREES, min_samples_leaf=2, random_state=self.seed, n_jobs=1
            )
            self.model.fit(_dense(train, self.prior, own=True), y)

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        if self.constant is not None:
            return [np.full(len(p.options), 1 / len(p.options)) for p in test]
        return _split(self.model.predict_proba(_dense(test, self.prior, own=False))[:, 1], test)


class TopLetter:
    name = "letter"

    def fit(self, train: Sequence[Point]) -> None:
        self.counts = Counter(p.correct for p in train)

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        out = []
        for p in test:
            votes = [self.counts.get(j, 0) for j in range(len(p.options))]
            out.append(_one_hot(len(p.options), _argmax_all(votes)))
        return out


class TopAnswer:
    name = "answer"

    def fit(self, train: Sequence[Point]) -> None:
        self.wins = Counter(p.options[p.correct] for p in train if p.correct is not None)
        self.letter = TopLetter()
        self.letter.fit(train)

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        out = []
        fallback = self.letter.predict(test)
        for p, fb in zip(test, fallback, strict=True):
            votes = [self.wins.get(o, 0) if o else 0 for o in p.options]
            out.append(fb if max(votes) == 0 else _one_hot(len(p.options), _argmax_all(votes)))
        return out


class Longest:
    name = "longest"

    def fit(self, train: Sequence[Point]) -> None:
        return None

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        return [_one_hot(len(p.options), _argmax_all([len(o) for o in p.options])) for p in test]


class Overlap:
    name = "overlap"

    def fit(self, train: Sequence[Point]) -> None:
        return None

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        out = []
        for p in test:
            q = content_words(p.question)
            out.append(
                _one_hot(
                    len(p.options), _argmax_all([len(content_words(o) & q) for o in p.options])
                )
            )
        return out


class TimeOnly:
    """The answer from when the question is asked: per option, the query time, its share of
    the video and the query index, with the option's number and which common text it is."""

    name = "time"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def _x(self, points: Sequence[Point]) -> np.ndarray:
        rows = []
        for p in points:
            when = time_features(p)
            for o in p.options:
                v = number_in(o)
                text = np.zeros(len(self.texts))
                if o in self.texts:
                    text[self.texts[o]] = 1.0
                rows.append([*when, -1.0 if v is None else v, float(v is not None), *text])
        return np.asarray(rows, dtype=float)

    def fit(self, train: Sequence[Point]) -> None:
        from sklearn.ensemble import RandomForestClassifier

        shown = Counter(o for p in train for o in p.options if o)
        common = [t for t, n in shown.most_common(TIME_TEXTS) if n >= 2]
        self.texts = {t: i for i, t in enumerate(common)}
        y = _labels(train)
        self.constant = None if len(set(y)) > 1 else float(y[0])
        if self.constant is None:
            self.model = RandomForestClassifier(
                n_estimators=TREES, min_samples_leaf=TIME_LEAF, random_state=self.seed, n_jobs=1
            )
            self.model.fit(self._x(train), y)

    def predict(self, test: Sequence[Point]) -> list[np.ndarray]:
        if self.constant is not None:
            return [np.full(len(p.options), 1 / len(p.options)) for p in test]
        return _split(self.model.predict_proba(self._x(test))[:, 1], test)


def choice_models(seed: int = 0) -> list[ChoiceModel]:
    return [LogReg(), Forest(seed), TopLetter(), TopAnswer(), Longest(), Overlap(), TimeOnly(seed)]


# -- numbers ---------------------------------------------------------------------------------


def _slog(y: np.ndarray) -> np.ndarray:
    return np.sign(y) * np.log1p(np.abs(y))


def _sexp(z: np.ndarray) -> np.ndarray:
    return np.sign(z) * np.expm1(np.abs(z))


def _num_dense(points: Sequence[Point]) -> np.ndarray:
    return np.asarray([point_features(p) + question_numbers(p) for p in points], dtype=float)


class Median:
    name = "median"

    def fit(self, train: Sequence[Point]) -> None:
        self.value = float(np.median([p.value for p in train]))

    def predict(self, test: Sequence[Point]) -> np.ndarray:
        return np.full(len(test), self.value)


class RidgeText:
    name = "ridge"

    def fit(self, train: Sequence[Point]) -> None:
        from scipy.sparse import csr_matrix, hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import Ridge
        from sklearn.preprocessing import StandardScaler

        self.tfidf = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        self.scale = StandardScaler()
        x = hstack(
            [
                self.tfidf.fit_transform([p.question for p in train]),
                csr_matrix(self.scale.fit_transform(_num_dense(train))),
            ]
        )
        self.model = Ridge(alpha=1.0).fit(x, _slog(np.array([p.value for p in train])))

    def predict(self, test: Sequence[Point]) -> np.ndarray:
        from scipy.sparse import csr_matrix, hstack

        x = hstack(
            [
                self.tfidf.transform([p.question for p in test]),
                csr_matrix(self.scale.transform(_num_dense(test))),
            ]
        )
        return _sexp(self.model.predict(x))


class ForestRegressor:
    name = "forest"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def _x(self, points: Sequence[Point], *, own: bool) -> np.ndarray:
        rows = []
        words = self.words.train_features() if own else [self.words.features(p) for p in points]
        for p, w in zip(points, words, strict=True):
            s, n = self.by_question.get(p.question, (0.0, 0))
            if own:
                s, n = s - _slog(np.array([p.value]))[0], n - 1
            mean = s / n if n > 0 else self.overall
            rows.append([*point_features(p), *question_numbers(p), mean, float(max(n, 0)), *w])
        return np.asarray(rows, dtype=float)

    def fit(self, train: Sequence[Point]) -> None:
        from sklearn.ensemble import RandomForestRegressor

        ys = _slog(np.array([p.value for p in train]))
        self.overall = float(ys.mean())
        self.words = WordValuePrior(train)
        self.by_question: dict[str, tuple[float, int]] = {}
        for p, y in zip(train, ys, strict=True):
            s, n = self.by_question.get(p.question, (0.0, 0))
            self.by_question[p.question] = (s + float(y), n + 1)
        self.model = RandomForestRegressor(
            n_estimators=TREES, min_samples_leaf=2, random_state=self.seed, n_jobs=1
        ).fit(self._x(train, own=True), ys)

    def predict(self, test: Sequence[Point]) -> np.ndarray:
        return _sexp(self.model.predict(self._x(test, own=False)))


class TimeRegressor:
    """The answer from when it is asked alone: query time, its share of the video, index."""

    name = "time"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def fit(self, train: Sequence[Point]) -> None:
        from sklearn.ensemble import RandomForestRegressor

        self.model = RandomForestRegressor(
            n_estimators=TREES, min_samples_leaf=TIME_LEAF, random_state=self.seed, n_jobs=1
        ).fit([time_features(p) for p in train], _slog(np.array([p.value for p in train])))

    def predict(self, test: Sequence[Point]) -> np.ndarray:
        return _sexp(self.model.predict([time_features(p) for p in test]))


def number_models(seed: int = 0) -> list[NumberModel]:
    return [Median(), RidgeText(), ForestRegressor(seed), TimeRegressor(seed)]


def model_names() -> set[str]:
    """Every model's name, choice and number (what ``ProbeConfig.models`` may pick from)."""
    return {m.name for m in [*choice_models(), *number_models()]}


def mra(pred: float, gt: float) -> float:
    from streamspatial.grading.metrics import mean_relative_accuracy

    return mean_relative_accuracy(float(pred) if math.isfinite(pred) else math.inf, gt)


__all__ = ["ChoiceModel", "NumberModel", "choice_models", "model_names", "mra", "number_models"]
