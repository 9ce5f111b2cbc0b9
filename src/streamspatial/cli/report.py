"""``streamspatial report RUN_DIR`` and ``streamspatial compare RUN_DIR...``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamspatial.report import leaderboard, leaderboard_markdown, write_report
from streamspatial.report.tables import fmt_cell, table_markdown


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        run_dirs: Annotated[list[Path], typer.Argument(help="Run folder(s) made by `run`.")],
        html: Annotated[
            bool,
            typer.Option("--html", help="Also write one self-contained report.html over the runs."),
        ] = False,
        html_out: Annotated[
            Path | None,
            typer.Option(
                help="Where --html writes (default RUN_DIR/report.html for one run, "
                "./report.html for several)."
            ),
        ] = None,
        scorer: Annotated[
            str | None,
            typer.Option(
                help="official | paper: score the recorded responses with the benchmark's own "
                "scoring code or the papers' formulas (default: the scorer the run ran with)."
            ),
        ] = None,
        blind: Annotated[
            Path | None,
            typer.Option(
                help="Blind scores to set beside each task's (the JSON of `qc blind --out`, or a "
                "generated benchmark's manifest.json; default: blind.json or a pruned "
                "manifest.json beside the run's data).",
                exists=True,
                dir_okay=False,
            ),
        ] = None,
    ) -> None:
        """Write scores.json and report.md in the paper's table layout; print the main table."""
        for run_dir in run_dirs:
            rep = write_report(run_dir, scorer, blind)
            typer.echo(table_markdown(rep.table))
            if rep.blind is not None:
                typer.echo("\n" + table_markdown(rep.blind))
            c = rep.counts
            if rep.not_applicable_line():
                typer.echo(rep.not_applicable_line(), err=True)
            typer.echo(
                f"\n{c['records']}/{c['planned']} query points, {c['errors']} errors, "
                f"{c['invalid']} invalid; scorer {rep.scorer} → {run_dir / 'report.md'}",
                err=True,
            )
            if rep.compared is not None:
                other = rep.compared
                numbers = ", ".join(
                    f"{k} {fmt_cell('accuracy', v)}" for k, v in other["headline"].items()
                )
                typer.echo(f"--scorer {other['scorer']} gives: {numbers}", err=True)
        if html:
            # Without the [report] extra this import is one line naming it (report.plots).
            from streamspatial.report.html import REPORT_HTML, write_html

            default = run_dirs[0] / REPORT_HTML if len(run_dirs) == 1 else Path(REPORT_HTML)
            typer.echo(f"→ {write_html(run_dirs, html_out or default, blind=blind)}", err=True)

    @app.command("compare")
    def compare(
        run_dirs: Annotated[list[Path], typer.Argument(help="Run folders of one benchmark.")],
        out: Annotated[
            Path | None, typer.Option(help="Also write the leaderboard here (.md).")
        ] = None,
        scorer: Annotated[
            str | None,
            typer.Option(help="official | paper (default: each run's own scorer)."),
        ] = None,
    ) -> None:
        """One leaderboard over several runs, best Overall first."""
        columns, rows = leaderboard(run_dirs, scorer)
        text = leaderboard_markdown(columns, rows)
        typer.echo(text)
        used = sorted({str(r["scorer"]) for r in rows})
        if len(used) > 1:
            typer.echo(
                f"note: these runs were scored by different scorers ({', '.join(used)}); "
                "pass --scorer official or --scorer paper to score them alike",
                err=True,
            )
        if out is not None:
            out.write_text(text + "\n", encoding="utf-8")
