"""One run from its configuration: resolve it, lock the folder, run to a final state.

This is what ``streamspatial run`` and :func:`streamspatial.evaluate` both do (the command line
is a thin layer over it).  The configuration is resolved once into a
:class:`~streamspatial.eval.resolve.RunPlan` (model spec, agent, benchmark file, videos,
scorer, executor) before the folder is made, so a user mistake leaves nothing behind; the plan
is then passed down whole.  From the moment the folder is opened it is locked (a second run
into it is refused), and ``run.json`` ends in a final state however the run ends:
``complete``, ``errors``, ``failed`` (with the reason) or ``interrupted``.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from streamspatial.agents.exploration import ExplorationWorld
from streamspatial.agents.registry import AgentFactory
from streamspatial.core.schema import Item
from streamspatial.eval.config import RunConfig
from streamspatial.eval.executors import Evaluation
from streamspatial.eval.judge import Judge, build_judge
from streamspatial.eval.outcome import run_to_a_final_state, totals
from streamspatial.eval.resolve import (
    Notify,
    RunPlan,
    agent_options,
    check_model,
    judged_tasks,
    limit_items,
    plan_run,
    register_secrets,
)
from streamspatial.eval.results import PredictionWriter, RunFolder
from streamspatial.models.types import Backend, GenerationParams, ModelSpec


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


def build_backend(
    cfg: RunConfig,
    items: list[Item],
    params: GenerationParams,
    device: str | None = None,
    *,
    spec: ModelSpec | None = None,
) -> Backend:
    """The run's model backend; each kind takes the options it knows (models.registry).
    ``spec``: ``cfg.model`` as the run's plan read it (read here when not given)."""
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
    model = spec if spec is not None else cfg.model
    backend = load_backend(model, **options_for(model, offer))
    if cfg.cache_dir is not None and caches_responses(model):
        from streamspatial.models.cache import CachedBackend, ResponseCache

        backend = CachedBackend(backend, ResponseCache(cfg.cache_dir / "responses.sqlite"))
    return backend


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
    say = notify or (lambda line: None)
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        say(line)

    plan = plan_run(cfg, world=world, agent=agent, note=note)
    cfg, inputs = plan.cfg, plan.inputs
    with RunFolder(cfg.out) as folder:
        resolved = {"decoding": plan.params.as_dict(), **inputs.resolved(cfg.video_metadata)}
        meta = folder.open(
            cfg.public_dict(),
            cfg.config_hash(resolved),
            force=cfg.force,
            extra={
                "benchmark": plan.benchmark,
                "offline": plan.offline,
                "decoding": plan.decoding.record(),
                "inputs": inputs.record(cfg.video_metadata),
            },
        )
        job = _Job(plan, folder, meta)
        counts = run_to_a_final_state(
            folder, meta, job.run, job.progress, planned=plan.benchmark["query_points"]
        )
    return RunOutcome(counts, cfg.scorer, tuple(notes))


@dataclass
class _Job:
    """The work of one run inside its locked folder: backend, writer, runner, executor."""

    plan: RunPlan
    folder: RunFolder
    meta: dict[str, Any]
    runner: Any = None

    def progress(self) -> dict[str, int]:
        return self.runner.stats.as_dict() if self.runner is not None else {}

    def run(self) -> dict[str, int]:
        from streamspatial.eval.runner import Runner

        plan = self.plan
        cfg, inputs = plan.cfg, plan.inputs
        # An agent that answers itself needs no model; Ray actors build their own backends.
        make_backend = (
            partial(build_backend, cfg, plan.items, plan.params, spec=plan.model)
            if plan.model is not None
            else None
        )
        with contextlib.ExitStack() as stack:

            def make_runner(backend: Backend | None) -> Runner:
                writer = stack.enter_context(PredictionWriter(self.folder.predictions))
                self.runner = Runner(
                    adapter=plan.adapter,
                    items=plan.planned,
                    backend=backend,
                    agent=plan.make_agent,
                    writer=writer,
                    videos=cfg.videos,
                    model=cfg.model,
                    concurrency=cfg.concurrency,
                    frame_size=inputs.frame_size,
                    max_pixels=inputs.max_pixels,
                    cache_dir=cfg.cache_dir / "frames" if cfg.cache_dir else None,
                    progress=cfg.progress,
                    source_name=str(cfg.data),
                    retry_errors=cfg.retry_errors,
                    explorer=plan.explorer,
                    scorer=cfg.scorer,
                    clips=cfg.clips,
                    history=cfg.history,
                    judge=_judge(cfg),
                )
                return self.runner

            def placed(where: dict[str, Any]) -> None:
                self.folder.note(self.meta, placement=where)

            plan.executor.run(Evaluation(make_runner, make_backend, placed))
            runner = self.runner
            return totals(runner.writer.records.values(), runner.stats.as_dict())


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
    "RunPlan",
    "agent_options",
    "build_backend",
    "check_model",
    "execute",
    "judged_tasks",
    "limit_items",
    "register_secrets",
]
