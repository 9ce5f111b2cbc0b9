"""``streamspatial export-sft``: a generated folder's training records, for fine-tuning."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from streamspatial.cli.options import TrainFolder
from streamspatial.train.export import DEFAULT_DATASET, DEFAULT_POLICY
from streamspatial.train.formats import FORMATS
from streamspatial.train.records import KINDS


def export_sft(
    folder: TrainFolder,
    format: Annotated[str, typer.Option("--format", help="|".join(FORMATS))],
    out: Annotated[
        Path | None, typer.Option("--out", help="Export folder (default: FOLDER/sft/FORMAT).")
    ] = None,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            help="Sampling policy picking prefix frames for records that name none "
            "(as for `run`: uniform-N, nearest-N@Ffps, log-decay-N, window-K@Ffps/Ws, …).",
        ),
    ] = DEFAULT_POLICY,
    frame_size: Annotated[
        int, typer.Option("--frame-size", help="Shorter side of written frames, in pixels.")
    ] = 448,
    kinds: Annotated[
        str, typer.Option("--kinds", help="Kinds of example to export, comma-separated.")
    ] = ",".join(KINDS),
    dataset: Annotated[
        str, typer.Option("--dataset", help="Dataset name the framework registers.")
    ] = DEFAULT_DATASET,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing export.")] = False,
) -> None:
    """Export training records as LLaMA-Factory or Qwen-VL fine-tuning data (docs/training.md)."""
    from streamspatial.train.export import export_sft as run_export

    console = Console(stderr=True)
    columns = (TextColumn("{task.description:<34}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("videos"), TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("reading records", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total)

        summary = run_export(
            folder,
            format,
            out=out,
            policy=policy,
            frame_size=frame_size,
            kinds=[k.strip() for k in kinds.split(",") if k.strip()],
            dataset=dataset,
            force=force,
            progress=progress,
        )
    made = ", ".join(f"{summary.counts.get(k, 0)} {k}" for k in KINDS)
    print(f"{sum(summary.counts.values())} examples ({made}), {summary.images} images "
          f"→ {summary.out}")  # fmt: skip
    for name in summary.files:
        print(f"  {name}")
    print(f"  format: {summary.source}")


def check_explore(
    folder: TrainFolder,
) -> None:
    """Execute every exploration label again in a fresh environment: exit 1 unless each
    reveals its evidence and renders the views its answer example shows (docs/training.md)."""
    from streamspatial.train.explore_check import check_explore as run_check

    console = Console(stderr=True)
    with console.status("executing the exploration labels"):
        report = run_check(folder)
    print(report.line())
    for line in report.failed:
        print(f"  failed: {line}")
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("export-sft")(export_sft)
    app.command("check-explore")(check_explore)
