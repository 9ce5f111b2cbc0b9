"""The blind stress test: can text-only models answer a benchmark's items? (TsT-style)

Per task, blind models (:mod:`.tst_models`) are trained with k-fold cross-validation grouped
by house/video — never training and testing on one house — on what a blind model can read
(:mod:`.tst_features`).  Each task gets:

* **chance**: the mean of 1/options over its query points; for numbers the MRA of the
  training median (the answer prior);
* **blind**: per test fold, the predictions of the model that scored best on the *other*
  folds (choosing the model on the test data would call an unbiased benchmark biased: with
  six models and ~100 points, the best of them beats chance by 5 points by luck alone);
* **SE**: a bootstrap over houses of the per-point gap to chance;
* **flagged** when ``blind - chance > max(margin, z·SE)`` (defaults 5 points and z = 4, about
  three true standard deviations, since a bootstrap of test points misses the training
  variance of cross-validation), or, for numbers, when the training median already scores
  ``median_cap`` MRA (0.40) or more beyond ``z·SE``: answers so concentrated that a constant
  is a good guess;
* **strict** flags use the point estimates alone (``blind - chance > margin``,
  ``median > median_cap``): the bar a generator holds its own output to, where pruning is
  cheap; on a few hundred points it calls noise a bias, so it is not the exit rule.

Each item gets a **bias score**: the probability the fold's chosen model gave its correct
option (numbers: the MRA of its prediction), blended 4:1 with the mean over all models to break
ties, minus chance, averaged over the item's query points.  Iterative Bias Pruning
(:mod:`.prune`) drops the highest first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from streamspatial.core.schema import Item

from .tst_features import DEFAULT_GROUP, Point, points_of
from .tst_models import choice_models, mra, number_models


@dataclass(frozen=True)
class ProbeConfig:
    folds: int = 5
    margin: float = 0.05  # points over chance a task may show
    z: float = 4.0  # noise allowance in bootstrap standard errors
    median_cap: float = 0.40  # highest MRA the training median may reach on a numeric task
    min_items: int = 20  # tasks with fewer items are reported, not judged
    seed: int = 0
    bootstrap: int = 2000
    group_pattern: str = DEFAULT_GROUP
    # The candidates ``blind`` is chosen from (names of :mod:`.tst_models`); empty: all of
    # them.  ``("time",)`` asks only whether the clock gives the answers away.
    models: tuple[str, ...] = ()

    def candidates(self, made: list) -> list:
        """The models to train: the chosen ones, and for numbers the median (it is chance)."""
        keep = set(self.models) | {"median"} if self.models else None
        return [m for m in made if keep is None or m.name in keep]


@dataclass
class TaskResult:
    task: str
    kind: str  # "choice" | "number"
    items: int
    points: int
    groups: int
    chance: float
    blind: float | None = None  # model chosen per fold on the other folds
    best_model: str | None = None  # the model chosen most often
    best_of: float | None = None  # the best single model on all folds (optimistic)
    models: dict[str, float] = field(default_factory=dict)
    se: float | None = None
    median_se: float | None = None
    allowance: float | None = None
    judged: bool = False
    flagged: bool = False
    strict: bool = False
    reason: str = ""
    item_bias: dict[str, float] = field(default_factory=dict)
    item_median: dict[str, float] = field(default_factory=dict)  # numbers: the median's MRA

    @property
    def gap(self) -> float | None:
        return None if self.blind is None else self.blind - self.chance

    def as_dict(self, *, items: bool = True) -> dict[str, Any]:
        out = {
            k: v for k, v in self.__dict__.items() if items or k not in ("item_bias", "item_median")
        }
        out["gap"] = self.gap
        return out


@dataclass
class ProbeReport:
    config: ProbeConfig
    tasks: list[TaskResult]

    @property
    def flagged(self) -> list[TaskResult]:
        return [t for t in self.tasks if t.flagged]

    def item_bias(self) -> dict[str, float]:
        return {i: b for t in self.tasks for i, b in t.item_bias.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.__dict__,
            "flagged": [t.task for t in self.flagged],
            "strict": [t.task for t in self.tasks if t.strict],
            "tasks": [t.as_dict() for t in self.tasks],
        }


def folds_of(points: Sequence[Point], k: int, seed: int) -> list[np.ndarray]:
    """Test-fold indexes: houses shuffled (seeded) and dealt into ``k`` folds of similar size."""
    groups = sorted({p.group for p in points})
    rng = np.random.default_rng(seed)
    order = [groups[i] for i in rng.permutation(len(groups))]
    sizes = Counter(p.group for p in points)
    bins: list[list[str]] = [[] for _ in range(min(k, len(groups)))]
    load = [0] * len(bins)
    for g in sorted(order, key=lambda g: -sizes[g]):  # largest first, into the lightest fold
        i = int(np.argmin(load))
        bins[i].append(g)
        load[i] += sizes[g]
    where = {g: i for i, b in enumerate(bins) for g in b}
    return [
        np.array([n for n, p in enumerate(points) if where[p.group] == i]) for i in range(len(bins))
    ]


def _bootstrap_se(values: np.ndarray, groups: Sequence[str], reps: int, seed: int) -> float:
    names = sorted(set(groups))
    idx = np.array([names.index(g) for g in groups])
    sums = np.bincount(idx, weights=values, minlength=len(names))
    counts = np.bincount(idx, minlength=len(names)).astype(float)
    rng = np.random.default_rng(seed)
    w = rng.multinomial(len(names), np.full(len(names), 1 / len(names)), size=reps)
    means = (w @ sums) / np.maximum(w @ counts, 1e-12)
    return float(means.std(ddof=1)) if reps > 1 else 0.0


def _oof(points: Sequence[Point], folds: list[np.ndarray], make: Callable[[], list]) -> dict:
    """Out-of-fold predictions of every model: name → list indexed like ``points``."""
    out: dict[str, list] = defaultdict(lambda: [None] * len(points))
    for test in folds:
        train_idx = np.setdiff1d(np.arange(len(points)), test)
        train = [points[i] for i in train_idx]
        tests = [points[i] for i in test]
        for model in make():
            model.fit(train)
            preds = model.predict(tests)
            for i, pr in zip(test, preds, strict=True):
                out[model.name][i] = pr
    return dict(out)


def _select(scores: dict[str, np.ndarray], folds: list[np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """Per test fold, the scores of the model that did best on the other folds."""
    chosen = np.zeros(len(next(iter(scores.values()))))
    names = []
    for i, test in enumerate(folds):
        others = (
            np.concatenate([f for j, f in enumerate(folds) if j != i]) if len(folds) > 1 else test
        )
        best = max(scores, key=lambda m: (float(scores[m][others].mean()), -list(scores).index(m)))
        chosen[test] = scores[best][test]
        names.append(best)
    return chosen, names


def _hit(probs: np.ndarray, correct: int | None) -> float:
    """Expected accuracy of answering the most probable option, ties broken at random."""
    tied = np.flatnonzero(probs >= probs.max() - 1e-12)
    return float(correct in tied) / len(tied)


def probe_task(task: str, points: list[Point], cfg: ProbeConfig) -> TaskResult:
    choice = points[0].is_choice
    items = len({p.item_id for p in points})
    groups = [p.group for p in points]
    res = TaskResult(
        task=task,
        kind="choice" if choice else "number",
        items=items,
        points=len(points),
        groups=len(set(groups)),
        chance=float(np.mean([p.chance for p in points])) if choice else float("nan"),
    )
    if res.groups < 2:
        res.reason = "one house/video: cannot cross-validate"
        if choice:
            return res
        res.chance = float("nan")
        return res
    folds = folds_of(points, cfg.folds, cfg.seed)
    if choice:
        probs = _oof(points, folds, lambda: cfg.candidates(choice_models(cfg.seed)))
        scores = {
            m: np.array([_hit(pr, p.correct) for pr, p in zip(prs, points, strict=True)])
            for m, prs in probs.items()
        }
        chance = np.array([p.chance for p in points])
        conf = {
            m: np.array([pr[p.correct] for pr, p in zip(prs, points, strict=True)])
            for m, prs in probs.items()
        }
    else:
        preds = _oof(points, folds, lambda: cfg.candidates(number_models(cfg.seed)))
        scores = {
            m: np.array([mra(v, p.value) for v, p in zip(vals, points, strict=True)])  # type: ignore[arg-type]
            for m, vals in preds.items()
        }
        chance = scores["median"]
        res.chance = float(chance.mean())
        conf = scores
    pool = {m: v for m, v in scores.items() if not cfg.models or m in cfg.models}
    chosen, names = _select(pool, folds)
    # The bias score follows the model the probe trusts on each fold, with the mean of all
    # models breaking its ties (rules put all their weight on one option).
    picked = np.zeros(len(points))
    for test, name in zip(folds, names, strict=True):
        picked[test] = conf[name][test]
    bias = (
        0.8 * picked
        + 0.2 * np.mean(list(conf.values()), axis=0)
        - (chance if choice else res.chance)
    )
    res.blind = float(chosen.mean())
    res.models = {m: float(s.mean()) for m, s in scores.items()}
    res.best_of = max(res.models.values())
    res.best_model = Counter(names).most_common(1)[0][0]
    res.se = _bootstrap_se(chosen - chance, groups, cfg.bootstrap, cfg.seed)
    res.allowance = max(cfg.margin, cfg.z * res.se)
    per_item: dict[str, list[float]] = defaultdict(list)
    for p, b in zip(points, bias, strict=True):
        per_item[p.item_id].append(float(b))
    res.item_bias = {i: float(np.mean(v)) for i, v in per_item.items()}
    if not choice:
        med: dict[str, list[float]] = defaultdict(list)
        for p, m in zip(points, chance, strict=True):
            med[p.item_id].append(float(m))
        res.item_median = {i: float(np.mean(v)) for i, v in med.items()}
    res.judged = items >= cfg.min_items
    gap = res.blind - res.chance
    reasons = []
    if gap > res.allowance:
        reasons.append(
            f"blind {100 * gap:+.1f} pp over chance (allowance {100 * res.allowance:.1f})"
        )
    if not choice:
        res.median_se = _bootstrap_se(chance, groups, cfg.bootstrap, cfg.seed + 1)
        if res.chance - cfg.median_cap > cfg.z * res.median_se:
            reasons.append(f"training median scores MRA {res.chance:.2f} > {cfg.median_cap:.2f}")
    res.strict = res.judged and (gap > cfg.margin or (not choice and res.chance > cfg.median_cap))
    res.flagged = res.judged and bool(reasons)
    res.reason = "; ".join(reasons) if res.judged else f"fewer than {cfg.min_items} items"
    return res


def stress_test(
    items: Iterable[Item],
    cfg: ProbeConfig | None = None,
    *,
    tasks: Iterable[str] | None = None,
    on_task: Callable[[TaskResult], None] | None = None,
) -> ProbeReport:
    """Run the probe on every task of ``items`` (or only ``tasks``), tasks in first-seen order."""
    cfg = cfg or ProbeConfig()
    by_task: dict[str, list[Point]] = defaultdict(list)
    for p in points_of(items, group_pattern=cfg.group_pattern):
        by_task[p.task].append(p)
    wanted = set(tasks) if tasks is not None else None
    results = []
    for task, pts in by_task.items():
        if wanted is not None and task not in wanted:
            continue
        # The learners see rows in one canonical order: a file's order must not move a verdict
        # (the forest's bootstraps and the per-fold model choice shifted tasks by ~10 points).
        pts.sort(key=lambda p: (p.group, p.item_id, p.index))
        r = probe_task(task, pts, cfg)
        results.append(r)
        if on_task is not None:
            on_task(r)
    return ProbeReport(cfg, results)


__all__ = ["ProbeConfig", "ProbeReport", "TaskResult", "folds_of", "probe_task", "stress_test"]
