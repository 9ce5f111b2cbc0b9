"""Agents by name: the built-in ones, those registered in code, and those installed as plugins.

``--agent NAME`` (and :func:`streamspatial.evaluate`'s ``agent=``) resolves here.  A user's
agent plugs in without editing this package, in either of two ways:

* in code: ``register_agent("my-agent", MyAgent)`` before the run;
* as an installed plugin: an entry point in the ``streamspatial.agents`` group, e.g. in the
  plugin's ``pyproject.toml``::

      [project.entry-points."streamspatial.agents"]
      my-agent = "my_package.agents:MyAgent"

An entry's target is an :class:`~streamspatial.agents.contract.Agent` subclass (built with its
``from_options``) or any callable taking :class:`~streamspatial.agents.contract.AgentOptions`
and returning an agent.  A run gets a *factory* from :func:`agent_factory`: each video it
streams gets its own instance (see :mod:`.contract`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import entry_points

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.options import Option

from .contract import Agent, AgentOptions
from .options import FOLD_EVERY, FOLD_MEMORY, PERCEPTION, POLICY

ENTRY_POINT_GROUP = "streamspatial.agents"

Make = Callable[[AgentOptions], Agent]
AgentFactory = Callable[[], Agent]


@dataclass(frozen=True)
class AgentEntry:
    """One registered agent.

    ``options``: the run options that exist for this agent (:mod:`.options`; the run's
    configuration and flags are made from them).  ``answers_as``: the agent answers without a
    model, and records name this as their model (``rules``); None: it needs one.
    """

    name: str
    target: Make | type[Agent] | str  # "module:attribute" is imported on first use
    options: tuple[Option, ...] = ()
    answers_as: str | None = None

    @property
    def reads_perception(self) -> bool:
        """Whether the agent takes ``--perception`` (a perception stream feeds it)."""
        return PERCEPTION in self.options

    def make(self, options: AgentOptions) -> Agent:
        target = self.target
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            target = getattr(importlib.import_module(module), attr)
        if isinstance(target, type) and issubclass(target, Agent):
            return target.from_options(options)
        agent = target(options)
        if not isinstance(agent, Agent):
            raise StreamspatialError(
                f"--agent {self.name}: its factory returned {type(agent).__name__}, "
                "not a streamspatial.agents.Agent"
            )
        return agent


_BUILTIN = (
    AgentEntry("policy", "streamspatial.agents.policy:PolicyAgent", (POLICY,)),
    # Memory agents import perception: loaded on first use.
    AgentEntry("scene-graph", "streamspatial.agents.scene_graph:SceneGraphAgent", (PERCEPTION,)),
    AgentEntry(
        "scene-graph-rules",
        "streamspatial.agents.rules:SceneGraphRulesAgent",
        (PERCEPTION,),
        answers_as="rules",
    ),
    AgentEntry("folding", "streamspatial.agents.folding:FoldingAgent", (FOLD_EVERY, FOLD_MEMORY)),
    AgentEntry("spatial-caption", "streamspatial.agents.spatial_caption:SpatialCaptionAgent"),
)
_REGISTRY: dict[str, AgentEntry] = {e.name: e for e in _BUILTIN}
_PLUGINS_LOADED = False


def register_agent(
    name: str,
    target: Make | type[Agent],
    *,
    reads_perception: bool = False,
    answers_as: str | None = None,
    replace: bool = False,
) -> None:
    """Make ``name`` resolve to ``target`` (an Agent subclass, or ``options -> Agent``).

    ``reads_perception``: the agent takes ``--perception``.  An agent registered here reads
    the options the built-in ones declare; it adds none of its own (the run's configuration
    is made once, from the built-in declarations)."""
    _load_plugins()
    if not name or name != name.strip():
        raise StreamspatialError(f"agent name {name!r}: expected a non-empty name")
    if name in _REGISTRY and not replace and _REGISTRY[name].target is not target:
        raise StreamspatialError(
            f"agent {name!r} is already registered; pass replace=True to override it"
        )
    options = (PERCEPTION,) if reads_perception else ()
    _REGISTRY[name] = AgentEntry(name, target, options, answers_as)


def _load_plugins() -> None:
    """Entry points of installed plugins, once; a built-in name is never shadowed."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in _REGISTRY:
            _REGISTRY[ep.name] = AgentEntry(ep.name, ep.value)


def builtin_options() -> tuple[Option, ...]:
    """The run options the built-in agents declare, each once, in order of declaration."""
    out: list[Option] = []
    for entry in _BUILTIN:
        out.extend(o for o in entry.options if o not in out)
    return tuple(out)


def agent_names() -> list[str]:
    _load_plugins()
    return sorted(_REGISTRY)


def agent_entry(name: str) -> AgentEntry:
    """The registered agent ``name``; an unknown name is a one-line user error."""
    _load_plugins()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(agent_names())
        raise StreamspatialError(
            f"--agent: unknown agent {name!r}; expected one of {known}"
        ) from None


def agent_answering_as(model: str) -> str | None:
    """The agent that answers without a model and records ``model`` as its own (``rules``:
    scene-graph-rules), or None: such a name is no model any other agent may use."""
    _load_plugins()
    return next((e.name for _, e in sorted(_REGISTRY.items()) if e.answers_as == model), None)


def perception_agents() -> tuple[str, ...]:
    """The agents fed by a perception stream (``--perception``)."""
    return tuple(n for n in agent_names() if _REGISTRY[n].reads_perception)


def agent_factory(name: str, options: AgentOptions | None = None) -> AgentFactory:
    """A factory making fresh agents ``name`` with ``options`` (one per video of a run);
    picklable, so Ray workers make their own."""
    return partial(agent_entry(name).make, options or AgentOptions())


def make_agent(name: str, options: AgentOptions | None = None) -> Agent:
    """One agent ``name`` (a run makes one per video through :func:`agent_factory`)."""
    return agent_factory(name, options)()
