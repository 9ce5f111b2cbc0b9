"""``streamspatial demo``: the whole loop on a laptop — generate, evaluate, report.

It renders a small benchmark (a few houses, about a minute of video each, small frames),
runs the seeded random and the leave-one-out frequent-answer baselines through the very same
runner as any model (and a text-only probe of a real model when one is configured), and writes
one report.  No network and no model weights are needed unless ``--model`` asks for them.

The baselines run with the ``none`` frame policy: they never look at frames, and decoding
video they ignore would only cost time.  The configured model is probed text-only, which is
exactly the blind test that shows whether questions can be answered without the video.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamspatial.core.errors import StreamspatialError

BASELINES = ("random", "frequent")
MODEL_ENV = "STREAMSPATIAL_MODEL"


@dataclass(frozen=True)
class DemoRun:
    format: str
    model: str
    run_dir: Path
    status: int  # execute()'s exit status: 0 clean, 1 some records hold errors


def evaluate(
    data: Path, videos: Path, out: Path, models: list[str], *, seed: int = 0
) -> list[DemoRun]:
    """Run each model on one benchmark file through the runner; one run folder per model."""
    from streamspatial.cli.run import execute
    from streamspatial.eval.config import build_config
    from streamspatial.report import write_report

    runs = []
    for model in models:
        run_dir = out / f"{data.stem}-{model.replace(':', '_').replace('/', '_')}"
        cfg = build_config(
            {
                "data": data,
                "videos": videos,
                "model": model,
                "policy": "none",
                "out": run_dir,
                "seed": seed,
                "progress": False,
                "concurrency": 4,
            }
        )
        status = execute(cfg)
        write_report(run_dir)
        runs.append(DemoRun(data.stem, model, run_dir, status))
    return runs


def summary_markdown(bench: Path, runs: list[DemoRun], n_items: dict[str, int]) -> str:
    """One page: what was generated and each format's leaderboard over the demo runs."""
    from streamspatial.report import leaderboard, leaderboard_markdown

    lines = [
        "# streamspatial demo",
        "",
        f"Benchmark generated in `{bench}` (see `manifest.json`); each format is scored with "
        "its own paper's metric. The baselines see no frames; random answers choice items "
        "only (numeric items count as wrong for it).",
        "",
    ]
    for fmt in sorted({r.format for r in runs}):
        fruns = [r for r in runs if r.format == fmt]
        columns, rows = leaderboard([r.run_dir for r in fruns])
        lines += [
            f"## {fmt} — {n_items.get(fmt, 0)} items",
            "",
            leaderboard_markdown(columns, rows),
            "",
            "Per-run reports: "
            + ", ".join(f"[{r.model}]({r.run_dir.name}/report.md)" for r in fruns),
            "",
        ]
    return "\n".join(lines)


def run_demo(
    out: Path,
    *,
    houses: int = 3,
    minutes: float = 1.0,
    size: tuple[int, int] = (160, 120),
    fps: float = 10.0,
    seed: int = 0,
    spin_turns: int = 6,
    model: str | None = None,
    console: Console | None = None,
) -> Path:
    """Generate, evaluate and report; returns the path of the summary report."""
    from streamspatial.cli.sim import run_generation
    from streamspatial.sim.generate import GenerateConfig

    console = console or Console(stderr=True)
    cfg = GenerateConfig(
        out=out / "benchmark",
        houses=houses,
        seed=seed,
        minutes=minutes,
        size=size,
        fps=fps,
        split="eval",
        identity_turns=spin_turns,
        rooms=4,
    )
    cfg.check()
    console.print(f"[1/3] generating {houses} houses × {minutes:g} min at {size[0]}x{size[1]}")
    result = run_generation(cfg, console)
    models = list(BASELINES) + ([model] if model else [])
    runs: list[DemoRun] = []
    n_items: dict[str, int] = {}
    console.print(f"[2/3] evaluating {', '.join(models)}")
    for fmt in ("s3", "ovos", "vcbench"):
        path = result.files.get(fmt)
        if path is None:
            continue
        n_items[path.stem] = sum(1 for it in result.items if it.benchmark == fmt)
        runs += evaluate(path, result.videos, out / "runs", models, seed=seed)
    console.print("[3/3] writing the report")
    report = out / "report.md"
    report.write_text(summary_markdown(cfg.out, runs, n_items), encoding="utf-8")
    return report


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path(
            "streamspatial-demo"
        ),
        houses: Annotated[int, typer.Option("--houses", help="Houses to generate.")] = 3,
        minutes: Annotated[float, typer.Option("--minutes", help="Minutes per house.")] = 1.0,
        size: Annotated[str, typer.Option("--size", help="Frame size WIDTHxHEIGHT.")] = "160x120",
        seed: Annotated[int, typer.Option("--seed", help="Seed for everything.")] = 0,
        spin_turns: Annotated[
            int, typer.Option("--spin-turns", help="Turns of the identity probe (0: off).")
        ] = 6,
        model: Annotated[
            str | None,
            typer.Option(
                "--model",
                envvar=MODEL_ENV,
                help=f"Also probe this model text-only (e.g. openai:<name>; env {MODEL_ENV}).",
            ),
        ] = None,
    ) -> None:
        """Generate a small benchmark, run the baselines (and a model, if given), report."""
        from streamspatial.cli.sim import parse_size

        if out.exists() and any(out.iterdir()) and not (out / "benchmark").is_dir():
            raise StreamspatialError(f"{out}: exists and is not a demo folder; choose --out")
        os.environ.setdefault("MUJOCO_GL", "egl")
        report = run_demo(
            out,
            houses=houses,
            minutes=minutes,
            size=parse_size(size),
            seed=seed,
            spin_turns=spin_turns,
            model=model,
        )
        typer.echo(report.read_text(encoding="utf-8"))
        typer.echo(f"report: {report}", err=True)
