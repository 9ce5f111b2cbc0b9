"""Command-line options that several commands share, each declared once.

An option that means the same in two commands (same flag, same help text) is an ``Annotated``
alias here, so its name and help cannot drift apart between them.  A run option's alias is
made by :func:`flag` from its declaration (``eval.options``), as all of ``run``'s flags are;
where one command requires the value (``--data``) and another may go without it, the two
aliases share that declaration.  Options whose help differs by command stay with that command.
Beside them, what the shared options turn into: the bar ``--no-progress`` turns off, and the
run options a command line gave (``run``, ``sweep``).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer

from streamspatial.core.options import Option
from streamspatial.eval.options import CLI_OPTIONS, RUN_OPTIONS

if TYPE_CHECKING:
    from rich.progress import Progress


def flag(option: Option, help_text: str | None = None) -> Any:
    """The command-line flag of a run option, as the ``Annotated`` type a command's parameter
    takes: its spelling and help from the declaration; a switch is a ``bool`` (default
    False), any other flag reads its value or ``None`` (not given: a config file may fill it).

    ``help_text`` words the flag for one command that says less than the declaration (``sweep``
    lists its shared options briefly); spelling and type still come from the declaration, so
    the command cannot read the option differently from ``run``.
    """
    text = option.help if help_text is None else help_text
    if option.switch:
        return Annotated[bool, typer.Option(option.spelling, help=text)]
    kind = option.cli_type or _given(option.type)
    return Annotated[kind | None, typer.Option(option.spelling, help=text)]


def _given(kind: Any) -> Any:
    """``kind`` without ``None`` (``int | None``: ``int``): the type of a value given."""
    if isinstance(kind, types.UnionType):
        kept = [k for k in get_args(kind) if k is not type(None)]
        return kept[0] if len(kept) == 1 else kind
    return kind


Data = Annotated[Path, typer.Option("--data", help=RUN_OPTIONS["data"].help)]
OptionalData = flag(RUN_OPTIONS["data"])
Videos = Annotated[Path, typer.Option("--videos", help=RUN_OPTIONS["videos"].help)]
OptionalVideos = flag(RUN_OPTIONS["videos"])
Limit = flag(RUN_OPTIONS["limit"])
BaseUrl = flag(RUN_OPTIONS["base_url"])
JudgeBaseUrl = flag(RUN_OPTIONS["judge_base_url"])
NoProgress = Annotated[bool, typer.Option("--no-progress")]
# How a run decodes and shows frames: ``run`` and ``sweep`` alike.
Temperature = flag(RUN_OPTIONS["temperature"])
MaxTokens = flag(RUN_OPTIONS["max_tokens"])
TopP = flag(RUN_OPTIONS["top_p"])
LeaveToServer = flag(RUN_OPTIONS["leave_to_server"])
Frames = flag(RUN_OPTIONS["frames"])
NoVideoMetadata = flag(RUN_OPTIONS["video_metadata"])
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


def run_options(params: Mapping[str, Any], *, skip: Collection[str] = ()) -> dict[str, Any]:
    """What a command line gave of the run options, for ``eval.config.build_config``.

    ``params`` is the command's ``ctx.params``.  Values not given (``None``) and switches left
    off are dropped, so a config file still fills them; a switch given becomes its option's
    value (``--no-progress`` → ``progress: False``) and a listed option its list.
    ``config`` (the file itself) and the command's own options named in ``skip`` are not run
    options and stay out.
    """
    given: dict[str, Any] = {}
    for name, value in params.items():
        if name == "config" or name in skip or value is None:
            continue
        option = CLI_OPTIONS.get(name)
        if option is None:  # not a run option: build_config names it unknown
            given[name] = value
        elif option.switch:
            if value:
                given[option.name] = not option.default
        elif option.listed and isinstance(value, str):
            given[option.name] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            given[option.name] = value
    return given


__all__ = [
    "BaseUrl",
    "Data",
    "Frames",
    "JudgeBaseUrl",
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
    "flag",
    "progress_bar",
    "run_options",
]
