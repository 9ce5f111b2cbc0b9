"""``--agent scene-graph-rules``: the scene-graph memory with the rule reasoner in place of a model.

With ground-truth perception this is the *oracle-perception upper bound*: it shows how much of
a generated benchmark a pose-anchored memory answers by geometry alone, and — with the noise
model — how fast that falls with imperfect perception.  The memory is built as
:class:`~streamspatial.agents.scene_graph.SceneGraphAgent` builds it; each query point is
answered by :func:`~.dispatch.answer`; an explorable item goes through
:class:`~.backend.RuleAnswerBackend` so the exploration controller can offer it actions.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from streamspatial.agents import contract
from streamspatial.agents.contract import AgentOptions, QueryContext
from streamspatial.agents.rules.backend import RuleAnswerBackend
from streamspatial.agents.rules.dispatch import answer
from streamspatial.agents.scene_graph import (
    SceneGraphAgent,
    SceneGraphMemory,
    diagnostics,
    parse_intent,
    render_subgraph,
    retrieve,
)


@dataclass
class Exploring:
    """An explorable query's memory at t_q and what its rules need, kept until it is asked."""

    memory: SceneGraphMemory
    item: Any
    labels: set[str]
    attrs: list[str]
    prior: Mapping[str, str] | None
    provider: Any
    t_q: float


class SceneGraphRulesAgent(SceneGraphAgent):
    """``--agent scene-graph-rules``: the rule reasoner answers; no model is called.

    Each query point's decision is a :class:`~streamspatial.agents.contract.Answer`: what the
    reasoner concluded from the memory as it stood at t_q, recorded and scored like a model's
    answer, with the rule it used in the diagnostics.  An explorable item is the exception: it
    is an :class:`~streamspatial.agents.contract.Ask` to :class:`RuleAnswerBackend`, so the
    exploration controller can offer it actions; it sweeps around and answers from the views.
    """

    name: ClassVar[str] = "scene-graph-rules"

    def __init__(self, perception: str = "ground-truth", **kw: Any):
        from streamspatial.perception.spec import parse_perception

        # Nothing is shown to a model, so ground truth needs no frame at all; perception that
        # reads pixels (classical, model) still needs them, at 1 fps.
        pixels = parse_perception(perception).kind != "ground-truth"
        kw.setdefault("sample_fps", 1.0 if pixels else 0.0)
        super().__init__(perception, **kw)
        self._answers: dict[tuple[str, float], tuple[str, str | None]] = {}
        self._explorable: dict[str, Exploring] = {}
        self.unsupported: dict[str, int] = {}

    @classmethod
    def from_options(cls, options: AgentOptions) -> SceneGraphRulesAgent:
        return cls(options.perception or "ground-truth")

    @property
    def label(self) -> str:
        return f"scene-graph-rules[{self.spec.label}]"

    async def decide(self, ctx: QueryContext) -> contract.Decision:
        from streamspatial.models.types import GenerationParams, TextPart

        item, query, prior = ctx.item, ctx.query, ctx.prior_answers
        memory = self.memory_at(ctx.view, item, query)
        provider = self.state(item).provider
        labels = set(getattr(provider, "labels", ())) | memory.labels()
        attrs = list(getattr(provider, "attributes", ()))
        text, rule = answer(memory, item, labels=labels, attributes=attrs, prior=prior)
        if not text:
            key = item.intent.get("task") if item.intent else item.task.task
            self.unsupported[str(key)] = self.unsupported.get(str(key), 0) + 1
        intent = parse_intent(item, labels, attrs)
        nodes = retrieve(memory, intent, self.top_k)
        diag = diagnostics(memory, nodes, query, [], rule=rule)
        if not item.explorable:
            return contract.Answer(text, diag)
        # Looking around may follow: keep the memory as it stood at t_q, and ask our own
        # backend through the exploration controller (which offers the actions).
        self._answers[(item.id, round(float(query.time), 6))] = (text, rule)
        self._explorable[item.id] = Exploring(
            copy.deepcopy(memory), item, labels, attrs, prior, provider, query.time
        )
        request = ctx.request(
            (TextPart(render_subgraph(memory, nodes)), TextPart(item.question)),
            params=GenerationParams(),
            system="scene-graph-rules",
        )
        return contract.Ask(request, diag, backend=RuleAnswerBackend(self))

    def answer_for(self, item_id: str, query_time: float) -> str:
        return self._answers.get((item_id, round(float(query_time), 6)), ("", None))[0]

    def answer_after_looking(self, item_id: str, views: Sequence[Any]) -> str:
        """The answer once the exploration views (their ground-truth records) are perceived.

        They enter a copy of the memory as it stood at t_q, so they never reach the memory
        later questions of the video are answered from.
        """
        ex = self._explorable[item_id]
        memory = copy.deepcopy(ex.memory)
        observe = getattr(ex.provider, "observation_of", None)
        if observe is None:
            return ""
        for i, view in enumerate(sorted(views, key=lambda v: v.time)):
            obs = observe(view.record, memory.last_index + 1 + i, float(view.time))
            memory.ingest(obs)
        text, _ = answer(memory, ex.item, labels=ex.labels, attributes=ex.attrs, prior=ex.prior)
        return text


__all__ = ["Exploring", "SceneGraphRulesAgent"]
