"""``streamspatial run``: evaluate a model on a benchmark under the streaming protocol.

Exit status: 0 when every planned query point has a record without an error, 1 when some
record holds an error (re-run the same command to resume; only missing records are made), 2 for
a user mistake (bad flag, config, benchmark file, missing video), printed as one line.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import Item
from streamspatial.eval.config import RunConfig, build_config
from streamspatial.eval.outcome import run_local, run_to_a_final_state, summary_line, totals
from streamspatial.eval.planner import applicable_items, keep_whole_chains
from streamspatial.eval.results import PredictionWriter, RunFolder
from streamspatial.models.types import GenerationParams


def limit_items(items: list[Item], limit: int | None) -> list[Item]:
    """The first ``limit`` items, minus any whose dependency chain the limit cut off."""
    if limit is None:
        return items
    return keep_whole_chains(items[:limit])


def _backend(
    cfg: RunConfig, items: list[Item], params: GenerationParams, device: str | None = None
) -> Any:
    from streamspatial.models.registry import load_backend

    kind = cfg.model.partition(":")[0].strip().lower()
    opts: dict[str, Any] = {}
    if kind == "openai":
        opts = {
            "base_url": cfg.base_url,
            "concurrency": cfg.concurrency,
            "params": params,
            "api_key": os.environ.get(cfg.api_key_env),
            "key_env": cfg.api_key_env,
            "timeout": cfg.timeout,
            "max_retries": cfg.max_retries,
        }
    elif kind == "random":
        opts = {"seed": cfg.seed}
    elif kind == "frequent":
        opts = {"items": items}
    elif kind == "hf":
        opts = {"params": params, "device": device}  # device None: the backend's default
    backend = load_backend(cfg.model, **opts)
    if cfg.cache_dir is not None and kind in ("openai", "hf"):
        from streamspatial.models.cache import CachedBackend, ResponseCache

        backend = CachedBackend(backend, ResponseCache(cfg.cache_dir / "responses.sqlite"))
    return backend


def _perception_option(cfg: RunConfig) -> dict[str, Any]:
    """``--perception`` for the agents that read a perception stream; elsewhere an error."""
    from streamspatial.agents import PERCEPTION_AGENTS

    if cfg.perception is None:
        return {}
    if cfg.agent not in PERCEPTION_AGENTS:
        raise StreamspatialError(
            f"--perception: only --agent {' / '.join(PERCEPTION_AGENTS)} read perception, "
            f"not --agent {cfg.agent}"
        )
    return {"perception": cfg.perception}


def _check_model(cfg: RunConfig) -> None:
    """``--model`` is well formed for ``--agent`` (nothing built, nothing connected)."""
    from streamspatial.eval.config import RULES_AGENT, RULES_MODEL
    from streamspatial.models.registry import check_spec

    if (cfg.agent == RULES_AGENT) != (cfg.model == RULES_MODEL):
        raise StreamspatialError(
            f"--model {cfg.model}: --agent {RULES_AGENT} answers without a model (leave "
            f"--model out), and model {RULES_MODEL!r} exists only for that agent"
        )
    if cfg.agent == RULES_AGENT:
        if cfg.executor != "local":
            raise StreamspatialError(f"--agent {RULES_AGENT} runs with --executor local only")
    else:
        check_spec(cfg.model)


def _agent_backend(agent: Any, cfg: RunConfig) -> Any:
    """The rule agent answers itself (``--agent scene-graph-rules``, model ``rules``)."""
    from streamspatial.eval.config import RULES_AGENT

    return agent.backend() if cfg.agent == RULES_AGENT else None


def generation_params(cfg: RunConfig) -> GenerationParams:
    """The run's sampling parameters for its model; what is unset is not sent."""
    f = cfg.sampling_fields()
    return GenerationParams(
        temperature=f["temperature"],
        max_tokens=f["max_tokens"],
        top_p=f["top_p"],
        seed=f["seed"],
        extra=dict(f["extra_body"] or {}),
    )


def _register_secrets(cfg: RunConfig) -> None:
    """Everything secret this run may see, masked in every file and line from now on."""
    from streamspatial.core import secrets

    secrets.register(os.environ.get(cfg.api_key_env))
    secrets.register_url(cfg.base_url or os.environ.get("OPENAI_BASE_URL"))
    secrets.register_url(cfg.address)


def execute(cfg: RunConfig) -> int:
    """Run (or resume) one configuration; returns the exit status.

    Every check that needs no run folder (model spec, agent, benchmark file, videos) happens
    before the folder is made, so a user mistake leaves nothing behind.  From the moment the
    folder is opened it is locked (a second run into it is refused), and ``run.json`` ends in a
    final state however the run ends: ``complete``, ``errors``, ``failed`` (with the reason)
    or ``interrupted``.
    """
    from streamspatial.agents import make_agent
    from streamspatial.bench.registry import load_benchmark

    _register_secrets(cfg)
    params = generation_params(cfg)
    _check_model(cfg)

    def agent_for(scorer: str) -> Any:
        return make_agent(
            cfg.agent,
            policy=cfg.policy,
            params=params,
            variant=cfg.variant,
            videos=cfg.videos,
            fold_every=cfg.fold_every,
            scorer=scorer,
            **_perception_option(cfg),
        )

    agent = agent_for("paper" if cfg.scorer == "auto" else cfg.scorer)
    # A text-only run reads no video, so it does not need the videos to be there.
    text_only = bool(getattr(agent, "text_only", False))
    adapter, items = load_benchmark(
        cfg.data, format=cfg.format, videos=None if text_only else cfg.videos
    )
    cfg, agent = _resolve_scorer(cfg, items, agent, agent_for)
    items = limit_items(list(items), cfg.limit)
    from streamspatial.models.registry import supported_answer_types

    # Items the model cannot answer by design (random: numbers) are left out, and said so.
    planned, not_applicable = applicable_items(
        items, supported_answer_types(cfg.model), model=cfg.model
    )
    if cfg.explore_steps and not any(it.explorable for it in planned):
        print(
            f"--explore-steps {cfg.explore_steps}: no item of {cfg.data} is marked explorable; "
            "nothing will be explored",
            file=sys.stderr,
        )
    if cfg.executor == "ray":  # an unreachable cluster fails before the run folder exists
        from streamspatial.eval.ray_executor import check_address

        check_address(cfg.address)
    bench_meta = {
        "format": adapter.name,
        "table": adapter.scoring.table,
        "invalid": adapter.scoring.invalid,
        "number_metric": adapter.scoring.number_metric,
        "scorer": cfg.scorer,
        "official": adapter.scoring.official,
        "items": len(planned),
        "query_points": sum(len(it.queries) for it in planned),
    }
    if not_applicable is not None:
        bench_meta["not_applicable"] = not_applicable.as_dict()
        print(not_applicable.sentence(), file=sys.stderr)
    with RunFolder(cfg.out) as folder:
        meta = folder.open(
            cfg.public_dict(),
            cfg.config_hash(),
            force=cfg.force,
            extra={"benchmark": bench_meta, "offline": agent.offline},
        )
        job = _Job(cfg, folder, meta, agent, adapter, items, planned, params)
        counts = run_to_a_final_state(
            folder,
            meta,
            job.run,
            job.progress,
            planned=bench_meta["query_points"],
        )
    print(summary_line(cfg.out, counts, scorer=cfg.scorer), file=sys.stderr)
    return 1 if counts["errors_total"] else 0


@dataclass
class _Job:
    """The work of one run inside its locked folder: backend, writer, runner, executor."""

    cfg: RunConfig
    folder: RunFolder
    meta: dict[str, Any]
    agent: Any
    adapter: Any
    items: list[Item]
    planned: list[Item]
    params: GenerationParams
    runner: Any = None

    def progress(self) -> dict[str, int]:
        return self.runner.stats.as_dict() if self.runner is not None else {}

    def run(self) -> dict[str, int]:
        from streamspatial.eval.runner import Runner

        cfg = self.cfg
        agent_backend = _agent_backend(self.agent, cfg)  # the rule agent answers itself
        # Ray actors build their own backends; the driver only writes what they send back.
        local = cfg.executor == "local"
        backend = agent_backend or (_backend(cfg, self.items, self.params) if local else None)
        with PredictionWriter(self.folder.predictions) as writer:
            self.runner = runner = Runner(
                adapter=self.adapter,
                items=self.planned,
                backend=backend,
                agent=self.agent,
                writer=writer,
                videos=cfg.videos,
                model=cfg.model,
                concurrency=cfg.concurrency,
                frame_size=cfg.frame_size,
                cache_dir=cfg.cache_dir / "frames" if cfg.cache_dir else None,
                progress=cfg.progress,
                source_name=str(cfg.data),
                retry_errors=cfg.retry_errors,
                explore_steps=cfg.explore_steps,
                scorer=cfg.scorer,
            )
            if cfg.executor == "ray":
                _run_on_ray(cfg, runner, self.items, self.params)
            else:
                run_local(runner, backend)
            return totals(writer.records.values(), runner.stats.as_dict())


def _resolve_scorer(cfg: RunConfig, items: list[Item], agent: Any, agent_for: Any) -> Any:
    """``--scorer auto``: official for a released benchmark file (scoring.scorers); the run's
    summary line says which."""
    from streamspatial.scoring.scorers import default_scorer

    if cfg.scorer != "auto":
        return cfg, agent
    scorer = default_scorer(items)
    if scorer != "paper":
        agent = agent_for(scorer)
    return cfg.model_copy(update={"scorer": scorer}), agent


def _run_on_ray(cfg: RunConfig, runner: Any, items: list[Item], params: GenerationParams) -> None:
    from functools import partial

    from streamspatial.eval.ray_executor import RayOptions, run_on_ray

    # Each actor calls _backend itself: the API key is read from the actor's own environment.
    make_backend = partial(_backend, cfg, items, params)
    run_on_ray(runner, make_backend, RayOptions(address=cfg.address, workers=cfg.workers))


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        data: Annotated[
            Path | None, typer.Option(help="Benchmark file (JSONL/JSON/parquet).")
        ] = None,
        videos: Annotated[Path | None, typer.Option(help="Folder holding the videos.")] = None,
        model: Annotated[
            str | None,
            typer.Option(
                help="random | frequent | openai:<model-name> | hf:<local-path> "
                "(none with --agent scene-graph-rules)"
            ),
        ] = None,
        policy: Annotated[
            str | None,
            typer.Option(
                help="Frame policy: uniform-128 (default), single@query, nearest-16f@4fps, "
                "log-decay-128, oracle-evidence, window-K@Ffps/Ws, none (text only)."
            ),
        ] = None,
        out: Annotated[Path | None, typer.Option(help="Run folder (created or resumed).")] = None,
        format: Annotated[
            str | None, typer.Option("--format", help="auto | ovos | vcbench | ucs | s3 | vsibench")
        ] = None,
        agent: Annotated[
            str | None,
            typer.Option(
                help="Agent building the inputs: policy (default), scene-graph, "
                "scene-graph-rules, folding, spatial-caption."
            ),
        ] = None,
        fold_every: Annotated[
            float | None,
            typer.Option(help="--agent folding: seconds between memory folds (default 10)."),
        ] = None,
        perception: Annotated[
            str | None,
            typer.Option(
                help="--agent scene-graph / scene-graph-rules: ground-truth (default), "
                "ground-truth:noise=0.5, classical, model:depth=DIR,detector=DIR."
            ),
        ] = None,
        explore_steps: Annotated[
            int | None,
            typer.Option(
                help="Exploration actions allowed per explorable simulator item (default 0: off)."
            ),
        ] = None,
        base_url: Annotated[
            str | None, typer.Option(help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL).")
        ] = None,
        api_key_env: Annotated[
            str | None,
            typer.Option(help="Environment variable holding the API key (default OPENAI_API_KEY)."),
        ] = None,
        concurrency: Annotated[
            int | None, typer.Option(help="Requests in flight (and videos streamed) at once.")
        ] = None,
        limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
        timeout: Annotated[
            float | None,
            typer.Option(help="Seconds per model request before it is retried (default 120)."),
        ] = None,
        max_retries: Annotated[
            int | None,
            typer.Option(
                help="Retries of a failed request before it is recorded as an error (default 6)."
            ),
        ] = None,
        config: Annotated[
            Path | None,
            typer.Option(help="YAML file holding any of these options; flags override it."),
        ] = None,
        cache_dir: Annotated[
            Path | None, typer.Option(help="Frame and response cache folder.")
        ] = None,
        frame_size: Annotated[
            int | None, typer.Option(help="Shorter side of frames sent, px.")
        ] = None,
        variant: Annotated[str | None, typer.Option(help="Prompt variant: default | cot")] = None,
        scorer: Annotated[
            str | None,
            typer.Option(
                help="official: the benchmark's own scoring code, prompt and frame sampling "
                "(default for a released benchmark file) | paper: the papers' formulas."
            ),
        ] = None,
        temperature: Annotated[
            float | None,
            typer.Option(help="Sampling temperature sent to the model (default: not sent)."),
        ] = None,
        max_tokens: Annotated[
            int | None,
            typer.Option(help="Answer length cap sent to the model (default: not sent)."),
        ] = None,
        top_p: Annotated[
            float | None, typer.Option(help="Nucleus sampling top_p (default: not sent).")
        ] = None,
        force: Annotated[
            bool,
            typer.Option("--force", help="Reuse a run folder holding a different configuration."),
        ] = False,
        retry_errors: Annotated[
            bool,
            typer.Option(
                "--retry-errors", help="Ask again the query points whose record holds an error."
            ),
        ] = False,
        executor: Annotated[
            str | None,
            typer.Option(help="local (default) | ray: shard videos across Ray actors."),
        ] = None,
        address: Annotated[
            str | None,
            typer.Option(help="--executor ray: cluster to join (auto, ray://host:10001)."),
        ] = None,
        workers: Annotated[
            int | None,
            typer.Option(help="--executor ray: actors to start (default: one per CPU/GPU)."),
        ] = None,
        no_progress: Annotated[
            bool, typer.Option("--no-progress", help="No progress bar.")
        ] = False,
    ) -> None:
        """Evaluate a model under the strict streaming protocol (resumable)."""
        given = {
            "data": data,
            "videos": videos,
            "model": model,
            "policy": policy,
            "out": out,
            "format": format,
            "agent": agent,
            "fold_every": fold_every,
            "perception": perception,
            "explore_steps": explore_steps,
            "base_url": base_url,
            "api_key_env": api_key_env,
            "concurrency": concurrency,
            "limit": limit,
            "cache_dir": cache_dir,
            "timeout": timeout,
            "max_retries": max_retries,
            "frame_size": frame_size,
            "variant": variant,
            "scorer": scorer,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "top_p": top_p,
            "force": True if force else None,
            "retry_errors": True if retry_errors else None,
            "progress": False if no_progress else None,
            "executor": executor,
            "address": address,
            "workers": workers,
        }
        cfg = build_config(given, config)
        rc = execute(cfg)
        if rc:
            raise typer.Exit(rc)


__all__ = ["execute", "limit_items", "register"]
