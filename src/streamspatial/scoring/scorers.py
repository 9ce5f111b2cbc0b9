"""Scorers: how one response to one query point becomes an answer and a score.

Two scorers exist, and every record holds the verdict of both (``record.extra["scorers"]``),
so a report can print either from the same responses:

* ``official`` reproduces each benchmark's own scoring code point by point — its answer
  reader (``bench/<name>/official.py``), its treatment of unreadable answers, and (in
  ``bench/<name>/score.py``) its averaging — so a number means what the
  leaderboard's number means.  A benchmark without published scoring code (S3-Bench) is scored
  by the paper rules under both names.
* ``paper`` is the formulas as the papers write them (the G.7 cascade with letters up to G,
  numbers in words, the benchmark's invalid-answer policy).

Open-ended UCS-Bench direction answers are scored the same way by both: by the set of direction
classes the response names against the set the released answer names (its official code has
no rule for them; see ``docs/reproducing.md``).

The scorer of a run (``--scorer``) also decides what the model is sent (the official or the
paper prompt and frame sampling); :func:`default_scorer` picks ``official`` for a released
benchmark file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, is_dataclass
from typing import Any, Protocol

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.bench.registry import ADAPTERS, HOMES
from streamspatial.core.directions import direction_classes
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import AnswerType, Item, QueryPoint
from streamspatial.grading.extract import extract_choice
from streamspatial.grading.metrics import score_prediction
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.verdict import Rule, Scored

SCORERS = ("official", "paper")


# --- paper ---------------------------------------------------------------------------------


def paper_rule(item: Item, query: QueryPoint, text: str) -> Scored:
    """The papers' extraction (G.7 letters A–G, numbers incl. words) and invalid policy."""
    adapter = ADAPTERS.get(item.benchmark)
    spec = adapter.scoring if adapter is not None else None
    if item.answer_type is AnswerType.CHOICE:
        extracted: str | float | None = extract_choice(text, item.letters)
    else:
        extracted = extract_number(text, item.question)
    if extracted is None:
        wrong = spec is None or spec.invalid == "wrong"
        return Scored(None, 0.0 if wrong else None, False, "paper")
    metric = spec.number_metric if spec is not None else "mra"
    return Scored(extracted, score_prediction(extracted, query.answer, number_metric=metric),
                  True, "paper")  # fmt: skip


# --- official ------------------------------------------------------------------------------


_OFFICIAL: dict[str, Rule] = {
    name: b.official for name, b in HOMES.items() if b.official is not None
}
_PAPER: dict[str, Rule] = {
    **{name: b.paper for name, b in HOMES.items() if b.paper is not None},
}
# Rules that read a language model judge's reply (``run --judge``) beside the response.
_READS_JUDGE = frozenset(
    r for b in HOMES.values() if b.reads_judge for r in (b.official, b.paper) if r
)
# Rules that read a failed call (None) themselves; every other rule reads it as "".
_READS_FAILURES = frozenset([
    *(r for b in HOMES.values() if b.reads_failures for r in (b.official, b.paper) if r),
])  # fmt: skip


def direction_rule(item: Item, query: QueryPoint, text: str) -> Scored:
    """Open-ended direction items: the set of classes named must equal the answer's set."""
    got = direction_classes(text)
    if not got:
        return Scored(None, 0.0, False, "directions")
    truth = direction_classes(str(query.answer))
    return Scored("+".join(sorted(got)), 1.0 if got == truth else 0.0, True, "directions")


def rule_for(item: Item, scorer: str) -> Rule:
    """The rule ``scorer`` scores ``item`` with."""
    if scorer not in SCORERS:
        raise StreamspatialError(f"--scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    if item.answer_type is AnswerType.DIRECTION:
        return direction_rule
    if scorer == "official":
        return _OFFICIAL.get(item.benchmark, paper_rule)
    return _PAPER.get(item.benchmark, paper_rule)


def score_response(
    item: Item,
    query: QueryPoint,
    text: str | None,
    scorer: str,
    judge: Mapping[str, Any] | None = None,
) -> Scored:
    """``scorer``'s verdict on ``text``; None is a call that failed.  ``judge``: what a
    language model judge said of it (``record.extra["judge"]``), for the benchmarks whose
    official scorer is one; None when the run had no judge."""
    rule = rule_for(item, scorer)
    if text is None and rule not in _READS_FAILURES:
        text = ""
    if rule in _READS_JUDGE:
        return rule(item, query, text, judge)  # type: ignore[call-arg]
    return rule(item, query, text)  # type: ignore[arg-type]


def score_all(
    item: Item, query: QueryPoint, text: str | None, judge: Mapping[str, Any] | None = None
) -> dict[str, Scored]:
    """Every scorer's verdict on one response (what a record stores); None: the call failed."""
    return {name: score_response(item, query, text, name, judge) for name in SCORERS}


def has_official(benchmark: str) -> bool:
    """Whether ``official`` differs from ``paper`` for this benchmark (it publishes code)."""
    return benchmark in _OFFICIAL


def default_scorer(items: Iterable[Item]) -> str:
    """``official`` for a released benchmark file, ``paper`` otherwise.

    Items made by streamspatial's question generators carry their ``intent``: no leaderboard
    scored them, so the paper rules (letters up to G, numbers in words) apply.  A benchmark
    without official scoring code is ``paper`` too.
    """
    items = list(items)
    if not items or any(it.intent is not None for it in items):
        return "paper"
    return "official" if all(has_official(it.benchmark) for it in items) else "paper"


# --- one answer ----------------------------------------------------------------------------


def extract(item: Item, text: str) -> str | float | None:
    """The item's answer in the model's text under the paper rules (a letter, a number, or
    the direction classes of an open-ended item)."""
    return score_response(item, item.queries[0], text, "paper").extracted


def score(
    adapter: BenchmarkAdapter, answer: str | float, extracted: str | float | None
) -> float | None:
    """Per the adapter's scoring spec; an unparseable answer is 0 or excluded (None)."""
    spec = adapter.scoring
    if extracted is None:
        return 0.0 if spec.invalid == "wrong" else None
    return score_prediction(extracted, answer, number_metric=spec.number_metric)


class Answered(Protocol):
    """What :func:`prior_text` reads of a record: what was extracted, and the raw text."""

    extracted: str | float | None
    raw_output: str


def prior_text(record: Answered, item: Item) -> str:
    """How a model's earlier answer enters a dependant's prompt: what it committed to.

    A chosen letter becomes that option's text (the dependant's question names the object the
    model picked, not a letter); a number prints plainly; an unparseable answer passes on the
    raw output, so error propagation is measured rather than hidden; a free-text answer
    (OmniMMI's) is passed on as the model said it.
    """
    ans = record.extracted
    if ans is None or item.answer_type is AnswerType.TEXT:  # a text answer: as it was said
        return record.raw_output.strip()
    if isinstance(ans, str):
        option = next((o for o in item.options if o.letter == ans), None)
        return option.text if option is not None and option.text is not None else ans
    return f"{float(ans):g}"


# --- records -------------------------------------------------------------------------------

SCORERS_KEY = "scorers"  # record.extra[SCORERS_KEY][scorer] = Scored.as_dict()
# record.extra[JUDGE_KEY] = {"model", "reply", "error"}: the judge of a run --judge.
JUDGE_KEY = "judge"
SCORER_KEY = "scorer"  # record.extra[SCORER_KEY]: the scorer of the record's own fields
# The verdict rule of a query point that has no reply (one an import found none for) under a
# scorer that never sees it: every official scorer scores the replies it is given, nothing else.
NO_REPLY = "no-reply"


def record_scorer(record: Mapping[str, Any] | Any) -> str:
    """The scorer that made a record's ``extracted``/``score``/``valid`` (old runs: paper)."""
    extra = _as_dict(record).get("extra") or {}
    return str(extra.get(SCORER_KEY, "paper"))


def rescored(records: Iterable[Mapping[str, Any] | Any], scorer: str) -> list[dict[str, Any]]:
    """Records as plain dicts whose ``extracted``/``score``/``valid``/``rule`` are ``scorer``'s.

    A human's answer (``agent == "human"``) is given as a letter or a number, not read out of
    text, so every scorer's verdict on it is the record's own.  A model record made before
    scorers were recorded holds the paper verdict only; asking it for another scorer is a
    one-line error rather than a silently different number.  A query point without a reply is
    left out under a scorer whose verdict on it is :data:`NO_REPLY`, as that scorer's code
    never sees it.
    """
    out = []
    for record in records:
        data = _as_dict(record)
        extra = data.get("extra") or {}
        verdicts = extra.get(SCORERS_KEY) or {}
        if (verdicts.get(scorer) or {}).get("rule") == NO_REPLY:
            continue
        if scorer in verdicts:
            data.update({k: verdicts[scorer][k] for k in ("extracted", "score", "valid", "rule")})
            data["prediction"] = data["extracted"]
        elif record_scorer(data) != scorer and data.get("agent") != "human":
            raise StreamspatialError(
                f"record {data.get('item_id')}#{data.get('query_index')} was scored before "
                f"--scorer existed (paper rules only); report it with --scorer paper, or run "
                f"it again to score it officially"
            )
        out.append(data)
    return out


def _as_dict(record: Mapping[str, Any] | Any) -> dict[str, Any]:
    return asdict(record) if is_dataclass(record) else dict(record)  # type: ignore[arg-type]


__all__ = [
    "NO_REPLY",
    "SCORERS",
    "Scored",
    "default_scorer",
    "direction_rule",
    "extract",
    "has_official",
    "paper_rule",
    "prior_text",
    "record_scorer",
    "rescored",
    "rule_for",
    "score",
    "score_all",
    "score_response",
]
