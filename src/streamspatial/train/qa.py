"""``qa`` examples: each query point of a generated item, asked as a run asks it.

The prompt is the benchmark's own (``BenchmarkAdapter.prompt``, with its system prompt), the
same words ``streamspatial run`` sends, so a model trained on these is evaluated on what it
learned to read; the target is the answer as the prompt asks for it (a letter, a number, the
direction text).  A multi-turn chain's second turn names the first turn's *true* answer where a
run puts the model's own (teacher forcing, in the words ``scoring.scorers.prior_text`` uses).

Items marked ``explorable`` are left out: their answer needs views the prefix lacks, which is
what ``explore`` examples teach (:mod:`.explore`: the prefix and the question → the actions;
the prefix and the new views → the answer).  Prefix frames are left to the export's sampling
policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from streamspatial.agents.requests import OPTION_IMAGE_CAPTION as OPTION
from streamspatial.bench.registry import get_adapter
from streamspatial.core.schema import AnswerType, Item, QueryPoint

from .records import ExtraImage, Message, TrainingExample


def answer_text(item: Item, query: QueryPoint) -> str:
    """The reply a correct model gives: the letter, the number, or the direction text."""
    if item.answer_type is AnswerType.NUMBER:
        return f"{float(query.answer):g}"
    return str(query.answer)


def prior_text(item: Item) -> str:
    """How a chain's earlier turn enters the later one's prompt, from its true answer: a
    letter becomes its option's text, a number prints plainly."""
    answer = item.queries[-1].answer
    if item.answer_type is AnswerType.CHOICE:
        option = next((o for o in item.options if o.letter == answer), None)
        if option is not None and option.text is not None:
            return option.text
    return answer_text(item, item.queries[-1])


@dataclass(frozen=True)
class Asked:
    """What a run sends for one query point: the system prompt, the prompt, option pictures."""

    system: str | None
    prompt: str
    options: tuple[ExtraImage, ...]

    def system_turn(self) -> list[Message]:
        return [Message(role="system", text=self.system)] if self.system else []


def asked(item: Item, query: QueryPoint, by_id: dict[str, Item]) -> Asked:
    """The request ``streamspatial run`` makes for ``query`` (an earlier turn of a chain named
    by its true answer; ``by_id``: the folder's items)."""
    adapter = get_adapter(item.benchmark)
    options = tuple(
        ExtraImage(source="option", caption=OPTION.format(letter=o.letter), data=o.image)
        for o in item.options
        if o.image is not None
    )
    prompt = adapter.prompt(item, query, prior_answers=_chain(item, by_id))
    return Asked(adapter.system_prompt(item), prompt, options)


def item_meta(item: Item, query: QueryPoint) -> dict[str, Any]:
    """What a record says of the item it was made from."""
    return {
        "benchmark": item.benchmark,
        "item": item.id,
        "task": item.task.task,
        "evidence": [list(e) for e in query.evidence],
    }


def qa_examples(items: Iterable[Item]) -> Iterator[TrainingExample]:
    """One ``qa`` example per query point of every item that is not explorable."""
    items = list(items)
    by_id = {it.id: it for it in items}
    for item in items:
        if item.explorable:
            continue
        for query in item.queries:
            ask = asked(item, query, by_id)
            messages = ask.system_turn()
            messages.append(Message(role="user", text=ask.prompt, prefix=True, images=ask.options))
            messages.append(Message(role="assistant", text=answer_text(item, query)))
            yield TrainingExample(
                id=f"qa:{item.benchmark}:{item.id}:{query.index}",
                kind="qa",
                video=item.video,
                t_q=float(query.time),
                messages=tuple(messages),
                meta=item_meta(item, query),
            )


def _chain(item: Item, by_id: dict[str, Item]) -> dict[str, str] | None:
    """The earlier turns a chained item's prompt names, by their true answers."""
    if item.depends_on is None:
        return None
    chain: dict[str, str] = {}
    dep = item.depends_on
    while dep is not None and dep in by_id:
        chain[dep] = prior_text(by_id[dep])
        dep = by_id[dep].depends_on
    return chain
