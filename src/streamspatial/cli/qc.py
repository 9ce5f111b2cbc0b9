"""``streamspatial qc ...``: quality-control probes for benchmark files."""

from __future__ import annotations

import typer

qc_app = typer.Typer(help="Quality control of benchmark items (seeds 000 E.5, 003 F.4–F.5).",
                     no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(qc_app, name="qc")
