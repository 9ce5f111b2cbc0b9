"""``streamspatial qc ...``: quality-control probes (OVO-S-Bench App. E.5; UCS-Bench App. F.4–F.5).

Each subcommand prints a table and, with ``--out``, writes its full findings as JSON (JSONL for
neighbours), so a curation pass can be scripted.  Findings are reports, not failures: the exit
status is 0 unless the input itself is wrong (then one line, exit 2).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

qc_app = typer.Typer(
    help="Quality control of benchmark items (OVO-S-Bench App. E.5; UCS-Bench App. F.4–F.5).",
    no_args_is_help=True,
)

DataOpt = Annotated[Path, typer.Option("--data", help="Benchmark file (JSONL/JSON/parquet).")]
FormatOpt = Annotated[
    str, typer.Option("--format", help="auto | ovos | vcbench | ucs | s3 | vsibench")
]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Write every finding here.")]


def _console() -> Console:
    return Console(soft_wrap=True)


def _load(data: Path, format: str):
    from streamspatial.bench.registry import load_benchmark

    return load_benchmark(data, format=format)


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}"


def _write_json(path: Path, payload: Any) -> None:
    from streamspatial.eval.results import write_json_atomic

    write_json_atomic(path, payload)


@qc_app.command("blind")
def blind(
    data: DataOpt,
    model: Annotated[str, typer.Option(help="random | frequent | openai:<model> | hf:<path>")],
    format: FormatOpt = "auto",
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL).")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 8,
    max_tokens: Annotated[int, typer.Option(min=1, help="Answer length cap.")] = 1024,
    out: OutOpt = None,
) -> None:
    """Answer from question + options only; list leakage candidates and blind accuracy per task."""
    from streamspatial.models.registry import load_backend, options_for
    from streamspatial.models.types import GenerationParams
    from streamspatial.qc.blind import blind_probe

    adapter, items = _load(data, format)
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens)
    offer: dict[str, Any] = {  # each model kind takes the options it knows (models.registry)
        "base_url": base_url or os.environ.get("OPENAI_BASE_URL"),
        "api_key": os.environ.get(api_key_env),
        "concurrency": concurrency,
        "params": params,
        "items": items,
    }
    backend = load_backend(model, **options_for(model, offer))
    total = sum(len(it.queries) for it in items)

    async def go():
        try:
            with Progress(
                TextColumn("blind probe"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            ) as bar:
                task = bar.add_task("ask", total=total)
                return await blind_probe(
                    adapter,
                    items,
                    backend,
                    concurrency=concurrency,
                    on_answer=lambda _a: bar.advance(task),
                )
        finally:
            await backend.aclose()

    report = asyncio.run(go())
    console = _console()
    table = Table("task", "n", "blind acc. %", "chance %", "Δ pp", "right", "errors")
    for row in report.per_task():
        delta = row["above_chance"]
        table.add_row(
            row["task"],
            str(row["n"]),
            _pct(row["blind_accuracy"]),
            _pct(row["chance"]),
            "—" if delta is None else f"{100 * delta:+.1f}",
            str(row["right"]),
            str(row["errors"]),
        )
    console.print(table)
    leaks = report.leakage_candidates()
    console.print(
        f"{len(leaks)} leakage candidate(s) of {len(items)} items (right blind at every "
        f"query point): {', '.join(leaks) if leaks else 'none'}"
    )
    if out is not None:
        _write_json(out, {"data": str(data), "model": model, **report.to_dict()})


@qc_app.command("options")
def options(
    data: DataOpt,
    format: FormatOpt = "auto",
    length_ratio: Annotated[
        float, typer.Option(min=1.0, help="Flag a correct option this many times longer.")
    ] = 1.5,
    out: OutOpt = None,
) -> None:
    """Length imbalance of the correct option, question/option overlap, duplicates, counts."""
    from streamspatial.qc.options import check_options, longest_is_correct_rate

    _, items = _load(data, format)
    findings = check_options(items, length_ratio=length_ratio)
    console = _console()
    table = Table("item", "check", "option", "correct?", "detail")
    for f in findings:
        table.add_row(
            f.item_id,
            f.check,
            f.letter or "",
            "" if f.correct is None else ("yes" if f.correct else "no"),
            f.detail,
        )
    console.print(table)
    rate, chance = longest_is_correct_rate(items)
    counts = {
        c: sum(f.check == c for f in findings) for c in ("length", "overlap", "duplicate", "count")
    }
    console.print(
        f"{len(findings)} finding(s) over {len(items)} items: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + f"; correct option is the longest in {_pct(rate)}% of query points "
        f"(chance {_pct(chance)}%)"
    )
    if out is not None:
        _write_json(
            out,
            {
                "data": str(data),
                "findings": [f.as_dict() for f in findings],
                "longest_is_correct": rate,
                "longest_chance": chance,
            },
        )


@qc_app.command("count-distractors")
def count_distractors(
    count: Annotated[int, typer.Option(help="The true count.")],
    options: Annotated[int, typer.Option("--options", help="Number of options (4–7).")] = 5,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Options where the true count is second largest or second smallest, never the median."""
    from streamspatial.qc.counting import counting_distractors

    values, letter = counting_distractors(count, options, seed=seed)
    for i, v in enumerate(values):
        mark = "  ← correct" if chr(ord("A") + i) == letter else ""
        typer.echo(f"{chr(ord('A') + i)}. {v}{mark}")


@qc_app.command("neighbours")
def neighbours(
    data: DataOpt,
    format: FormatOpt = "auto",
    k: Annotated[int, typer.Option(min=1, max=6, help="Distractors per item.")] = 4,
    top: Annotated[int, typer.Option(min=1, help="Neighbours retrieved per item.")] = 20,
    band_low: Annotated[float, typer.Option(help="Lowest answer similarity kept.")] = 0.3,
    band_high: Annotated[float, typer.Option(help="Highest answer similarity kept.")] = 0.85,
    mmr_lambda: Annotated[
        float, typer.Option("--lambda", min=0.0, max=1.0, help="MMR relevance weight.")
    ] = 0.7,
    out: OutOpt = None,
) -> None:
    """Distractors retrieved from answers of similar questions in the same category."""
    from streamspatial.qc.neighbours import load_minilm, neighbour_distractors

    _, items = _load(data, format)
    with Console(stderr=True).status("loading all-MiniLM-L6-v2 and embedding…"):
        embed = load_minilm()
        results = neighbour_distractors(
            items, embed, k=k, top=top, band=(band_low, band_high), lam=mmr_lambda
        )
    console = _console()
    table = Table("item", "answer", "distractors (cosine to answer)", "candidates", "in band")
    for r in results:
        shown = "; ".join(f"{c} ({s:.2f})" for c, s in zip(r.chosen, r.similarity, strict=True))
        table.add_row(r.item_id, r.answer, shown or "—", str(r.candidates), str(r.in_band))
    console.print(table)
    short = sum(len(r.chosen) < k for r in results)
    console.print(f"{len(results)} item(s); {short} with fewer than {k} distractors")
    if out is not None:
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for r in results:
                fh.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")
        tmp.replace(out)


def register(app: typer.Typer) -> None:
    app.add_typer(qc_app, name="qc")


__all__ = ["qc_app", "register"]
