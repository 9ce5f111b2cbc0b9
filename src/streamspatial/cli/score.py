"""``streamspatial score``: replies a model made elsewhere, scored into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamspatial.cli.options import Data, JudgeBaseUrl
from streamspatial.eval.replies import FROM

SHOWN = 20  # missing query points printed before "… and N more"


def register(app: typer.Typer) -> None:
    @app.command("score")
    def score(
        data: Data,
        predictions: Annotated[
            list[Path],
            typer.Option(
                "--predictions",
                help="Predictions made elsewhere: files or folders (searched for the layout's "
                "files), repeatable.",
            ),
        ],
        out: Annotated[Path, typer.Option(help="Run folder to write (report reads it).")],
        source: Annotated[
            str,
            typer.Option(
                "--from",
                help="Their layout: "
                + " | ".join(FROM)
                + " (OVO-Bench results/<Model>/*.json, lmms-eval samples_<task>.jsonl, "
                "VLMEvalKit <model>_<dataset>.xlsx/.tsv, JSONL {item_id, query_index | t_q, "
                "reply}; auto: recognised from the files).",
            ),
        ] = "auto",
        model_name: Annotated[
            str | None,
            typer.Option(help="The model's name in reports (default: as the files name it)."),
        ] = None,
        format: Annotated[
            str, typer.Option("--format", help="The --data file's benchmark format (auto).")
        ] = "auto",
        force: Annotated[bool, typer.Option(help="Replace a run folder holding another run.")] = (
            False
        ),
        judge: Annotated[
            str | None,
            typer.Option(
                help="Model spec of a language model judge for the tasks an LLM scores "
                "(OmniMMI's AP, SI, MD, SG), asked as run --judge asks it; without one they are "
                "reported not scored."
            ),
        ] = None,
        judge_base_url: JudgeBaseUrl = None,
    ) -> None:
        """Score replies made elsewhere as the benchmark's official code and its paper do, into
        an ordinary run folder: then `report`, `report --scorer official|paper`, `compare`."""
        from streamspatial.eval.importer import import_predictions
        from streamspatial.eval.judge import build_judge

        judged = None
        if judge is not None:
            judged = build_judge(judge, base_url=judge_base_url, api_key_env="OPENAI_API_KEY",
                                 timeout=120.0, max_retries=6, concurrency=8)  # fmt: skip
        done = import_predictions(
            data,
            predictions,
            out,
            source=source,
            model_name=model_name,
            format=format,
            force=force,
            judge=judged,
        )
        for line in (*done.repairs, *done.notes):
            typer.echo(line, err=True)
        if done.missing:
            shown = ", ".join(done.missing[:SHOWN])
            more = f" … and {len(done.missing) - SHOWN} more" if len(done.missing) > SHOWN else ""
            typer.echo(
                f"{len(done.missing)} query point(s) without a reply (official: left out, as its "
                f"scorer leaves them; paper: wrong): {shown}{more}",
                err=True,
            )
        typer.echo(
            f"{done.out}: {done.replies} replies from {done.files} file(s) ({done.source}) "
            f"scored as {done.model}, {done.query_points} query points, "
            f"{len(done.repairs)} repaired pairing(s); scorer {done.scorer} → "
            f"streamspatial report {done.out}",
            err=True,
        )
