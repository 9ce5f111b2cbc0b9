"""``streamspatial run``: evaluate a model on a benchmark under the streaming protocol.

Exit status: 0 when every planned query point has a record without an error, 1 when some
record holds an error (re-run the same command to resume; only missing records are made), 2 for
a user mistake (bad flag, config, benchmark file, missing video), printed as one line.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import typer

from streamspatial.cli.options import flag, run_options
from streamspatial.eval.config import RunConfig, build_config
from streamspatial.eval.options import CLI_OPTIONS


def execute(cfg: RunConfig) -> int:
    """Run (or resume) one configuration as ``streamspatial run`` does: the notes and the
    one-line summary on stderr; returns the exit status (0 clean, 1 some records hold errors).
    """
    from streamspatial.api import run
    from streamspatial.eval.outcome import summary_line

    outcome = run(cfg, notify=lambda line: print(line, file=sys.stderr))
    print(summary_line(cfg.out, outcome.counts, scorer=outcome.scorer), file=sys.stderr)
    return outcome.exit_status


def command(ctx: typer.Context, **flags: Any) -> None:
    """Evaluate a model under the strict streaming protocol (resumable)."""
    cfg = build_config(run_options(ctx.params), ctx.params.get("config"))
    rc = execute(cfg)
    if rc:
        raise typer.Exit(rc)


# The command's parameters are the run options' flags (eval.options), in their order: typer
# reads them from this signature, so a flag is declared where its option is, never here.
command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    + [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=False if option.switch else None,
            annotation=flag(option),
        )
        for name, option in CLI_OPTIONS.items()
    ]
)


def register(app: typer.Typer) -> None:
    app.command("run")(command)


__all__ = ["command", "execute", "register"]
