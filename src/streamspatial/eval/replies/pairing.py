"""Pairing replies made elsewhere with the release's query points.

A reply names its question by id (the item's, or the release record's with a query time or
index), by its place in the release, or by its content (:class:`~.types.Reply`).  Each is
checked: a question the record stored must be the release's, and the ground truth it stored
must agree with the release's answer.  Where it does not, the record was filed under the wrong
id: it is paired with the unanswered *twin* — the item with the same task, video and question
whose answer is the stored ground truth — and the repair is named in one line.  (OVO-Bench's
Gemini release files five records under the ids of such twins; its scorer is right only
because it scores each record against the ground truth stored in it.)  A second reply to an
answered query point with no twin to take it is refused, unless it repeats the first exactly.
Query points left without a reply are listed.  When many stored ground truths disagree and no
twin explains them, the files are not predictions for this release, and pairing refuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from streamspatial.bench.base import QUERY_AT_END
from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import AnswerType, Item, QueryPoint

from .types import Release, Reply

Key = tuple[str, int]  # (item id, query index)
# Disagreeing ground truths tolerated (each named) before the pairing is refused.
TOLERATED_DISAGREEMENTS = 5
TOLERATED_SHARE = 0.05


@dataclass
class Pairing:
    """Each answered query point's reply; the repairs and notes to tell the user; what is
    left without a reply, in release order."""

    replies: dict[Key, Reply] = field(default_factory=dict)
    repairs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: list[Key] = field(default_factory=list)


def pair(release: Release, replies: Iterable[Reply]) -> Pairing:
    """Pair every reply, or raise one :class:`InputError` naming every reply that cannot be."""
    problems: list[Problem] = []
    out = Pairing()
    waiting: list[tuple[Reply, list[Key]]] = []
    with_truth = 0
    for reply in replies:
        keys = _candidates(release, reply, problems)
        if not keys:
            continue
        if reply.question is not None:  # probes at one time tell their questions apart
            asked = [
                k for k in keys if _norm(release.by_id[k[0]].question) == _norm(reply.question)
            ]
            if not asked:
                item = release.by_id[keys[0][0]]
                problems.append(
                    reply.problem(
                        "question",
                        f"expected the release's question of "
                        f"item {item.id}, {item.question!r}, got "
                        f"{reply.question!r}",
                        item.id,
                    )
                )
                continue
            keys = asked
        with_truth += reply.truth is not None
        free = [k for k in keys if k not in out.replies]
        right = [k for k in free if agrees(reply.truth, *_point(release, k))]
        if right:
            out.replies[right[0]] = reply
        else:
            waiting.append((reply, keys))
    disagreeing: list[str] = []
    twins = _twins(release)
    for reply, keys in waiting:
        own = release.by_id[keys[0][0]]
        twin = _twin(release, twins, own, reply, out.replies)
        free = [k for k in keys if k not in out.replies]
        if twin is not None:
            out.replies[twin] = reply
            other = release.by_id[twin[0]]
            own_truth = own.queries[keys[0][1]].answer
            if agrees(reply.truth, own, own.queries[keys[0][1]]):
                why = f"a second time (stored ground truth {reply.truth!r}, as {own.id}'s)"
            else:
                why = f"with ground truth {reply.truth!r}, where {own.id}'s is {own_truth!r}"
            out.repairs.append(
                f"{reply.where}: filed under {own.id} {why}; paired with {other.id}: same task, "
                f"video and question, ground truth {_release_answer(release, twin)!r}, and no "
                "reply of its own"
            )
        elif free:
            out.replies[free[0]] = reply
            truth = _release_answer(release, free[0])
            disagreeing.append(
                f"{reply.where}: item {own.id}: its stored ground truth "
                f"{reply.truth!r} differs from the release's {truth!r}; scored "
                "against the release's"
            )
        elif _same(out.replies[keys[0]], reply):
            out.notes.append(
                f"{reply.where}: repeats the reply to {own.id} "
                f"({out.replies[keys[0]].where}); kept once"
            )
        else:
            first = out.replies[keys[0]]
            problems.append(
                reply.problem(
                    "",
                    f"answers item {own.id} a second time (first at "
                    f"{first.where}), with no unanswered item of the same "
                    "question to take it",
                    own.id,
                )
            )
    if len(disagreeing) > max(TOLERATED_DISAGREEMENTS, TOLERATED_SHARE * with_truth):
        problems.append(
            Problem(
                str(release.path),
                "",
                f"{len(disagreeing)} of {with_truth} "
                "replies carry a ground truth that differs from this release's "
                f"(first: {disagreeing[0]}): these are predictions for another "
                "release or another order",
            )
        )
    if problems:
        raise InputError(problems)
    out.notes.extend(disagreeing)
    out.missing = [
        (it.id, q.index)
        for it in release.items
        for q in it.queries
        if (it.id, q.index) not in out.replies
    ]
    return out


def agrees(truth: str | float | None, item: Item, query: QueryPoint) -> bool:
    """Whether a stored ground truth names the release's answer: the same letter or that
    option's text, the same number; no stored truth agrees with any."""
    if truth is None:
        return True
    if item.answer_type is AnswerType.CHOICE:
        text = _norm(str(truth)).strip('"').lower()
        if text.upper() == str(query.answer):
            return True
        option = next((o for o in item.options if o.letter == query.answer), None)
        return option is not None and _norm(option.text or "").lower() == text
    try:
        return abs(float(truth) - float(query.answer)) < 1e-9
    except (TypeError, ValueError):
        return _norm(str(truth)).lower() == _norm(str(query.answer)).lower()


def _candidates(release: Release, reply: Reply, problems: list[Problem]) -> list[Key]:
    """The query points the reply may answer, in order (several when a record's probes share
    a time); none, with a problem, when it names nothing of the release."""
    items = _items(release, reply, problems)
    if not items:
        return []
    if reply.t_q is not None:
        keys = [
            (it.id, q.index)
            for it in items
            for q in it.queries
            if abs(q.time - reply.t_q) < 1e-6 or it.meta.get(QUERY_AT_END)
        ]
        if not keys:
            times = sorted({q.time for it in items for q in it.queries})
            problems.append(
                reply.problem(
                    reply.time_field,
                    f"expected one of the query times "
                    f"{', '.join(f'{t:g}' for t in times)} s, got "
                    f"{reply.t_q:g} s",
                    items[0].id,
                )
            )
        return keys
    if reply.query_index is not None:
        keys = [(it.id, reply.query_index) for it in items if reply.query_index < len(it.queries)]
        if not keys:
            problems.append(
                reply.problem(
                    "query_index",
                    f"expected 0–{len(items[0].queries) - 1}, got {reply.query_index}",
                    items[0].id,
                )
            )
        return keys
    keys = [(it.id, q.index) for it in items for q in it.queries]
    if len(keys) > 1:
        problems.append(
            reply.problem(
                "query_index",
                f"expected query_index or t_q: {items[0].id} is asked at {len(keys)} times",
                items[0].id,
            )
        )
        return []
    return keys


def _items(release: Release, reply: Reply, problems: list[Problem]) -> list[Item]:
    name = release.path.name
    if reply.item_id is not None:
        item = release.by_id.get(reply.item_id)
        if item is None:
            problems.append(
                reply.problem(
                    "item_id",
                    f"expected an item id of {name} (such as {release.items[0].id!r})",
                    reply.item_id,
                )
            )
        return [item] if item is not None else []
    if reply.record is not None:
        items = release.by_record.get(reply.record, [])
        if not items:
            problems.append(
                reply.problem(
                    reply.id_field, f"expected the id of a question of {name}, got {reply.record!r}"
                )
            )
        return items
    if reply.position is not None:
        order = release.in_file_order
        if not 0 <= reply.position < len(order):
            problems.append(
                reply.problem(
                    reply.id_field,
                    f"expected a place in {name}, 0–{len(order) - 1}, got {reply.position}",
                )
            )
            return []
        return [order[reply.position]]
    wanted = {k: _norm(v) for k, v in reply.match}
    items = [
        it for it in release.items if all(_norm(_field(it, k)) == v for k, v in wanted.items())
    ]
    if not items:
        said = ", ".join(f"{k} {v!r}" for k, v in wanted.items())
        problems.append(reply.problem("", f"expected a question of {name} with {said}"))
    return items


def _field(item: Item, name: str) -> str:
    return {"video": item.video, "question": item.question, "task": item.task.task}[name]


def _twins(release: Release) -> dict[tuple[str, str, str], list[Item]]:
    out: dict[tuple[str, str, str], list[Item]] = {}
    for it in release.items:
        out.setdefault((it.task.task, it.video, _norm(it.question)), []).append(it)
    return out


def _twin(
    release: Release,
    twins: dict[tuple[str, str, str], list[Item]],
    own: Item,
    reply: Reply,
    taken: dict[Key, Reply],
) -> Key | None:
    """The first unanswered query point of another item with ``own``'s task, video and
    question whose answer is the reply's stored ground truth."""
    if reply.truth is None:
        return None
    for it in twins.get((own.task.task, own.video, _norm(own.question)), []):
        if it.id == own.id:
            continue
        for q in it.queries:
            if (it.id, q.index) not in taken and agrees(reply.truth, it, q):
                return (it.id, q.index)
    return None


def _point(release: Release, key: Key) -> tuple[Item, QueryPoint]:
    item = release.by_id[key[0]]
    return item, item.queries[key[1]]


def _release_answer(release: Release, key: Key) -> str | float:
    return _point(release, key)[1].answer


def _same(a: Reply, b: Reply) -> bool:
    return a.text == b.text and a.truth == b.truth


def _norm(text: str) -> str:
    return " ".join(str(text).split())


__all__ = ["Key", "Pairing", "agrees", "pair"]
