"""Command-line options that several commands share, each declared once.

An option that means the same in two commands (same flag, same help text) is an ``Annotated``
alias here, so its name and help cannot drift apart between them.  Where one command requires
the value and another may go without it, the one ``typer.Option`` stands in two aliases (the
plain type and ``| None``).  Options whose help differs by command stay with that command.
Beside them, what the shared options turn into: the bar ``--no-progress`` turns off, and the
run options a command line gave (``run``, ``sweep``).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.progress import Progress

_DATA = typer.Option("--data", help="Benchmark file (JSONL/JSON/parquet).")
_VIDEOS = typer.Option("--videos", help="Folder holding the videos.")

Data = Annotated[Path, _DATA]
OptionalData = Annotated[Path | None, _DATA]
Videos = Annotated[Path, _VIDEOS]
OptionalVideos = Annotated[Path | None, _VIDEOS]
Limit = Annotated[int | None, typer.Option("--limit", help="Only the first N items.")]
BaseUrl = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL)."),
]
NoProgress = Annotated[bool, typer.Option("--no-progress")]
TrainFolder = Annotated[
    Path, typer.Argument(help="A folder made by `sim generate --split train` (train.jsonl).")
]


def progress_bar(no_progress: bool) -> Progress | None:
    """The counting bar (task description, bar, done/total) a command shows while it works, or
    ``None`` with ``--no-progress`` or when stderr is no terminal (a log keeps no redraws)."""
    if no_progress or not sys.stderr.isatty():
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())


# On/off switches of the run options: the RunConfig field each one sets when given, and to what.
_SWITCHES = {"force": ("force", True), "retry_errors": ("retry_errors", True),
             "no_progress": ("progress", False)}  # fmt: skip


def run_options(params: Mapping[str, Any], *, skip: Collection[str] = ()) -> dict[str, Any]:
    """What a command line gave of the run options, for ``eval.config.build_config``.

    ``params`` is the command's ``ctx.params``.  Values not given (``None``) and switches left
    off are dropped, so a config file still fills them; a switch given becomes its RunConfig
    value (``--no-progress`` → ``progress: False``).  ``config`` (the file itself) and the
    command's own options named in ``skip`` are not run options and stay out.
    """
    given: dict[str, Any] = {}
    for name, value in params.items():
        if name == "config" or name in skip or value is None:
            continue
        if name in _SWITCHES:
            if value:
                field, setting = _SWITCHES[name]
                given[field] = setting
            continue
        given[name] = value
    return given


__all__ = [
    "BaseUrl",
    "Data",
    "Limit",
    "NoProgress",
    "OptionalData",
    "OptionalVideos",
    "TrainFolder",
    "Videos",
    "progress_bar",
    "run_options",
]
