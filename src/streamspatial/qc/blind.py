"""The blind probe (OVO-S-Bench E.5.1 text-only probe; UCS-Bench F.5 blind test).

A backend answers every query point from the question and options alone — the benchmark's own
text-only prompt, no frame — and is scored by the benchmark's own rule.  Items it gets right at
every query point are *leakage candidates*: the wording or the option set gives the answer
away.  Per task, blind accuracy far above chance says the same about a whole family.  Any
backend works (``openai:<model>`` is the paper's setting; ``random`` checks the arithmetic).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from types import SimpleNamespace
from typing import Any

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import AnswerType, Item
from streamspatial.models.requests import item_request
from streamspatial.models.types import Backend, ModelRequest, TextPart
from streamspatial.scoring.scorers import extract, prior_text, score

RIGHT = 0.999  # a score this high is a right answer (exact for choices, full MRA for numbers)


@dataclass(frozen=True)
class BlindAnswer:
    item_id: str
    query_index: int
    task: str
    raw_output: str
    extracted: str | float | None
    answer: str | float
    score: float | None
    chance: float | None  # 1 / number of options for choice items; None for numbers
    error: str | None = None

    @property
    def right(self) -> bool:
        return self.score is not None and self.score >= RIGHT


@dataclass
class BlindReport:
    answers: list[BlindAnswer]

    def leakage_candidates(self) -> list[str]:
        """Items answered right at every one of their query points, in file order."""
        by_item: dict[str, list[BlindAnswer]] = defaultdict(list)
        for a in self.answers:
            by_item[a.item_id].append(a)
        return [i for i, answers in by_item.items() if all(a.right for a in answers)]

    def per_task(self) -> list[dict[str, Any]]:
        """Blind accuracy vs chance per task (query points), tasks in first-seen order."""
        groups: dict[str, list[BlindAnswer]] = defaultdict(list)
        for a in self.answers:
            groups[a.task].append(a)
        rows = []
        for task, answers in groups.items():
            scored = [a for a in answers if a.score is not None]
            chances = [a.chance for a in answers if a.chance is not None]
            accuracy = sum(a.score for a in scored) / len(scored) if scored else None  # type: ignore[misc]
            chance = sum(chances) / len(chances) if len(chances) == len(answers) else None
            rows.append(
                {
                    "task": task,
                    "n": len(answers),
                    "blind_accuracy": accuracy,
                    "chance": chance,
                    "above_chance": None
                    if accuracy is None or chance is None
                    else accuracy - chance,
                    "right": sum(a.right for a in answers),
                    "errors": sum(a.error is not None for a in answers),
                }
            )
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "leakage_candidates": self.leakage_candidates(),
            "per_task": self.per_task(),
            "answers": [asdict(a) for a in self.answers],
        }


def blind_request(
    adapter: BenchmarkAdapter,
    item: Item,
    index: int,
    prior_answers: dict[str, str] | None = None,
) -> ModelRequest:
    """The text-only request: the benchmark's prompt for no frames, and nothing else.

    ``prior_answers`` carries the probe's *own* earlier answers into multi-turn dependants
    (S3-Bench chains), as the runner does; ground truth never enters.
    """
    query = item.queries[index]
    prompt = adapter.prompt(item, query, text_only=True, prior_answers=prior_answers)
    system = adapter.system_prompt(item)
    return item_request(item, query.time, (TextPart(prompt),), system=system, answering=True)


async def blind_probe(
    adapter: BenchmarkAdapter,
    items: Iterable[Item],
    backend: Backend,
    *,
    concurrency: int = 8,
    on_answer: Callable[[BlindAnswer], None] | None = None,
) -> BlindReport:
    """Ask every query point blind; answers come back in file order.

    Items are asked in waves: first those that depend on nothing, then those whose dependency
    has been answered (its last query point's answer enters their prompt).
    """
    items = list(items)
    gate = asyncio.Semaphore(concurrency)
    prior: dict[str, str] = {}

    async def one(item: Item, index: int) -> BlindAnswer:
        query = item.queries[index]
        choice = item.answer_type is AnswerType.CHOICE
        request = blind_request(adapter, item, index, prior)
        async with gate:
            response = await backend.generate(request)
        extracted = None if response.error else extract(item, response.text)
        answer = BlindAnswer(
            item_id=item.id,
            query_index=index,
            task=item.task.task,
            raw_output=response.text,
            extracted=extracted,
            answer=query.answer,
            score=score(adapter, query.answer, extracted),
            chance=1 / len(item.options) if choice else None,
            error=response.error,
        )
        if on_answer is not None:
            on_answer(answer)
        return answer

    by_key: dict[tuple[str, int], BlindAnswer] = {}
    ids = {it.id for it in items}
    left = items
    while left:
        ready = [it for it in left if it.depends_on is None or it.depends_on in prior]
        waiting = [it for it in left if it not in ready]
        if not ready:  # a dependency outside the file, or a cycle: nothing more can be asked
            missing = sorted({str(it.depends_on) for it in waiting})
            raise StreamspatialError(
                f"items {', '.join(it.id for it in waiting)} depend on "
                f"{', '.join(missing)}, which "
                + ("is not in the file" if not set(missing) & ids else "cannot be answered first")
            )
        answers = await asyncio.gather(
            *(one(item, q.index) for item in ready for q in item.queries)
        )
        for a in answers:
            by_key[(a.item_id, a.query_index)] = a
        for item in ready:
            last = by_key[(item.id, item.queries[-1].index)]
            prior[item.id] = prior_text(SimpleNamespace(**asdict(last)), item)  # type: ignore[arg-type]
        left = waiting
    return BlindReport([by_key[(it.id, q.index)] for it in items for q in it.queries])


__all__ = ["BlindAnswer", "BlindReport", "blind_probe", "blind_request"]
