"""``streamspatial sim export``: a generated benchmark written in another benchmark's format.

A benchmark made by ``sim generate`` keeps every item in the unified schema
(``items.jsonl``); its multiple-choice questions, asked at one time each, can also be run by
the official evaluation code of OVO-Bench, StreamingBench and RTV-Bench, so this command
writes them in their released layouts.  The files read back through streamspatial's own
readers too, with ``--videos`` the benchmark's ``videos`` folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated

import typer

from streamspatial.bench.registry import HOMES
from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import AnswerType, Item

# Format → (default file name, writer).
EXPORTS: dict[str, tuple[str, Callable[[Iterable[Item], Path], int]]] = {
    **{name: (b.export.file, b.export.write) for name, b in HOMES.items() if b.export},
}


def exportable(items: Iterable[Item]) -> list[Item]:
    """The text multiple-choice items asked at one time each (what both layouts hold)."""
    return [
        it
        for it in items
        if it.answer_type is AnswerType.CHOICE
        and len(it.queries) == 1
        and all(o.text is not None for o in it.options)
    ]


def read_generated(folder: Path) -> list[Item]:
    """The unified items of a generated benchmark folder (its ``items.jsonl``)."""
    path = folder / "items.jsonl"
    if not path.is_file():
        raise InputError(
            Problem(
                str(path), "", "not found; expected a folder made by `streamspatial sim generate`"
            )
        )
    with path.open(encoding="utf-8") as f:
        return [Item.model_validate_json(line) for line in f if line.strip()]


def export(
    folder: Annotated[Path, typer.Argument(help="A benchmark folder made by `sim generate`.")],
    format: Annotated[str, typer.Option("--format", help="ovobench | streamingbench | rtvbench")],
    out: Annotated[
        Path | None, typer.Option(help="File to write (default: FOLDER/<the release's name>).")
    ] = None,
) -> None:
    """Write a generated benchmark's multiple-choice questions in OVO-Bench's,
    StreamingBench's or RTV-Bench's released format (validate and run it with --videos
    FOLDER/videos)."""
    if format not in EXPORTS:
        raise InputError(f"--format {format!r}: expected one of {', '.join(EXPORTS)}")
    name, write = EXPORTS[format]
    chosen = exportable(read_generated(folder))
    if not chosen:
        raise InputError(f"{folder}: no single-time multiple-choice items to export")
    target = out or folder / name
    n = write(chosen, target)
    typer.echo(f"{n} questions → {target}  (--videos {folder / 'videos'})")


__all__ = ["EXPORTS", "export", "exportable", "read_generated"]
