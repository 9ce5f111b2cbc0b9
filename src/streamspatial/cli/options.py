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
# How a run decodes and shows frames: ``run`` and ``sweep`` alike.
Temperature = Annotated[
    float | None,
    typer.Option(help="Sampling temperature sent (default: the benchmark's, e.g. 0 for OVO-S)."),
]
MaxTokens = Annotated[
    int | None,
    typer.Option(help="Answer length cap sent (default: the benchmark's, e.g. 1024 for OVO-S)."),
]
TopP = Annotated[
    float | None, typer.Option(help="Nucleus sampling top_p sent (default: the benchmark's).")
]
LeaveToServer = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated fields sent to no server, so its default holds: temperature, "
        "max_tokens, top_p (reasoning models refuse temperature)."
    ),
]
Frames = Annotated[
    str | None,
    typer.Option(
        help="images | video (the policy's frames as one video, evenly spaced) | auto "
        "(default: video for a model family whose recipe says so, the Qwen-VL family)."
    ),
]
NoVideoMetadata = Annotated[
    bool,
    typer.Option(
        "--no-video-metadata",
        help="openai: --frames video: leave out the frames' times (media_io_kwargs), for a vLLM "
        "server without --trust-request-mm-kwargs; the prompt still gives them.",
    ),
]
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
             "no_progress": ("progress", False),
             "no_video_metadata": ("video_metadata", False)}  # fmt: skip
# Options given as a comma-separated list on the command line.
_LISTS = frozenset({"leave_to_server"})


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
        if name in _LISTS and isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        given[name] = value
    return given


__all__ = [
    "BaseUrl",
    "Data",
    "Frames",
    "LeaveToServer",
    "Limit",
    "MaxTokens",
    "NoProgress",
    "NoVideoMetadata",
    "OptionalData",
    "OptionalVideos",
    "Temperature",
    "TopP",
    "TrainFolder",
    "Videos",
    "progress_bar",
    "run_options",
]
