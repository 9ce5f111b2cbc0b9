"""The heuristic baselines of the papers: random guess and frequent answer.

Both are honest by construction.  Random is a pure function of (seed, item id, query time),
so it reproduces exactly whatever order or concurrency the runner uses.  Frequent answer is
computed *leave-one-out*: the item being asked never votes for its own answer, otherwise the
baseline would read the label it is scored against.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Iterable

from streamspatial.core.schema import AnswerType, Item
from streamspatial.models.types import ModelRequest, ModelResponse

Answer = str | float


class RandomBackend:
    """Uniform over ``request.choices``; choice items only (S3-Bench prints "-" for numbers).

    ``answer_types`` tells the run planner to leave number items out of a random run (noted in
    ``run.json`` and the report); asked about one anyway, it answers with an error.
    """

    answer_types = frozenset({"choice"})

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.name = "random"

    def __repr__(self) -> str:
        return f"RandomBackend(seed={self.seed})"

    def choose(self, item_id: str, query_time: float, choices: str) -> str:
        digest = hashlib.sha256(f"{self.seed}\0{item_id}\0{query_time:.6f}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big")).choice(choices)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if not request.item_id:  # a memory agent's side call: a baseline keeps no memory
            return ModelResponse(text="")
        if not request.choices:
            return ModelResponse(text="", error="random baseline answers choice items only")
        return ModelResponse(text=self.choose(request.item_id, request.query_time, request.choices))

    async def aclose(self) -> None:
        return None


def frequent_task_key(item: Item) -> str:
    """The group the frequent baseline counts answers in: benchmark and finest task label.

    The runner puts this in ``ModelRequest.task_key`` so the baseline can find the group.
    """
    return f"{item.benchmark}/{item.task.task}"


def _normal(answer: Answer) -> Answer:
    return answer if isinstance(answer, str) else float(answer)


def _order(answer: Answer) -> tuple[int, float, str]:
    """Deterministic tie-break: numbers ascending, then letters/strings alphabetically."""
    return (1, 0.0, answer) if isinstance(answer, str) else (0, float(answer), "")


def format_answer(answer: Answer) -> str:
    if isinstance(answer, str):
        return answer
    return str(int(answer)) if float(answer).is_integer() else repr(float(answer))


class FrequentBackend:
    """Most frequent answer of the item's task, counted without the item itself.

    For number items this is the most frequent *value* (the mode), like the letter for choice
    items: the seeds name the baseline "Frequent Answer" without defining a numeric variant,
    and the mode is the literal reading.  Ties go to the smallest number, then the
    alphabetically first letter.
    """

    def __init__(self, records: Iterable[tuple[str, str, Answer]]):
        self.name = "frequent"
        self._by_task: dict[str, Counter[Answer]] = defaultdict(Counter)
        self._by_item: dict[tuple[str, str], Counter[Answer]] = defaultdict(Counter)
        for item_id, task_key, answer in records:
            a = _normal(answer)
            self._by_task[task_key][a] += 1
            self._by_item[(task_key, item_id)][a] += 1

    @classmethod
    def from_items(cls, items: Iterable[Item]) -> FrequentBackend:
        """One record per query point, grouped by :func:`frequent_task_key`."""
        return cls(
            (
                item.id,
                frequent_task_key(item),
                q.answer if item.answer_type is not AnswerType.NUMBER else float(q.answer),
            )
            for item in items
            for q in item.queries
        )

    def __repr__(self) -> str:
        return f"FrequentBackend(tasks={len(self._by_task)})"

    def answer_for(self, item_id: str, task_key: str) -> Answer | None:
        counts = self._by_task.get(task_key, Counter()) - self._by_item.get(
            (task_key, item_id), Counter()
        )
        if not counts:
            return None
        return min(counts.items(), key=lambda kv: (-kv[1], _order(kv[0])))[0]

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if not request.item_id:  # a memory agent's side call: a baseline keeps no memory
            return ModelResponse(text="")
        answer = self.answer_for(request.item_id, request.task_key)
        if answer is None:
            return ModelResponse(
                text="",
                error=f"frequent baseline: no other item of task "
                f"{request.task_key!r} to count answers from",
            )
        return ModelResponse(text=format_answer(answer))

    async def aclose(self) -> None:
        return None
