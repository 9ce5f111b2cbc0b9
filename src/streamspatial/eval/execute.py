"""One run from its configuration: check, plan, lock the folder, run to a final state.

This is what ``streamspatial run`` and :func:`streamspatial.evaluate` both do (the command line
is a thin layer over it).  Every check that needs no run folder (model spec, agent,
benchmark file, videos) happens before the folder is made, so a user mistake leaves nothing
behind.  From the moment the folder is opened it is locked (a second run into it is refused),
and ``run.json`` ends in a final state however the run ends: ``complete``, ``errors``,
``failed`` (with the reason) or ``interrupted``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from streamspatial.agents.contract import AgentOptions
from streamspatial.agents.exploration import ExplorationWorld, Explorer
from streamspatial.agents.registry import AgentFactory, agent_entry, agent_factory
from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.runtime import Executor
from streamspatial.core.schema import Item
from streamspatial.eval.config import RunConfig
from streamspatial.eval.executors import Evaluation, RayPlacement, evaluation_executor
from streamspatial.eval.inputs import ModelInputs
from streamspatial.eval.judge import Judge, build_judge
from streamspatial.eval.outcome import run_to_a_final_state, totals
from streamspatial.eval.planner import applicable_items, keep_whole_chains
from streamspatial.eval.results import PredictionWriter, RunFolder
from streamspatial.models.types import Backend, GenerationParams

Notify = Callable[[str], None]  # a line for the user (the CLI prints it on stderr)


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: its counts (``records``, ``errors_total``, ``invalid_total``, the
    runner's own counters) and the scorer its records' own fields hold."""

    counts: dict[str, int]
    scorer: str
    notes: tuple[str, ...] = field(default=())

    @property
    def exit_status(self) -> int:
        """0 when every planned query point has an error-free record, else 1."""
        return 1 if self.counts["errors_total"] else 0


def limit_items(items: list[Item], limit: int | None) -> list[Item]:
    """The first ``limit`` items, minus any whose dependency chain the limit cut off."""
    if limit is None:
        return items
    return keep_whole_chains(items[:limit])


def build_backend(
    cfg: RunConfig, items: list[Item], params: GenerationParams, device: str | None = None
) -> Backend:
    """The run's model backend; each kind takes the options it knows (models.registry)."""
    from streamspatial.models.registry import caches_responses, load_backend, options_for

    offer: dict[str, Any] = {
        "base_url": cfg.base_url,
        "concurrency": cfg.concurrency,
        "params": params,
        "api_key": os.environ.get(cfg.api_key_env),
        "key_env": cfg.api_key_env,
        "timeout": cfg.timeout,
        "max_retries": cfg.max_retries,
        "seed": cfg.seed,
        "items": items,
        "device": device or cfg.device,  # a Ray actor given a GPU passes "cuda"
        "dtype": cfg.dtype,
        "batch_size": cfg.batch_size,
        "video_metadata": cfg.video_metadata,
    }
    backend = load_backend(cfg.model, **options_for(cfg.model, offer))
    if cfg.cache_dir is not None and caches_responses(cfg.model):
        from streamspatial.models.cache import CachedBackend, ResponseCache

        backend = CachedBackend(backend, ResponseCache(cfg.cache_dir / "responses.sqlite"))
    return backend


def agent_options(
    cfg: RunConfig, params: GenerationParams, scorer: str, frames: str = "images"
) -> AgentOptions:
    """The run's options as agents take them; ``--perception`` only for agents that read it;
    ``frames`` as :func:`~streamspatial.eval.inputs.resolve_inputs` settled them."""
    if cfg.perception is not None and not agent_entry(cfg.agent).reads_perception:
        from streamspatial.agents.registry import perception_agents

        raise StreamspatialError(
            f"--perception: only --agent {' / '.join(perception_agents())} read perception, "
            f"not --agent {cfg.agent}"
        )
    return AgentOptions(
        policy=cfg.policy,
        params=params,
        variant=cfg.variant,
        scorer=scorer,
        perception=cfg.perception,
        fold_every=cfg.fold_every,
        fold_memory=cfg.fold_memory,
        frames=frames,
    )


def check_model(cfg: RunConfig) -> None:
    """``--model`` is well formed for ``--agent`` (nothing built, nothing connected), and a
    local model can have the ``--device`` asked for (on this machine; Ray actors check their
    own).

    An agent that answers without a model (``scene-graph-rules``) records the name it
    answers as (``rules``) as its model: that name is for it alone, and it needs no other.
    """
    from streamspatial.agents.registry import agent_names
    from streamspatial.models.registry import check_placement, check_spec

    own = agent_entry(cfg.agent).answers_as
    owner = next((n for n in agent_names() if agent_entry(n).answers_as == cfg.model), None)
    if own is None and owner is None:
        check_spec(cfg.model)
        if cfg.executor == "local":
            check_placement(cfg.model, cfg.device)
        return
    if own != cfg.model:
        agent, model = (cfg.agent, own) if own is not None else (owner, cfg.model)
        raise StreamspatialError(
            f"--model {cfg.model}: --agent {agent} answers without a model (leave "
            f"--model out), and model {model!r} exists only for that agent"
        )
    if cfg.executor != "local":
        raise StreamspatialError(f"--agent {cfg.agent} runs with --executor local only")


def _check_polling(adapter: BenchmarkAdapter, items: list[Item], agent: Any, name: str) -> None:
    """Items the benchmark asks by polling (StreamingBench's proactive output) need an agent
    that polls; the default one does (the benchmark selects the protocol)."""
    polled = [it for it in items if adapter.polling(it) is not None]
    if polled and not agent.polls:
        raise StreamspatialError(
            f"{adapter.title}: {len(polled)} item(s) (e.g. {polled[0].id}, "
            f"{polled[0].task.task}) are polled until the model answers, which --agent {name} "
            "cannot do; leave --agent out (the default agent polls them)"
        )


def register_secrets(cfg: RunConfig) -> None:
    """Everything secret this run may see, masked in every file and line from now on."""
    from streamspatial.core import secrets

    secrets.register(os.environ.get(cfg.api_key_env))
    # Hugging Face tokens are read by huggingface_hub itself; masked should one ever show.
    secrets.register(os.environ.get("HF_TOKEN"), os.environ.get("HUGGING_FACE_HUB_TOKEN"))
    secrets.register_url(cfg.base_url or os.environ.get("OPENAI_BASE_URL"))
    secrets.register_url(cfg.address)


def execute(
    cfg: RunConfig,
    *,
    world: ExplorationWorld | None = None,
    agent: AgentFactory | None = None,
    notify: Notify | None = None,
) -> RunOutcome:
    """Run (or resume) one configuration into ``cfg.out``.

    ``world`` serves explorable items when ``cfg.explore_steps`` > 0; ``agent`` overrides the
    registry's factory for ``cfg.agent`` (a factory given in code); ``notify`` receives the
    lines a user should read (items left out, nothing to explore).
    """
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.models.registry import supported_answer_types

    say = notify or (lambda line: None)
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        say(line)

    from streamspatial.eval.decoding import resolve_decoding
    from streamspatial.eval.inputs import resolve_inputs
    from streamspatial.models.recipes import recipe_for

    register_secrets(cfg)
    check_model(cfg)

    def factory_for(
        scorer: str, params: GenerationParams | None = None, frames: str = "images"
    ) -> AgentFactory:
        options = agent_options(cfg, params or GenerationParams(), scorer, frames)
        return agent or agent_factory(cfg.agent, options)

    # An agent as the options make it, to ask what it reads; remade once all is settled.
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
    recipe = recipe_for(cfg.model)
    decoding = resolve_decoding(cfg, adapter, recipe)
    inputs = resolve_inputs(cfg, recipe, described)
    params = decoding.params
    make = factory_for(cfg.scorer, params, inputs.frames)
    described = make()
    _check_polling(adapter, items, described, cfg.agent)
    items = limit_items(list(items), cfg.limit)
    # Items the model cannot answer by design (random: numbers) are left out, and said so.
    planned, not_applicable = applicable_items(
        items, supported_answer_types(cfg.model), model=cfg.model
    )
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
    bench_meta = {
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
        bench_meta["not_applicable"] = not_applicable.as_dict()
        note(not_applicable.sentence())
    with RunFolder(cfg.out) as folder:
        resolved = {"decoding": params.as_dict(), **inputs.resolved(cfg.video_metadata)}
        meta = folder.open(
            cfg.public_dict(),
            cfg.config_hash(resolved),
            force=cfg.force,
            extra={
                "benchmark": bench_meta,
                "offline": described.offline,
                "decoding": decoding.record(),
                "inputs": inputs.record(cfg.video_metadata),
            },
        )
        job = _Job(
            cfg, folder, meta, make, adapter, items, planned, params, explorer, inputs, executor
        )
        counts = run_to_a_final_state(
            folder, meta, job.run, job.progress, planned=bench_meta["query_points"]
        )
    return RunOutcome(counts, cfg.scorer, tuple(notes))


@dataclass
class _Job:
    """The work of one run inside its locked folder: backend, writer, runner, executor."""

    cfg: RunConfig
    folder: RunFolder
    meta: dict[str, Any]
    agent: AgentFactory
    adapter: BenchmarkAdapter
    items: list[Item]
    planned: list[Item]
    params: GenerationParams
    explorer: Explorer | None
    inputs: ModelInputs
    executor: Executor[Evaluation, None]
    runner: Any = None

    def progress(self) -> dict[str, int]:
        return self.runner.stats.as_dict() if self.runner is not None else {}

    def run(self) -> dict[str, int]:
        from streamspatial.eval.runner import Runner

        cfg = self.cfg
        # An agent that answers itself needs no model; Ray actors build their own backends.
        needs_model = agent_entry(cfg.agent).answers_as is None
        make_backend = partial(build_backend, cfg, self.items, self.params) if needs_model else None
        with contextlib.ExitStack() as stack:

            def make_runner(backend: Backend | None) -> Runner:
                writer = stack.enter_context(PredictionWriter(self.folder.predictions))
                self.runner = Runner(
                    adapter=self.adapter,
                    items=self.planned,
                    backend=backend,
                    agent=self.agent,
                    writer=writer,
                    videos=cfg.videos,
                    model=cfg.model,
                    concurrency=cfg.concurrency,
                    frame_size=self.inputs.frame_size,
                    max_pixels=self.inputs.max_pixels,
                    cache_dir=cfg.cache_dir / "frames" if cfg.cache_dir else None,
                    progress=cfg.progress,
                    source_name=str(cfg.data),
                    retry_errors=cfg.retry_errors,
                    explorer=self.explorer,
                    scorer=cfg.scorer,
                    clips=cfg.clips,
                    history=cfg.history,
                    judge=_judge(cfg),
                )
                return self.runner

            def placed(where: dict[str, Any]) -> None:
                self.folder.note(self.meta, placement=where)

            self.executor.run(Evaluation(make_runner, make_backend, placed))
            runner = self.runner
            return totals(runner.writer.records.values(), runner.stats.as_dict())


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


def _judge(cfg: RunConfig) -> Judge | None:
    if cfg.judge is None:
        return None
    return build_judge(
        cfg.judge,
        base_url=cfg.judge_base_url,
        api_key_env=cfg.api_key_env,
        timeout=cfg.timeout,
        max_retries=cfg.max_retries,
        concurrency=cfg.concurrency,
    )


__all__ = [
    "Notify",
    "RunOutcome",
    "agent_options",
    "build_backend",
    "check_model",
    "execute",
    "limit_items",
]
