"""A run resolved once: its configuration's names looked up a single time, into one plan.

Before a run opens its folder, every name in its configuration is resolved here and nowhere
else: ``--agent`` to its registry entry (and a factory with the settled options), ``--model``
to a parsed spec (checked, and its device placed), the benchmark file to its adapter and
items, ``--scorer auto`` to the scorer the file calls for, the decoding and the frames sent,
and ``--executor`` to the executor that will run it.  :class:`RunPlan` carries them down to
the run (:mod:`.execute`), so nothing below looks a name up again, and every user mistake is
refused before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from streamspatial.agents.contract import Agent, AgentOptions
from streamspatial.agents.exploration import ExplorationWorld, Explorer
from streamspatial.agents.registry import (
    AgentEntry,
    AgentFactory,
    agent_answering_as,
    agent_entry,
    agent_factory,
    builtin_options,
)
from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.runtime import Executor
from streamspatial.core.schema import Item
from streamspatial.eval.config import RunConfig
from streamspatial.eval.decoding import Decoding
from streamspatial.eval.executors import Evaluation, RayPlacement, evaluation_executor
from streamspatial.eval.inputs import ModelInputs
from streamspatial.eval.planner import applicable_items, keep_whole_chains
from streamspatial.models.types import GenerationParams, ModelSpec

Notify = Callable[[str], None]  # a line for the user (the CLI prints it on stderr)


@dataclass(frozen=True)
class RunPlan:
    """Everything a run settled before its folder exists.

    ``cfg`` has its scorer settled (never ``auto``); ``items`` are the benchmark's up to
    ``--limit``, ``planned`` those the model can answer; ``model`` is None for an agent that
    answers without one; ``make_agent`` makes a fresh agent per video; ``offline`` is what the
    agent says of its inputs (oracle evidence); ``benchmark`` is ``run.json``'s record of it.
    """

    cfg: RunConfig
    adapter: BenchmarkAdapter
    items: list[Item]
    planned: list[Item]
    agent: AgentEntry
    make_agent: AgentFactory
    offline: bool
    model: ModelSpec | None
    decoding: Decoding
    inputs: ModelInputs
    explorer: Explorer | None
    executor: Executor[Evaluation, None]
    benchmark: dict[str, Any]

    @property
    def params(self) -> GenerationParams:
        return self.decoding.params


def limit_items(items: list[Item], limit: int | None) -> list[Item]:
    """The first ``limit`` items, minus any whose dependency chain the limit cut off."""
    if limit is None:
        return items
    return keep_whole_chains(items[:limit])


def agent_options(
    cfg: RunConfig,
    params: GenerationParams,
    scorer: str,
    frames: str = "images",
    entry: AgentEntry | None = None,
) -> AgentOptions:
    """The run's options as agents take them; ``--perception`` only for agents that read it;
    ``frames`` as :func:`~streamspatial.eval.inputs.resolve_inputs` settled them; ``entry``:
    ``--agent``'s, when the caller has it already."""
    entry = entry or agent_entry(cfg.agent)
    if cfg.perception is not None and not entry.reads_perception:
        from streamspatial.agents.registry import perception_agents

        raise StreamspatialError(
            f"--perception: only --agent {' / '.join(perception_agents())} read perception, "
            f"not --agent {cfg.agent}"
        )
    declared = {o.name: getattr(cfg, o.name) for o in builtin_options()}  # as the agents declare
    return AgentOptions(
        params=params, variant=cfg.variant, scorer=scorer, frames=frames, **declared
    )


def check_model(cfg: RunConfig, entry: AgentEntry | None = None) -> ModelSpec | None:
    """``--model`` read and checked for ``--agent`` (nothing built, nothing connected), and a
    local model's ``--device`` checked on this machine (Ray actors check their own); None
    for an agent that answers without a model.

    An agent that answers without a model (``scene-graph-rules``) records the name it
    answers as (``rules``) as its model: that name is for it alone, and it needs no other.
    """
    from streamspatial.models.registry import check_placement, check_spec

    entry = entry or agent_entry(cfg.agent)
    own = entry.answers_as
    owner = agent_answering_as(cfg.model)
    if own is None and owner is None:
        spec = check_spec(cfg.model)
        if cfg.executor == "local":
            check_placement(spec, cfg.device)
        return spec
    if own != cfg.model:
        agent, model = (cfg.agent, own) if own is not None else (owner, cfg.model)
        raise StreamspatialError(
            f"--model {cfg.model}: --agent {agent} answers without a model (leave "
            f"--model out), and model {model!r} exists only for that agent"
        )
    if cfg.executor != "local":
        raise StreamspatialError(f"--agent {cfg.agent} runs with --executor local only")
    return None


def _check_polling(adapter: BenchmarkAdapter, items: list[Item], agent: Agent, name: str) -> None:
    """Items the benchmark asks by polling (StreamingBench's proactive output) need an agent
    that polls; the default one does (the benchmark selects the protocol)."""
    polled = [it for it in items if adapter.polling(it) is not None]
    if polled and not agent.polls:
        raise StreamspatialError(
            f"{adapter.title}: {len(polled)} item(s) (e.g. {polled[0].id}, "
            f"{polled[0].task.task}) are polled until the model answers, which --agent {name} "
            "cannot do; leave --agent out (the default agent polls them)"
        )


def judged_tasks(adapter: BenchmarkAdapter, items: list[Item]) -> list[str]:
    """The tasks of ``items`` that a language model judge scores, in order of first use."""
    out: list[str] = []
    for it in items:
        if it.task.task not in out and adapter.judge_prompt(it, it.queries[0], "") is not None:
            out.append(it.task.task)
    return out


def _check_judge(
    cfg: RunConfig, adapter: BenchmarkAdapter, items: list[Item], note: Notify
) -> None:
    """Say which tasks go unscored without ``--judge``, and refuse what a judge cannot do."""
    tasks = judged_tasks(adapter, items)
    if cfg.judge is None:
        if tasks:
            note(
                f"{', '.join(tasks)}: scored by a language model judge in {adapter.title}'s "
                "official code; without --judge they are recorded and reported not scored"
            )
        return
    from streamspatial.models.registry import check_spec

    check_spec(cfg.judge)
    if cfg.executor != "local":
        raise StreamspatialError("--judge: runs with --executor local only")
    if not tasks:
        note(f"--judge {cfg.judge}: no item of {cfg.data} is judged; the judge is not asked")


def register_secrets(cfg: RunConfig) -> None:
    """Everything secret this run may see, masked in every file and line from now on."""
    from streamspatial.core import secrets

    secrets.register(os.environ.get(cfg.api_key_env))
    # Hugging Face tokens are read by huggingface_hub itself; masked should one ever show.
    secrets.register(os.environ.get("HF_TOKEN"), os.environ.get("HUGGING_FACE_HUB_TOKEN"))
    secrets.register_url(cfg.base_url or os.environ.get("OPENAI_BASE_URL"))
    secrets.register_url(cfg.address)


def plan_run(
    cfg: RunConfig,
    *,
    world: ExplorationWorld | None = None,
    agent: AgentFactory | None = None,
    note: Notify,
) -> RunPlan:
    """Resolve ``cfg`` once (see the module); ``agent`` overrides the registry's factory for
    ``cfg.agent``; ``note`` receives the lines a user should read."""
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.eval.decoding import resolve_decoding
    from streamspatial.eval.inputs import resolve_inputs
    from streamspatial.models.recipes import recipe_for
    from streamspatial.models.registry import supported_answer_types

    register_secrets(cfg)
    entry = agent_entry(cfg.agent)
    model = check_model(cfg, entry)

    def factory_for(
        scorer: str, params: GenerationParams | None = None, frames: str = "images"
    ) -> AgentFactory:
        options = agent_options(cfg, params or GenerationParams(), scorer, frames, entry)
        return agent or agent_factory(cfg.agent, options)

    # One agent, built once, says what it reads (video or not, polling, offline): none of
    # that hangs on the scorer, the decoding or the frames settled below.
    described = factory_for("paper" if cfg.scorer == "auto" else cfg.scorer)()
    # A text-only run reads no video, so it does not need the videos to be there.
    adapter, items = load_benchmark(
        cfg.data, format=cfg.format, videos=cfg.videos if described.reads_video else None
    )
    if cfg.scorer == "auto":  # official for a released benchmark file (scoring.scorers)
        from streamspatial.scoring.scorers import default_scorer

        cfg = cfg.model_copy(update={"scorer": default_scorer(items)})
    official_policy = adapter.official_policy
    # A text-only run stays text only: it shows no frames under any scorer.
    if (
        cfg.scorer == "official"
        and official_policy
        and cfg.agent == "policy"
        and described.reads_video
    ):
        if cfg.policy != official_policy:  # recorded as the policy the run used
            note(f"--scorer official: {adapter.title} is sampled as its official code samples "
                 f"it ({official_policy}), in place of --policy {cfg.policy}")  # fmt: skip
        cfg = cfg.model_copy(update={"policy": official_policy})
    # The model's recipe, the benchmark's decoding: what is sent, and how frames go.
    recipe = recipe_for(model if model is not None else cfg.model)
    decoding = resolve_decoding(cfg, adapter, recipe)
    inputs = resolve_inputs(cfg, recipe, described)
    make = factory_for(cfg.scorer, decoding.params, inputs.frames)
    _check_polling(adapter, items, described, cfg.agent)
    items = limit_items(list(items), cfg.limit)
    # Items the model cannot answer by design (random: numbers) are left out, and said so.
    answerable = supported_answer_types(model) if model is not None else None
    planned, not_applicable = applicable_items(items, answerable, model=cfg.model)
    explorer = None
    if cfg.explore_steps:
        if not any(it.explorable for it in planned):
            note(
                f"--explore-steps {cfg.explore_steps}: no item of {cfg.data} is marked "
                "explorable; nothing will be explored"
            )
        if world is None:
            raise StreamspatialError(
                f"--explore-steps {cfg.explore_steps}: no exploration world to act in"
            )
        explorer = Explorer(world, max_steps=cfg.explore_steps, frame_size=inputs.frame_size)
    # One GPU per Ray actor for a local model, unless it is to run on the CPU.
    actors = RayPlacement(cfg.workers, 0.0 if cfg.device == "cpu" else None)
    executor = evaluation_executor(cfg.executor, cfg.address, actors)
    _check_judge(cfg, adapter, planned, note)
    if cfg.clips == "official":
        refused = [r for it in planned if (r := adapter.official_clip_refusal(it)) is not None]
        if refused:
            note(f"--clips official: {len(refused)} item(s) recorded invalid, not asked: "
                 f"{refused[0]}")  # fmt: skip
    executor.check()  # an unreachable cluster fails before the run folder exists
    benchmark = {
        "format": adapter.name,
        "table": adapter.scoring.table,
        "invalid": adapter.scoring.invalid,
        "number_metric": adapter.scoring.number_metric,
        "scorer": cfg.scorer,
        "official": adapter.scoring.official,
        "protocol": adapter.protocol,
        "clips": cfg.clips,
        "history": cfg.history,
        "judge": cfg.judge,
        "items": len(planned),
        "query_points": sum(len(it.queries) for it in planned),
    }
    if not_applicable is not None:
        benchmark["not_applicable"] = not_applicable.as_dict()
        note(not_applicable.sentence())
    offline = described.offline
    return RunPlan(cfg, adapter, items, planned, entry, make, offline, model, decoding, inputs,
                   explorer, executor, benchmark)  # fmt: skip


__all__ = [
    "Notify",
    "RunPlan",
    "agent_options",
    "check_model",
    "judged_tasks",
    "limit_items",
    "plan_run",
    "register_secrets",
]
