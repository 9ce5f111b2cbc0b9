"""``streamspatial validate``: every problem in a benchmark file, one line each.

Exit 0 with a short summary when the file is sound, 2 after listing the problems otherwise.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from streamspatial.bench.registry import FORMATS, check_benchmark
from streamspatial.core.errors import InputError, StreamspatialError


def validate(
    file: Annotated[Path, typer.Argument(help="Benchmark file (.jsonl, .json or .parquet).")],
    format: Annotated[str, typer.Option("--format", help="auto|" + "|".join(FORMATS[1:]))] = "auto",
    videos: Annotated[
        Path | None,
        typer.Option("--videos", help="Videos folder: check every video and its duration."),
    ] = None,
) -> None:
    """Check a benchmark file (and optionally its videos); report every problem."""
    if format not in FORMATS:
        _fail([f"unknown --format {format!r}; expected one of {', '.join(FORMATS)}"])
    try:
        adapter, result = check_benchmark(file, format, videos)
    except InputError as exc:
        _fail([str(p) for p in exc.problems])
    except StreamspatialError as exc:
        _fail([str(exc)])
    except OSError as exc:
        _fail([f"{file}: cannot read ({exc.strerror or exc})"])
    if result.problems:
        for p in result.problems:
            print(p)
        print(f"{len(result.problems)} problem(s) in {file}", file=sys.stderr)
        raise typer.Exit(2)
    _summary(file, adapter.name, result.items, checked_videos=videos is not None)


def _fail(lines: list[str]) -> None:
    for line in lines:
        print(line)
    raise typer.Exit(2)


def _summary(file: Path, fmt: str, items: list, *, checked_videos: bool) -> None:
    from streamspatial.scoring.scorers import default_scorer

    n_queries = sum(len(i.queries) for i in items)
    console = Console(soft_wrap=True)
    note = "videos checked" if checked_videos else "videos not checked (use --videos)"
    console.print(f"{file}: {fmt}, {len(items)} items, {n_queries} query points; {note}")
    console.print(f"default --scorer for this file: {default_scorer(items)}")
    tasks: Counter[tuple[str, str]] = Counter()
    points: Counter[tuple[str, str]] = Counter()
    for item in items:
        key = (item.task.level or item.task.category or "", item.task.task)
        tasks[key] += 1
        points[key] += len(item.queries)
    table = Table("group", "task", "items", "query points")
    for key in sorted(tasks):
        table.add_row(key[0], key[1], str(tasks[key]), str(points[key]))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
