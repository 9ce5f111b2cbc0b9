"""``streamspatial run``: evaluate a model on a benchmark under the streaming protocol.

Exit status: 0 when every planned query point has a record without an error, 1 when some
record holds an error (re-run the same command to resume; only missing records are made), 2 for
a user mistake (bad flag, config, benchmark file, missing video), printed as one line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from streamspatial.agents.contract import FOLD_EVERY_S
from streamspatial.bench.registry import FORMATS
from streamspatial.cli.options import (
    BaseUrl,
    Frames,
    LeaveToServer,
    Limit,
    MaxTokens,
    NoVideoMetadata,
    OptionalData,
    OptionalVideos,
    Temperature,
    TopP,
    run_options,
)
from streamspatial.eval.config import RunConfig, build_config


def execute(cfg: RunConfig) -> int:
    """Run (or resume) one configuration as ``streamspatial run`` does: the notes and the
    one-line summary on stderr; returns the exit status (0 clean, 1 some records hold errors).
    """
    from streamspatial.api import run
    from streamspatial.eval.outcome import summary_line

    outcome = run(cfg, notify=lambda line: print(line, file=sys.stderr))
    print(summary_line(cfg.out, outcome.counts, scorer=outcome.scorer), file=sys.stderr)
    return outcome.exit_status


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        ctx: typer.Context,
        data: OptionalData = None,
        videos: OptionalVideos = None,
        model: Annotated[
            str | None,
            typer.Option(
                help="random | frequent | openai:<model-name> | hf:<local-path> | "
                "hf:ORG/NAME[@REVISION] (none with --agent scene-graph-rules)"
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
            str | None, typer.Option("--format", help="auto | " + " | ".join(FORMATS[1:]))
        ] = None,
        agent: Annotated[
            str | None,
            typer.Option(
                help="Agent building the inputs: policy (default; it also polls the items a "
                "benchmark asks by polling, StreamingBench's proactive ones), scene-graph, "
                "scene-graph-rules, folding, spatial-caption."
            ),
        ] = None,
        fold_every: Annotated[
            float | None,
            typer.Option(
                help=f"--agent folding: seconds between memory folds (default {FOLD_EVERY_S:g})."
            ),
        ] = None,
        fold_memory: Annotated[
            str | None,
            typer.Option(
                help="--agent folding: prose (default) or json, the structured memory of "
                "docs/agents.md that training data teaches (docs/training.md)."
            ),
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
        base_url: BaseUrl = None,
        api_key_env: Annotated[
            str | None,
            typer.Option(help="Environment variable holding the API key (default OPENAI_API_KEY)."),
        ] = None,
        concurrency: Annotated[
            int | None, typer.Option(help="Requests in flight (and videos streamed) at once.")
        ] = None,
        device: Annotated[
            str | None,
            typer.Option(
                help="hf: models: auto (default: the GPU when torch sees one) | cpu | cuda | "
                "cuda:N."
            ),
        ] = None,
        dtype: Annotated[
            str | None,
            typer.Option(
                help="hf: models: auto (default: the checkpoint's) | bfloat16 | float16 | float32."
            ),
        ] = None,
        batch_size: Annotated[
            int | None,
            typer.Option(
                help="hf: models: requests in flight answered by one generate (default 8; "
                "--concurrency twice this keeps the GPU busy)."
            ),
        ] = None,
        limit: Limit = None,
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
            int | None,
            typer.Option(
                help="Shorter side of frames sent, px (default: the model's recipe, else 448)."
            ),
        ] = None,
        frames: Frames = None,
        no_video_metadata: NoVideoMetadata = False,
        variant: Annotated[str | None, typer.Option(help="Prompt variant: default | cot")] = None,
        scorer: Annotated[
            str | None,
            typer.Option(
                help="official: the benchmark's own scoring code, prompt and frame sampling "
                "(default for a released benchmark file) | paper: the papers' formulas."
            ),
        ] = None,
        clips: Annotated[
            str | None,
            typer.Option(
                help="prefix (default): frames up to each query time only | official: the "
                "benchmark's official clips, which may end after the query time (OVO-Bench's "
                "forward probes, up to ceil(t)); the report marks such a run."
            ),
        ] = None,
        history: Annotated[
            str | None,
            typer.Option(
                help="own (default): a dialogue's earlier turns show the model's own answers | "
                "official: what the benchmark's official script shows there (StreamingBench "
                "SQA: the ground-truth answers); the report marks such a run."
            ),
        ] = None,
        judge: Annotated[
            str | None,
            typer.Option(
                help="Model spec of the language model judge for benchmarks an LLM scores "
                "(OmniMMI's AP, SI, MD, SG), e.g. openai:gpt-4-turbo; without one those tasks "
                "are reported not scored. Its requests carry the reference answers and never "
                "go to --model or its response cache."
            ),
        ] = None,
        judge_base_url: Annotated[
            str | None,
            typer.Option(help="--judge openai:…: its server (default OPENAI_BASE_URL)."),
        ] = None,
        temperature: Temperature = None,
        max_tokens: MaxTokens = None,
        top_p: TopP = None,
        leave_to_server: LeaveToServer = None,
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
        cfg = build_config(run_options(ctx.params), config)
        rc = execute(cfg)
        if rc:
            raise typer.Exit(rc)


__all__ = ["execute", "register"]
