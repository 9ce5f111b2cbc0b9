"""``streamspatial scans build | export``: benchmarks from real scans; walks written as scans."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamspatial.cli.bars import stage_bars
from streamspatial.core.errors import InputError

scans_app = typer.Typer(
    help="Real scans (ScanNet, ARKitScenes, ScanNet++): build benchmarks with the simulator's "
    "question generators; write simulator walks in the datasets' layouts.",
    no_args_is_help=True,
)


# Where scans build reads from: exactly one is given, and its flag names the dataset.
SOURCES = ("scannet", "arkitscenes", "scannetpp", "vsibench_meta")


@scans_app.command("build")
def build(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Output folder for files and videos.")],
    scannet: Annotated[
        Path | None, typer.Option("--scannet", help="A ScanNet scene folder, or a folder of them.")
    ] = None,
    arkitscenes: Annotated[
        Path | None,
        typer.Option("--arkitscenes", help="An ARKitScenes 3DOD scan folder, or a folder of them."),
    ] = None,
    scannetpp: Annotated[
        Path | None,
        typer.Option("--scannetpp", help="A ScanNet++ scene folder, or a folder of them."),
    ] = None,
    vsibench_meta: Annotated[
        Path | None,
        typer.Option(
            "--vsibench-meta",
            help="VSI-Bench's scene metadata (boxes only): write its box-only questions.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the questions.")] = 0,
    per_family: Annotated[
        int, typer.Option("--per-family", help="Questions per family per scene.")
    ] = 3,
    fps: Annotated[
        float, typer.Option("--fps", help="Frames per second of the scan videos (S3-Bench: 24).")
    ] = 24.0,
    size: Annotated[
        str, typer.Option("--size", help="Video size WIDTHxHEIGHT (S3-Bench: 640x480).")
    ] = "640x480",
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N scenes.")
    ] = None,
    prune: Annotated[
        bool, typer.Option("--prune/--no-prune", help="Iterative Bias Pruning against the reserve.")
    ] = True,
    resume: Annotated[
        bool, typer.Option("--resume", help="Keep scenes an earlier run of this command finished.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bars.")
    ] = True,
) -> None:
    """Build a benchmark from scans: the same files as ``sim generate`` (each benchmark's
    format, items.jsonl, manifest.json, videos with their ground truth)."""
    console = Console(stderr=True)
    given = {k.replace("_", "-"): ctx.params[k] for k in SOURCES if ctx.params[k]}
    if len(given) != 1:
        raise InputError(
            "scans build: give one of --scannet, --arkitscenes, --scannetpp or --vsibench-meta"
        )
    ((dataset, root),) = given.items()
    if dataset == "vsibench-meta":
        from streamspatial.scans.vsimeta import build_vsibench_meta

        files = build_vsibench_meta(root, out, seed=seed, prune=prune)
        console.print(f"wrote {', '.join(str(p) for p in files.values())}", highlight=False)
        return
    from streamspatial.cli.sim import parse_size
    from streamspatial.scans.build import ScanBuildConfig, build_scans
    from streamspatial.scans.families import not_on_scans

    # Each other option is the ScanBuildConfig field of its name, as in ``sim generate``, but
    # --size (parsed) and --progress (no setting of the benchmark).
    fields = {k: v for k, v in ctx.params.items() if k not in (*SOURCES, "size", "progress")}
    cfg = ScanBuildConfig(**fields, dataset=dataset, root=root, size=parse_size(size))
    with stage_bars(console, progress, width=32) as report:
        result = build_scans(cfg, report)
    console.print(
        f"{len(result.items)} items from {len(result.scenes)} scene(s) in {out}", highlight=False
    )
    skipped = not_on_scans()
    console.print(
        f"{len(skipped)} families not available on scans (manifest.json: not_on_scans)",
        highlight=False,
    )


@scans_app.command("export")
def export(
    sim_dir: Annotated[Path, typer.Argument(help="A benchmark folder made by sim generate.")],
    format: Annotated[str, typer.Option("--format", help="scannet | arkitscenes | scannetpp")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the scans into.")],
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bars.")
    ] = True,
) -> None:
    """Re-render a generated benchmark's walks with depth and instance ids, and write each in a
    dataset's layout (mesh, segments, aggregation or boxes, frames, depth, poses, intrinsics)."""
    from streamspatial.scans.export import export_scans

    console = Console(stderr=True)
    with stage_bars(console, progress, width=32) as report:  # a bar per walk
        written = export_scans(sim_dir, format, out, report)
    for p in written:
        console.print(str(p), highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(scans_app, name="scans")
