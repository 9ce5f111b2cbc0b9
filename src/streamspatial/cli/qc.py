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

from streamspatial.cli.options import BaseUrl, Data

qc_app = typer.Typer(
    help="Quality control of benchmark items (OVO-S-Bench App. E.5; UCS-Bench App. F.4–F.5).",
    no_args_is_help=True,
)

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


def benchmark_files(path: Path) -> list[Path]:
    """The benchmark files of ``path``: the file itself, or every file of a benchmark folder
    (a generated benchmark's ``manifest.json`` names them; otherwise each file whose format
    is recognised)."""
    from streamspatial.bench.registry import detect_format
    from streamspatial.core.errors import InputError, StreamspatialError

    if not path.is_dir():
        return [path]
    manifest = path / "manifest.json"
    if manifest.is_file():
        try:
            files = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
        except (OSError, ValueError) as exc:
            raise InputError(f"{manifest}: not a readable JSON manifest ({exc})") from None
        found = [path / name for kind, name in sorted(files.items()) if kind not in SKIP_FILES]
    else:
        found = []
        for f in sorted(path.iterdir()):
            if f.suffix not in (".jsonl", ".json", ".parquet") or f.name in NOT_BENCHMARKS:
                continue
            try:
                detect_format(f)
            except StreamspatialError:
                continue
            found.append(f)
    if not found:
        raise InputError(f"{path}: no benchmark file in this folder")
    return found


SKIP_FILES = ("items", "manifest", "blind")
NOT_BENCHMARKS = ("items.jsonl", "manifest.json")


def _load_all(path: Path, format: str) -> list:
    items = []
    for f in benchmark_files(path):
        items += _load(f, format)[1]
    return items


@qc_app.command("blind")
def blind(
    path: Annotated[
        Path | None,
        typer.Argument(help="Benchmark file, or a folder of them (a generated benchmark)."),
    ] = None,
    data: Annotated[Path | None, typer.Option("--data", help="Same as PATH.")] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="Ask this model text-only instead (random | frequent | openai:<model> "
            "| hf:<path>); without it, the cross-validated stress test runs."
        ),
    ] = None,
    format: FormatOpt = "auto",
    folds: Annotated[int, typer.Option(min=2, help="Cross-validation folds (by house).")] = 5,
    margin: Annotated[float, typer.Option(help="Points over chance a task may show.")] = 5.0,
    z: Annotated[float, typer.Option(min=0.0, help="Noise allowance in standard errors.")] = 4.0,
    median_cap: Annotated[
        float, typer.Option(help="Highest MRA the training median may score (numbers).")
    ] = 0.40,
    min_items: Annotated[int, typer.Option(min=1, help="Judge tasks with this many items.")] = 20,
    rule: Annotated[
        str, typer.Option(help="fair (noise allowance) | strict (point estimates) exit rule")
    ] = "fair",
    group: Annotated[
        str | None,
        typer.Option(
            help="Regex on the video name whose first group is the fold unit "
            "(default: a simulator house, else the video)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the folds and the forests.")] = 0,
    models: Annotated[
        str | None,
        typer.Option(
            help="Choose blind only among these models (comma-separated, e.g. time: does "
            "the clock give the answers away?); default: all of them."
        ),
    ] = None,
    base_url: BaseUrl = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 8,
    max_tokens: Annotated[int, typer.Option(min=1, help="Answer length cap.")] = 1024,
    out: OutOpt = None,
) -> None:
    """Blind stress test: can text-only models answer the items? Exit 1 when a task can."""
    from streamspatial.core.errors import InputError

    target = path or data
    if target is None:
        raise InputError("qc blind: give a benchmark file or folder (PATH or --data)")
    if model is not None:
        _model_probe(target, model, format, base_url, api_key_env, concurrency, max_tokens, out)
        return
    if rule not in ("fair", "strict"):
        raise InputError(f"--rule: expected fair or strict, got {rule!r}")
    from streamspatial.qc.tst import ProbeConfig, stress_test
    from streamspatial.qc.tst_models import model_names

    chosen = tuple(m.strip() for m in (models or "").split(",") if m.strip())
    unknown = sorted(set(chosen) - model_names())
    if unknown:
        raise InputError(
            f"--models: unknown model {', '.join(unknown)}; expected some of "
            + ", ".join(sorted(model_names()))
        )
    items = _load_all(target, format)
    cfg = ProbeConfig(
        folds=folds, margin=margin / 100, z=z, median_cap=median_cap, min_items=min_items,
        seed=seed, models=chosen, **({"group_pattern": group} if group is not None else {}),
    )  # fmt: skip
    n_tasks = len({f"{it.benchmark}/{it.task.task}" for it in items})
    with Progress(
        TextColumn("stress test"), BarColumn(), MofNCompleteColumn(), TextColumn("tasks"),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("tasks", total=n_tasks)
        report = stress_test(items, cfg, on_task=lambda _r: bar.advance(task))
    console = _console()
    if not console.is_terminal:  # piped or captured: the table is read later, keep it whole
        console = Console(soft_wrap=True, width=160)
    console.print(blind_table(report))
    bad = [t for t in report.tasks if (t.flagged if rule == "fair" else t.strict)]
    judged = sum(t.judged for t in report.tasks)
    console.print(
        f"{len(bad)} of {judged} judged task(s) answerable blind ({rule} rule: "
        + ("blind − chance > max(margin, z·SE)" if rule == "fair" else "blind − chance > margin")
        + f"); {len(report.tasks) - judged} task(s) with fewer than {min_items} items not judged"
    )
    if out is not None:
        _write_json(out, {"data": str(target), "rule": rule, **report.to_dict()})
    if bad:
        raise typer.Exit(1)


def blind_table(report) -> Table:
    """One row per task; ``time`` is the time-only model's score on its own (every fold)."""
    table = Table(
        "task", "items", "points", "chance", "blind", "gap pp", "allow pp", "best model",
        "best-of", "time", "verdict",
    )  # fmt: skip
    for t in report.tasks:
        num = t.kind == "number"
        verdict = ("BIASED" if t.flagged else ("strict" if t.strict else "ok")) if t.judged else "—"
        table.add_row(
            t.task + (" (MRA)" if num else ""),
            str(t.items),
            str(t.points),
            _f2(t.chance),
            _f2(t.blind),
            "—" if t.gap is None else f"{100 * t.gap:+.1f}",
            "—" if t.allowance is None else f"{100 * t.allowance:.1f}",
            t.best_model or "—",
            _f2(t.best_of),
            _f2(t.models.get("time")),
            verdict,
        )
    return table


def _f2(v: float | None) -> str:
    return "—" if v is None or v != v else f"{v:.2f}"


def _model_probe(data, model, format, base_url, api_key_env, concurrency, max_tokens, out) -> None:
    """Answer from question + options only; list leakage candidates and blind accuracy."""
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
    data: Data,
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
    data: Data,
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
