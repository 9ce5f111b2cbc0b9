"""``streamspatial demo``: the whole loop on a laptop — generate, evaluate, report.

It renders a small benchmark (a few houses, about a minute of video each, small frames),
runs the seeded random and the leave-one-out frequent-answer baselines through the very same
runner as any model, the scene-graph rule agent over perfect and over noisy ground-truth
perception (issue #5: how much a pose-anchored memory answers by geometry alone, and how fast
that falls with imperfect perception), and a text-only probe of a real model when one is
configured.  No network and no model weights are needed unless ``--model`` asks for them.
It ends with ``report.html`` (the papers' tables and figures, one self-contained page),
``report.md`` and a short table in the terminal saying where to look next.

The baselines run with the ``none`` frame policy: they never look at frames, and decoding
video they ignore would only cost time.  The configured model is probed text-only, which is
exactly the blind test that shows whether questions can be answered without the video.
A contender that cannot answer any item of a file by design (random on the all-numeric
VCBench file) is not run on it, and the report says so instead of showing a row of zeros.

Over 400 lines on purpose: the demo is one script a newcomer reads top to bottom —
generate, evaluate, report — rather than a hop through several modules.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from streamspatial.agents.registry import agent_entry
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import Item

MODEL_ENV = "STREAMSPATIAL_MODEL"
RULES_AGENT = "scene-graph-rules"
RULES_MODEL = agent_entry(RULES_AGENT).answers_as or ""  # the model name it answers as
DEMO_SIZE = (320, 240)  # frames a person can look at; a minute renders in seconds
NOISY = "ground-truth:noise=1"  # the documented unit noise: drift, depth error, misses, …


@dataclass(frozen=True)
class Contender:
    """One row of the demo's leaderboards: a model, possibly answering through an agent."""

    label: str  # run-folder suffix and the name the summary shows
    model: str
    agent: str = "policy"
    perception: str | None = None
    note: str = ""

    def options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"model": self.model, "agent": self.agent, "policy": "none"}
        if self.perception is not None:
            opts["perception"] = self.perception
        return opts


BASELINES = (
    Contender("random", "random", note="seeded uniform guess; choice items only"),
    Contender("frequent", "frequent", note="most frequent answer of the task, leave-one-out"),
)
RULE_AGENTS = (
    Contender(
        "rules-perfect",
        RULES_MODEL,
        agent=RULES_AGENT,
        perception="ground-truth",
        note="scene-graph memory + rules, perfect perception (upper bound)",
    ),
    Contender(
        "rules-noisy",
        RULES_MODEL,
        agent=RULES_AGENT,
        perception=NOISY,
        note=f"scene-graph memory + rules, perception {NOISY}",
    ),
)


@dataclass(frozen=True)
class DemoRun:
    format: str  # the benchmark file's name (s3, ovos, …)
    contender: Contender
    run_dir: Path
    status: int  # the run's exit status: 0 clean, 1 some records hold errors
    benchmark: str = ""  # its adapter (--format); the file's name when not given

    @property
    def model(self) -> str:
        return self.contender.label


def not_applicable(contender: Contender, items: list[Item]) -> str | None:
    """Why ``contender`` has nothing to answer in ``items``, or None when it has."""
    from streamspatial.models.registry import supported_answer_types

    types = supported_answer_types(contender.model)
    if types is None or any(it.answer_type.value in types for it in items):
        return None
    return f"answers {', '.join(sorted(types))} items only and this file has none"


def evaluate(
    data: Path,
    videos: Path,
    out: Path,
    contenders: list[Contender],
    *,
    seed: int = 0,
    on_run: Callable[[str], None] | None = None,
    benchmark: str | None = None,
) -> list[DemoRun]:
    """Run each contender on one benchmark file through :func:`streamspatial.evaluate`, as a
    library user would; one run folder each.

    The run's notes and one-line summary are kept back (the demo's own table says it all)
    unless the run ends with errors, when they are printed."""
    from streamspatial.api import evaluate as evaluate_one
    from streamspatial.report import write_report

    runs = []
    for c in contenders:
        run_dir = out / f"{data.stem}-{c.label}"
        if on_run is not None:
            on_run(run_dir.name)
        result = evaluate_one(
            data, videos, out=run_dir, seed=seed, progress=False, concurrency=4, **c.options()
        )
        write_report(run_dir)
        if result.exit_status:
            sys.stderr.write("\n".join([*result.notes, result.summary]) + "\n")
        runs.append(DemoRun(data.stem, c, run_dir, result.exit_status, benchmark or data.stem))
    return runs


def summary_markdown(
    bench: Path,
    runs: list[DemoRun],
    n_items: dict[str, tuple[int, int]],
    skipped: dict[str, list[str]],
) -> str:
    """One page: what was generated, who ran, and each format's leaderboard."""
    from streamspatial.report import leaderboard, leaderboard_markdown

    contenders = {r.contender.label: r.contender for r in runs}
    lines = [
        "# streamspatial demo",
        "",
        f"Benchmark generated in `{bench}` (see `manifest.json`); each format is scored with "
        "its own paper's metric (S3: accuracy for choice items, MRA for numbers; OVO-S: "
        "accuracy; VCBench: GPA / MoC / UDA). No contender sees a frame: the baselines answer "
        "blind, and the rule agents read the simulator's perception stream up to each query "
        "time. `n/a` counts query points a contender cannot answer by design (random: "
        "numbers), left out of its scores.",
        "",
    ]
    if any(c.agent == RULES_AGENT for c in contenders.values()):
        lines += [
            "Tasks the rule agents have no rule for are left blank and scored wrong (the "
            "`invalid` count of each run's report).",
            "",
        ]
    lines += [
        "| contender | what it is |",
        "|---|---|",
        *(f"| {c.label} | {c.note} |" for c in contenders.values()),
        "",
    ]
    for fmt in sorted({r.format for r in runs}):
        fruns = [r for r in runs if r.format == fmt]
        columns, rows = leaderboard([r.run_dir for r in fruns])
        items, points = n_items.get(fmt, (0, 0))
        # n in the table counts query points: an item may be asked at several times
        lines += [f"## {fmt} — {items} items, {points} query points", ""]
        if skipped.get(fmt):
            lines += [f"Not run on this file: {'; '.join(skipped[fmt])}.", ""]
        lines += [
            leaderboard_markdown(columns, rows),
            "",
            "Per-run reports: "
            + ", ".join(f"[{r.model}](runs/{r.run_dir.name}/report.md)" for r in fruns),
            "",
        ]
    return "\n".join(lines)


def headline_table(runs: list[DemoRun]) -> Table:
    """The closing summary: one row per contender, each format's main number (percent).

    ``unanswered`` counts blank or unreadable answers (scored wrong) over every query point
    the contender was asked: the rule agents leave tasks they have no rule for blank, which is
    why they can sit below chance on a format whose tasks they mostly do not cover.
    """
    from streamspatial.bench.registry import get_adapter
    from streamspatial.report import load_run
    from streamspatial.report.tables import headline

    # The benchmark's own main number (its adapter's headline metric), in the order run.
    formats = list(dict.fromkeys(r.benchmark for r in runs))
    adapters = {f: get_adapter(f) for f in formats}
    table = Table(title="headline (percent; – not run)", title_justify="left")
    table.add_column("contender")
    for f in formats:
        a = adapters[f]
        table.add_column(f"{a.short_title} {a.headline_metric}", justify="right")
    table.add_column("unanswered", justify="right")
    labels = list(dict.fromkeys(r.contender.label for r in runs))
    cells: dict[tuple[str, str], str] = {}
    invalid = dict.fromkeys(labels, 0)
    asked = dict.fromkeys(labels, 0)
    for r in runs:
        rep = load_run(r.run_dir)
        value = headline(rep.table).get(adapters[r.benchmark].headline_metric)
        cells[(r.contender.label, r.benchmark)] = "–" if value is None else f"{100 * value:.1f}"
        invalid[r.contender.label] += rep.counts["invalid"]
        asked[r.contender.label] += rep.counts["records"]
    for label in labels:
        table.add_row(
            label,
            *(cells.get((label, f), "–") for f in formats),
            f"{invalid[label]}/{asked[label]}",
        )
    return table


@dataclass
class DemoResult:
    report: Path  # report.md
    runs: list[DemoRun]
    skipped: dict[str, list[str]]
    html: Path | None = None  # report.html, None when the report extra is missing
    html_missing: str | None = None  # why there is no report.html


def _bar(console: Console, unit: str) -> Progress:
    """The demo's steps 2 and 3: what is being done, a bar, done / all, time so far."""
    return Progress(
        TextColumn("{task.description:<34}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        console=console,
    )


def run_demo(
    out: Path,
    *,
    houses: int = 3,
    minutes: float = 1.0,
    size: tuple[int, int] = DEMO_SIZE,
    fps: float = 10.0,
    seed: int = 0,
    spin_turns: int = 6,
    model: str | None = None,
    rule_agents: bool = True,
    console: Console | None = None,
) -> DemoResult:
    """Generate, evaluate and report; returns the summary report's path and the runs."""
    from streamspatial.bench.registry import ADAPTERS
    from streamspatial.cli.sim import run_generation
    from streamspatial.sim.pipeline.config import GenerateConfig

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
        events=False,  # the demo's timings and numbers are checked as they are
        force=True,  # the demo's own folder: a demo with other options replaces it
    )
    cfg.check()
    console.print(f"[1/3] generating {houses} houses × {minutes:g} min at {size[0]}x{size[1]}")
    result = run_generation(cfg, console)
    contenders = list(BASELINES)
    if rule_agents:
        contenders += RULE_AGENTS
    if model:
        contenders.append(
            Contender(model.replace(":", "_").replace("/", "_"), model, note="text-only probe")
        )
    n_items: dict[str, tuple[int, int]] = {}
    skipped: dict[str, list[str]] = {}
    plan: list[tuple[str, Path, list[Contender]]] = []
    for fmt, path in result.files.items():  # the benchmark files, in the generator's order
        if fmt not in ADAPTERS:
            continue
        items = [it for it in result.items if it.benchmark == fmt]
        n_items[path.stem] = (len(items), sum(len(it.queries) for it in items))
        chosen = []
        for c in contenders:
            why = not_applicable(c, items)
            if why is None:
                chosen.append(c)
            else:
                skipped.setdefault(path.stem, []).append(f"{c.label} ({why})")
        plan.append((fmt, path, chosen))
    console.print(f"[2/3] evaluating {', '.join(c.label for c in contenders)}")
    runs: list[DemoRun] = []
    with _bar(console, "runs") as bar:
        task = bar.add_task("starting", total=sum(len(chosen) for _, _, chosen in plan))
        started_runs = [0]

        def started(name: str) -> None:
            bar.update(task, description=name, completed=started_runs[0])
            started_runs[0] += 1

        for fmt, path, chosen in plan:
            runs += evaluate(
                path, result.videos, out / "runs", chosen, seed=seed, on_run=started, benchmark=fmt
            )
        bar.update(task, description="done", completed=len(runs))
    console.print("[3/3] writing the report")
    report = out / "report.md"
    report.write_text(summary_markdown(cfg.out, runs, n_items, skipped), encoding="utf-8")
    html, missing = write_demo_html(out, runs, console)
    return DemoResult(report, runs, skipped, html, missing)


def write_demo_html(
    out: Path, runs: list[DemoRun], console: Console
) -> tuple[Path | None, str | None]:
    """``out/report.html`` over every run, under a bar; without matplotlib, why not."""
    try:
        from streamspatial.report.html import write_html
    except StreamspatialError as e:  # the report extra is missing: report.md still stands
        return None, str(e)
    with _bar(console, "steps") as bar:
        task = bar.add_task("report.html", total=None)

        def progress(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        path = write_html(
            [r.run_dir for r in runs],
            out / "report.html",
            title="streamspatial demo — simulator benchmark, baselines and scene-graph memory",
            progress=progress,
        )
    return path, None


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path(
            "streamspatial-demo"
        ),
        houses: Annotated[int, typer.Option("--houses", help="Houses to generate.")] = 3,
        minutes: Annotated[float, typer.Option("--minutes", help="Minutes per house.")] = 1.0,
        size: Annotated[
            str, typer.Option("--size", help="Frame size WIDTHxHEIGHT.")
        ] = f"{DEMO_SIZE[0]}x{DEMO_SIZE[1]}",
        seed: Annotated[int, typer.Option("--seed", help="Seed for everything.")] = 0,
        spin_turns: Annotated[
            int, typer.Option("--spin-turns", help="Turns of the identity probe (0: off).")
        ] = 6,
        no_agents: Annotated[
            bool, typer.Option("--no-agents", help="Skip the scene-graph rule agents.")
        ] = False,
        model: Annotated[
            str | None,
            typer.Option(
                "--model",
                envvar=MODEL_ENV,
                help=f"Also probe this model text-only (e.g. openai:<name>; env {MODEL_ENV}).",
            ),
        ] = None,
    ) -> None:
        """Generate a small benchmark, run baselines and rule agents, write report.html."""
        from streamspatial.cli.sim import parse_size

        if out.exists() and any(out.iterdir()) and not (out / "benchmark").is_dir():
            raise StreamspatialError(f"{out}: exists and is not a demo folder; choose --out")
        os.environ.setdefault("MUJOCO_GL", "egl")
        console = Console(stderr=True)
        result = run_demo(
            out,
            houses=houses,
            minutes=minutes,
            size=parse_size(size),
            seed=seed,
            spin_turns=spin_turns,
            model=model,
            rule_agents=not no_agents,
            console=console,
        )
        summary = Console()
        summary.print()
        summary.print(headline_table(result.runs))
        for fmt, why in sorted(result.skipped.items()):
            summary.print(f"not run on {fmt}: {'; '.join(why)}", soft_wrap=True)
        print_next_steps(summary, out, result)


def print_next_steps(console: Console, out: Path, result: DemoResult) -> None:
    """Where to look, and the command that puts a real model on the same benchmark."""
    # soft_wrap: paths stay on one line, ready to copy
    if result.html is not None:
        console.print(
            f"[bold]report:[/bold] {result.html.resolve()}  (tables and figures; open it in a "
            "browser)",
            soft_wrap=True,
        )
    else:
        console.print(f"no report.html: {result.html_missing}", soft_wrap=True)
    console.print(
        f"also: {result.report} (leaderboards), {out / 'runs'}/<format>-<contender>/ "
        f"(one run each), {out / 'benchmark'}/ (the benchmark)",
        soft_wrap=True,
    )
    bench = out / "benchmark"
    console.print(
        "next, a model on the same benchmark: streamspatial run "
        f"--data {bench / 'ovos.jsonl'} --videos {bench / 'videos'} "
        "--model openai:<name> --out runs/ovos",
        soft_wrap=True,
    )
