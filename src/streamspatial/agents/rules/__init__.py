"""The rule-based reasoner over the scene-graph memory: DirectMe with no model at all.

It reads exactly what a deployable system could read: the question text and options (object
names are matched against the perception vocabulary), the item's structured intent (which task
is asked), and the memory as it stood at t_q.  It never reads answers, evidence or instance ids;
the answer-swap test pins that.  A task it has no rule for is answered with an empty text
(scored invalid, as a model that declined would be) and counted in
:attr:`SceneGraphRulesAgent.unsupported`.

* :mod:`.context` — what one query's rules may look at, and how a conclusion picks an option;
* the rules, grouped by what they read: :mod:`.objects` (the object nodes), :mod:`.boxes`
  (object boxes and the latest frame), :mod:`.ego` (the camera's own path), :mod:`.rooms` (the
  rooms as walked), :mod:`.layouts` (perceived floor plans), :mod:`.counts` (what was in view
  when), :mod:`.events` and :mod:`.motion` (the dynamic log);
* :mod:`.dispatch` — the one table from task to rule, and :func:`answer`;
* :mod:`.agent` — :class:`SceneGraphRulesAgent` (``--agent scene-graph-rules``), and
  :mod:`.backend`, its stand-in for a model on explorable items.

The lines a generated question's classes are drawn on are shared with the generators
(:mod:`streamspatial.bench.conventions`).
"""

from __future__ import annotations

from .agent import SceneGraphRulesAgent
from .backend import RuleAnswerBackend
from .dispatch import RULES, answer

__all__ = ["RULES", "RuleAnswerBackend", "SceneGraphRulesAgent", "answer"]
