"""The rules agent's backend: what the runner calls a model, answering from the reasoner.

An explorable item reaches its answer through the exploration controller, which talks to a
backend: this one returns the reasoner's answer at t_q, asks to look around
(``sweep_around``) when the controller offers actions, and answers again from the memory with
the views it got (:meth:`~.agent.SceneGraphRulesAgent.answer_after_looking`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Protocol

from streamspatial.agents.exploration import OFFER

EXPLORE_OFFER = OFFER[: OFFER.index(":") + 1]  # how the exploration controller offers actions
LOOK_AROUND = '{"action": "sweep_around"}'


class RuleAnswerer(Protocol):
    """What the backend asks of the rules agent (``SceneGraphRulesAgent``, which makes it):
    a protocol here, so that the backend need not import the agent that imports it."""

    _explorable: Collection[str]

    def answer_after_looking(self, item_id: str, views: Sequence[Any]) -> str: ...

    def answer_for(self, item_id: str, query_time: float) -> str | None: ...


class RuleAnswerBackend:
    """The "model" of the rules agent: returns the reasoner's answer for each request."""

    def __init__(self, agent: RuleAnswerer):
        self.agent = agent
        self.name = "rules"

    async def generate(self, request: Any) -> Any:
        from streamspatial.models.types import ModelResponse

        if request.item_id in self.agent._explorable:
            texts = " ".join(getattr(p, "text", "") for p in request.parts)
            views = [v for v in request.images if v.record is not None]
            if views:
                return ModelResponse(text=self.agent.answer_after_looking(request.item_id, views))
            if EXPLORE_OFFER in texts:  # the controller offers actions: look around first
                return ModelResponse(text=LOOK_AROUND)
        text = self.agent.answer_for(request.item_id, request.query_time)
        if not text:
            return ModelResponse(text="", error=None)
        return ModelResponse(text=text)

    async def aclose(self) -> None:
        return None


__all__ = ["EXPLORE_OFFER", "LOOK_AROUND", "RuleAnswerBackend"]
