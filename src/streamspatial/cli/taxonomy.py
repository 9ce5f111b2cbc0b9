"""``streamspatial taxonomy RUN_DIR --judge openai:NAME``: label wrong answers.

OVO-S-Bench's error taxonomy (Appendix C).  Writes ``RUN_DIR/taxonomy.json`` (atomically):
per-query votes and labels, counts of truncated traces and disagreements, the per-level
distribution, and Cohen's κ when a second judge is given.  ``report --html`` draws the
distribution from it.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from streamspatial.cli.options import NoProgress, progress_bar
from streamspatial.core.errors import StreamspatialError
from streamspatial.report.tables import markdown


def _judge(spec: str, base_url: str | None, api_key_env: str, concurrency: int, params: Any):
    from streamspatial.models.registry import load_backend

    if spec.partition(":")[0].strip().lower() != "openai":
        raise StreamspatialError(f"taxonomy: judge {spec!r}: expected openai:<model-name>")
    return load_backend(
        spec,
        base_url=base_url,
        api_key=os.environ.get(api_key_env),
        concurrency=concurrency,
        params=params,
    )


def register(app: typer.Typer) -> None:
    @app.command("taxonomy")
    def taxonomy(
        run_dir: Annotated[Path, typer.Argument(help="A run folder made by `run`.")],
        judge: Annotated[str, typer.Option(help="Judge model: openai:<model-name>.")],
        judge2: Annotated[
            str | None, typer.Option(help="Second judge for Cohen's κ (openai:<model-name>).")
        ] = None,
        base_url: Annotated[
            str | None, typer.Option(help="Judge endpoint (default $OPENAI_BASE_URL).")
        ] = None,
        base_url2: Annotated[
            str | None, typer.Option(help="Second judge's endpoint (default: --base-url).")
        ] = None,
        api_key_env: Annotated[
            str, typer.Option(help="Environment variable holding the key.")
        ] = "OPENAI_API_KEY",
        videos: Annotated[
            Path | None, typer.Option(help="Videos folder (default: the run's).")
        ] = None,
        temperature: Annotated[
            float, typer.Option(help="Judge sampling temperature (3 votes per query).")
        ] = 0.7,
        concurrency: Annotated[int, typer.Option(help="Queries judged at once.")] = 8,
        no_progress: NoProgress = False,
    ) -> None:
        """Label each wrong answer with one of five error classes; write taxonomy.json."""
        from streamspatial.analysis.taxonomy import (
            LABELS,
            TAXONOMY_JSON,
            judge_run,
            load_run_items,
            summarise,
            video_frame_reader,
            wrong_records,
        )
        from streamspatial.eval.results import write_json_atomic
        from streamspatial.models.types import GenerationParams

        adapter, items, folder = load_run_items(run_dir, videos)
        records = wrong_records(run_dir)
        params = GenerationParams(
            temperature=temperature,
            max_tokens=200,
            extra={"response_format": {"type": "json_object"}},
        )
        judges = [_judge(judge, base_url, api_key_env, concurrency, params)]
        if judge2:
            judges.append(_judge(judge2, base_url2 or base_url, api_key_env, concurrency, params))
        missing = sorted({r.item_id for r in records} - set(items))
        if missing:
            raise StreamspatialError(
                f"{run_dir}: item {missing[0]} is not in the run's benchmark file"
            )
        reader = video_frame_reader(adapter, folder)

        async def go(advance) -> list:
            try:
                return await judge_run(
                    records, items, reader, judges, params, concurrency=concurrency,
                    on_done=advance,
                )  # fmt: skip
            finally:
                for j in judges:
                    await j.aclose()

        bar = progress_bar(no_progress)
        if bar is not None:
            with bar:
                task = bar.add_task("judging", total=len(records))
                judged = asyncio.run(go(lambda: bar.advance(task)))
        else:
            judged = asyncio.run(go(None))
        summary = summarise(judged, [judge, *([judge2] if judge2 else [])])
        write_json_atomic(run_dir / TAXONOMY_JSON, summary)
        rows = [
            {"level": lv, **{LABELS[k]: n for k, n in counts.items()}}
            for lv, counts in summary["distribution"].items()
        ]
        typer.echo(markdown(["level", *LABELS.values()], rows))
        kappa = summary["kappa"]
        typer.echo(
            f"\n{summary['wrong']} wrong answers: {summary['labelled']} labelled, "
            f"{summary['truncated']} truncated (T1a without a call), "
            f"{summary['disagreements']} disagreements excluded"
            + (f"; Cohen's κ = {kappa:.3f} over {summary['kappa_n']}" if kappa is not None else "")
            + f" → {run_dir / TAXONOMY_JSON}",
            err=True,
        )


__all__ = ["register"]
