"""The rules agent's backend: what the runner calls a model, answering from the reasoner.

An explorable item reaches its answer through the exploration controller, which talks to a
backend: this one returns the reasoner's answer at t_q, asks to look around
(``sweep_around``) when the controller offers actions, and answers again from the memory with
the views it got (:meth:`~.agent.SceneGraphRulesAgent.answer_after_looking`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamspatial.agents.exploration import OFFER

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.agents.rules.agent import SceneGraphRulesAgent

EXPLORE_OFFER = OFFER[: OFFER.index(":") + 1]  # how the exploration controller offers actions
LOOK_AROUND = '{"action": "sweep_around"}'


class RuleAnswerBackend:
    """The "model" of the rules agent: returns the reasoner's answer for each request."""

    def __init__(self, agent: SceneGraphRulesAgent):
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
