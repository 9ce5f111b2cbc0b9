"""``streamspatial sim generate``: render houses and write a benchmark from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamspatial.bench.registry import HOMES
from streamspatial.cli.bars import stage_bars
from streamspatial.core.errors import InputError
from streamspatial.sim.pipeline.config import BENCHMARK_SIZE, MINUTES

sim_app = typer.Typer(
    help="Procedural simulator: generate benchmarks and training data.", no_args_is_help=True
)


# Named frame sizes: the simulator's default, the common VGA, each benchmark's own size under
# its format name (``Benchmark.frame_size``: S3-Bench's square 768), 768 and 720p.
SIZE_PRESETS: dict[str, tuple[int, int]] = {
    "qvga": (320, 240),
    "vga": (640, 480),
    **{name: b.frame_size for name, b in HOMES.items() if b.frame_size is not None},
    "768": (768, 768),
    "720p": (1280, 720),
}


def parse_size(text: str) -> tuple[int, int]:
    """``"320x240"`` or a preset (``qvga``, ``vga``, ``s3``/``768``, ``720p``) → (w, h)."""
    key = text.strip().lower()
    if key in SIZE_PRESETS:
        return SIZE_PRESETS[key]
    w, sep, h = key.partition("x")
    if not sep or not w.isdigit() or not h.isdigit():
        names = ", ".join(SIZE_PRESETS)
        raise InputError(
            f"--size: expected WIDTHxHEIGHT such as 320x240 or one of {names}, got {text!r}"
        )
    return int(w), int(h)


# What each stage's bar counts (sim.stages.STAGES).
STAGE_UNITS = {
    "plan": "walks planned",
    "render": "frames",
    "ask": "walks asked",
    "fill": "families filled",
    "prune": "rounds",
    "export": "files",
}


def run_generation(cfg, console: Console | None = None, *, progress: bool = True, training=None):
    """Run the pipeline (:func:`streamspatial.api.generate_from`) under one progress bar per
    stage (plan, render, ask, fill, prune, export), or silently with ``progress=False``;
    ``training`` as ``generate_from`` takes it."""
    from streamspatial.api import generate_from

    console = console or Console(stderr=True)

    def notice(line: str) -> None:  # before rendering: walks lengthened, families left short
        console.print(line, highlight=False)

    with stage_bars(console, progress, width=7, units=STAGE_UNITS, remaining=True) as report:
        return generate_from(cfg, report, notice, training=training)


@sim_app.command("generate")
def generate(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Output folder for files and videos.")],
    houses: Annotated[int, typer.Option("--houses", help="Number of houses (one walk each).")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Seed: same seed, same benchmark.")] = 0,
    minutes: Annotated[
        float,
        typer.Option("--minutes", help="Minutes of video per house, {:g}–{:g}.".format(*MINUTES)),
    ] = 1.0,
    size: Annotated[
        str,
        typer.Option(
            "--size",
            help="Frame size WIDTHxHEIGHT (S3-Bench's real videos: 640x480), or a preset: "
            "qvga, vga, s3 (768x768, S3-Bench's simulated videos), 720p.",
        ),
    ] = "{}x{}".format(*BENCHMARK_SIZE),
    fps: Annotated[float, typer.Option("--fps", help="Frames per second.")] = 10.0,
    split: Annotated[
        str, typer.Option("--split", help="train|eval: disjoint house seeds.")
    ] = "eval",
    per_family: Annotated[
        int, typer.Option("--per-family", help="Questions per family per video, at least 1.")
    ] = 3,
    spin_turns: Annotated[
        int,
        typer.Option(
            "--spin-turns",
            help="Also render VCBench's identity-persistence probe: a camera turning in place "
            "this many times, 6 s a turn, with one question per turn (0: none).",
        ),
    ] = 0,
    rooms: Annotated[
        int | None, typer.Option("--rooms", help="Rooms per house, 2–12 (default: 4–12 drawn).")
    ] = None,
    furniture: Annotated[
        str,
        typer.Option(
            "--furniture",
            help="catalog: textured catalogue models in textured rooms; boxes: flat boxes.",
        ),
    ] = "catalog",
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Processes rendering and asking side by side (0: one per core from 5 min of "
            "video; where EGL finds a GPU, one rendering process per core always).",
        ),
    ] = 0,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="local: this machine; ray: walks rendered and asked on Ray actors, pruning "
            "and export here (needs the ray extra).",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="With --executor ray: the cluster to join (auto, host:port or "
            "ray://host:10001); default: start a local Ray instance.",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Keep the walks an interrupted run of this same command already rendered in "
            "--out; render only the missing ones (questions are asked again).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace --out when it holds another benchmark (other options, or generated "
            "files but no manifest.json); the old one is deleted once the new is complete.",
        ),
    ] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bars.")] = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune/--no-prune",
            help="Iterative Bias Pruning: replace questions a blind model answers (qc blind).",
        ),
    ] = True,
    reserve: Annotated[
        float,
        typer.Option(
            "--reserve", help="Spare questions per family and walk, share of --per-family."
        ),
    ] = 1.0,
    events: Annotated[
        bool,
        typer.Option(
            "--events/--no-events",
            help="Dynamic events around each walk of a textured house: a person crossing, "
            "carrying and walking, a ball, door leaves swinging, lights off and on, props "
            "changing while the camera looks away, a metronome (the walk gets watch holds "
            "and glance-backs for them).",
        ),
    ] = True,
    stretch: Annotated[
        bool | None,
        typer.Option(
            "--stretch/--no-stretch",
            help="Lengthen a walk (to two or three times --minutes) that enters fewer than four "
            "rooms (OVO-S Optimal Path, Rerouting and Topological Structure ask about the rooms "
            "walked through) or plans fewer than four glance-backs (UCS Quantity Change "
            "Tracking, OVO-S Change Detection). The terminal and manifest.json (stretched) "
            "name such walks. Default: on for --split eval (a benchmark of every family), off "
            "for --split train (training data as long as asked).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Generate a benchmark: houses → trajectories → render → questions → benchmark files."""
    from streamspatial.sim.pipeline.config import GenerateConfig

    if split not in ("train", "eval"):
        raise InputError(f"--split: expected train or eval, got {split!r}")
    # Each option is the GenerateConfig field of its name but these three: --size is parsed,
    # --spin-turns sets identity_turns and --no-progress is no setting of the benchmark.
    fields = {k: v for k, v in ctx.params.items() if k not in ("size", "spin_turns", "no_progress")}
    if fields["stretch"] is None:  # an evaluation benchmark asks every family; training data
        fields["stretch"] = split == "eval"  # is sized by the walks asked for
    cfg = GenerateConfig(**fields, size=parse_size(size), identity_turns=spin_turns)
    cfg.check()
    console = Console()
    if not console.is_terminal:  # piped or captured: the pruning table is read later, keep it whole
        console = Console(soft_wrap=True, width=160)
    summaries = []

    def training(write):  # S3-Train-style records beside the items (docs/training.md)
        with console.status("training records: qa, explore (planned, executed, rendered), fold"):
            summaries.append(write())
        return summaries[-1]

    result = run_generation(cfg, progress=not no_progress, training=training)
    console.print(f"{len(result.items)} items over {len(result.episodes)} videos in {out}")
    console.print(stage_line(result.stages))
    if result.pruning is not None:
        print_pruning(console, result.pruning)
    if result.shortfall:
        console.print(
            f"{len(result.shortfall)} famil{'y' if len(result.shortfall) == 1 else 'ies'} made "
            "fewer questions than asked (--per-family × walks: a family asks only what its "
            f"walks show, and {minutes:g}-minute walks show few of some events or views; "
            "longer walks or more houses give more): "
            + ", ".join(f"{k} {m}/{a}" for k, (m, a) in sorted(result.shortfall.items(), key=_made))
        )
    for summary in summaries:  # written by the run, said here as before
        console.print(summary.line())
    for fmt, path in sorted(result.files.items()):
        console.print(f"  {fmt:<9} {path}")
    console.print(f"  videos    {result.videos}  (pass as --videos)")


@sim_app.command("gallery")
def gallery(
    out: Annotated[Path, typer.Option("--out", help="Folder for the PNGs.")] = Path(
        "docs/img/simulator"
    ),
    doc: Annotated[
        Path | None,
        typer.Option("--doc", help="Markdown file whose gallery block to rewrite."),
    ] = Path("docs/simulator.md"),
    size: Annotated[str, typer.Option("--size", help="Frame size (as for generate).")] = "480x360",
) -> None:
    """Render one frame per room type and rewrite the gallery in docs/simulator.md."""
    from streamspatial.sim.render.gallery import make_gallery, markdown, update_doc

    shots = make_gallery(out, parse_size(size))
    console = Console()
    for s in shots:
        console.print(f"  {s.room_type:<12} {s.path}  (house seed {s.house_seed}, {s.room_name})")
    if doc is not None:
        if not doc.is_file():
            raise InputError(f"--doc: {doc} does not exist")
        block = markdown(shots, doc.parent)
        if not update_doc(doc, block):
            raise InputError(
                f"{doc}: no gallery markers; add <!-- gallery:start --> and "
                "<!-- gallery:end --> where the gallery goes"
            )
        console.print(f"gallery of {len(shots)} room types written into {doc}")


def stage_line(stages: dict) -> str:
    """One line of the manifest's stage times: wall (CPU) seconds per stage."""
    from streamspatial.sim.pipeline.stages import STAGES

    parts = [f"{s} {stages[s]['wall_s']:.1f} ({stages[s]['cpu_s']:.1f})" for s in STAGES]
    return (
        f"time per stage, wall (CPU) s: {', '.join(parts)}; {stages['elapsed_s']:.1f} s in all "
        "(manifest.json: stages)"
    )


def _made(entry: tuple[str, list[int]]) -> tuple[float, str]:
    key, (made, asked) = entry
    return made / max(1, asked), key


def print_pruning(console: Console, pruning: dict) -> None:
    """Per judged task: blind vs chance before and after pruning, items pruned and replaced."""
    from rich.table import Table

    filled = pruning.get("filled") or {}
    if filled:
        console.print(
            f"{len(filled)} famil{'y' if len(filled) == 1 else 'ies'} filled from the spares of "
            "walks that showed more of their events: "
            + ", ".join(f"{k} +{n}" for k, n in sorted(filled.items()))
        )
    rows = {t: r for t, r in pruning["tasks"].items() if r["before"] and r["before"]["judged"]}
    if not rows:
        console.print("bias pruning: no task has enough items to judge (20); nothing pruned")
        return
    table = Table(
        "task", "items", "chance", "blind before", "blind after", "pruned", "from reserve",
        title=f"Iterative Bias Pruning ({pruning['rounds']} rounds; strict rule)",
    )  # fmt: skip
    for task, r in rows.items():
        b, a = r["before"], r["after"] or r["before"]
        table.add_row(
            task,
            f"{r['final']}/{r['requested']}",
            f"{a['chance']:.2f}",
            f"{b['blind']:.2f} ({b['best_model']})",
            f"{a['blind']:.2f} ({a['best_model']})" + ("" if a["within"] else " ✗"),
            str(r["pruned"]),
            str(r["added_from_reserve"]),
        )
    console.print(table)
    short = {t: r for t, r in pruning["tasks"].items() if r["final"] < r["requested"]}
    if short:
        console.print(
            f"{len(short)} task(s) ended short of the questions asked for (the reserve ran out; "
            "raise --reserve): "
            + ", ".join(f"{t} {r['final']}/{r['requested']}" for t, r in short.items())
        )


def register(app: typer.Typer) -> None:
    from streamspatial.cli.sim_export import export

    sim_app.command("export")(export)
    app.add_typer(sim_app, name="sim")
