"""``streamspatial sweep``: a grid of models × frame policies (× thinking) over one benchmark.

OVO-S-Bench Tables 3 and 7–8 are grids of runs that differ in one setting.  A sweep is exactly
those runs, made by the ordinary runner (:func:`streamspatial.api.run`, so each grid
cell is a normal, resumable run folder), sharing one frame cache so a video decoded for one
cell is not decoded again for the next, followed by the combined HTML report (heatmap and
thinking deltas) and a leaderboard.  Re-running the same command resumes every cell.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from streamspatial.cli.options import (
    Frames,
    LeaveToServer,
    Limit,
    MaxTokens,
    NoProgress,
    NoVideoMetadata,
    Temperature,
    TopP,
    Videos,
    flag,
    run_options,
)
from streamspatial.cli.run import execute
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.options import RUN_OPTIONS

# Run options a sweep passes to every cell, worded briefly here (``run --help`` says more).
Format = flag(RUN_OPTIONS["format"], "Benchmark format.")
Agent = flag(RUN_OPTIONS["agent"], "Agent building the inputs.")
BaseUrl = flag(RUN_OPTIONS["base_url"], "OpenAI-compatible endpoint.")
Concurrency = flag(RUN_OPTIONS["concurrency"], "Requests in flight.")
Device = flag(RUN_OPTIONS["device"], "hf: models: auto (default) | cpu | cuda | cuda:N.")
Dtype = flag(RUN_OPTIONS["dtype"], "hf: models: auto (default) | bfloat16 | float16 | float32.")
BatchSize = flag(RUN_OPTIONS["batch_size"], "hf: models: requests per generate (default 8).")
CacheDir = flag(RUN_OPTIONS["cache_dir"], "Shared frame/response cache (default OUT/cache).")
Config = flag(RUN_OPTIONS["config"], "YAML with run options shared by every cell.")

THINKING = {"none": (None,), "on": (True,), "off": (False,), "both": (True, False)}


def _split(value: str, what: str) -> list[str]:
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise StreamspatialError(f"sweep: --{what} needs at least one value (comma-separated)")
    if len(set(parts)) != len(parts):
        raise StreamspatialError(f"sweep: --{what} lists a value twice ({value})")
    return parts


def slug(text: str) -> str:
    """A folder-safe name: ``openai:Qwen/Qwen3-VL`` → ``openai_Qwen_Qwen3-VL``."""
    return re.sub(r"[^A-Za-z0-9.@+-]+", "_", text).strip("_")


def cell_name(model: str, policy: str, thinking: bool | None) -> str:
    tag = "" if thinking is None else ("__think" if thinking else "__nothink")
    return f"{slug(model)}__{slug(policy)}{tag}"


def _extra_body(base: dict[str, Any], thinking: bool | None) -> dict[str, Any]:
    if thinking is None:
        return base
    kwargs = {**(base.get("chat_template_kwargs") or {}), "enable_thinking": thinking}
    return {**base, "chat_template_kwargs": kwargs}


def grid(
    models: list[str], policies: list[str], thinking: str
) -> list[tuple[str, str, bool | None]]:
    if thinking not in THINKING:
        raise StreamspatialError(
            f"sweep: --thinking expected one of {', '.join(THINKING)}, got {thinking!r}"
        )
    return [(m, p, t) for m in models for p in policies for t in THINKING[thinking]]


def run_sweep(
    given: dict[str, Any],
    models: list[str],
    policies: list[str],
    thinking: str,
    out: Path,
    config: Path | None = None,
) -> tuple[list[Path], int]:
    """Run (or resume) every cell as ``streamspatial run`` does; returns the run folders and the
    worst exit status."""
    from streamspatial.eval.config import build_config, load_config_file

    cells = grid(models, policies, thinking)
    base_extra = dict((load_config_file(config) if config else {}).get("extra_body") or {})
    # Validate every cell before running any, so a typo in the last model stops nothing late.
    configs = []
    for model, policy, thinks in cells:
        cell = {
            **given,
            "model": model,
            "policy": policy,
            "out": out / cell_name(model, policy, thinks),
            "cache_dir": given.get("cache_dir") or out / "cache",
        }
        if thinks is not None:
            cell["extra_body"] = _extra_body(base_extra, thinks)
        configs.append(build_config(cell, config))
    from streamspatial.models.registry import check_placement, check_spec
    from streamspatial.video.policies import parse_policy

    for cfg in configs:  # a bad spec stops the sweep before its first cell
        try:
            check_spec(cfg.model)
            if cfg.executor == "local":
                check_placement(cfg.model, cfg.device)
        except StreamspatialError as exc:
            raise StreamspatialError(f"sweep: {exc}") from None
        if cfg.agent == "policy":
            parse_policy(cfg.policy)
    worst = 0
    for k, cfg in enumerate(configs, start=1):
        think = cells[k - 1][2]
        label = f"{cfg.model} · {cfg.policy}" + ("" if think is None else f" · thinking {think}")
        print(f"[{k}/{len(configs)}] {label} → {cfg.out}", file=sys.stderr)
        worst = max(worst, execute(cfg))
    return [c.out for c in configs], worst


def register(app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep(
        ctx: typer.Context,
        data: Annotated[Path, typer.Option(help="Benchmark file.")],
        videos: Videos,
        models: Annotated[str, typer.Option(help="Comma-separated model specs.")],
        policies: Annotated[str, typer.Option(help="Comma-separated frame policies.")],
        out: Annotated[Path, typer.Option(help="Sweep folder: one run folder per cell.")],
        thinking: Annotated[
            str,
            typer.Option(
                help="none (default: leave the request alone) | on | off | both "
                "(chat_template_kwargs.enable_thinking; both gives the delta table)"
            ),
        ] = "none",
        format: Format = None,
        agent: Agent = None,
        base_url: BaseUrl = None,
        concurrency: Concurrency = None,
        device: Device = None,
        dtype: Dtype = None,
        batch_size: BatchSize = None,
        limit: Limit = None,
        temperature: Temperature = None,
        max_tokens: MaxTokens = None,
        top_p: TopP = None,
        leave_to_server: LeaveToServer = None,
        frames: Frames = None,
        no_video_metadata: NoVideoMetadata = False,
        cache_dir: CacheDir = None,
        config: Config = None,
        no_progress: NoProgress = False,
    ) -> None:
        """Run a models × policies (× thinking) grid, then write OUT/report.html."""
        from streamspatial.report import leaderboard, leaderboard_markdown
        from streamspatial.report.html import REPORT_HTML, write_html

        given = run_options(ctx.params, skip=("models", "policies", "thinking", "out"))
        runs, worst = run_sweep(
            given, _split(models, "models"), _split(policies, "policies"), thinking, out, config
        )
        columns, rows = leaderboard(runs)
        typer.echo(leaderboard_markdown(columns, rows))
        typer.echo(f"→ {write_html(runs, out / REPORT_HTML)}", err=True)
        if worst:
            raise typer.Exit(worst)


__all__ = ["cell_name", "grid", "register", "run_sweep", "slug"]
