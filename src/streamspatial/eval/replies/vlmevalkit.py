"""VLMEvalKit's prediction files: ``<model>_<dataset>.xlsx`` (or ``.tsv``).

``run.py`` writes one row per question of the dataset's TSV, with every column of that TSV
plus ``prediction``; the first sheet (or the tab-separated file) is read here.  Datasets read:

* ``VSI-Bench``, ``VSI-Bench-Debiased`` (``VsiBench``) → VSI-Bench: ``index`` is the question's
  ``id``; its ``question`` and ``answer`` are checked against the release;
* ``OST`` (``OSTDataset``, OST-Bench's interleaved variant, one row per turn) → OST-Bench:
  ``index`` is the turn's place in ``OST_bench.json`` (0-based), its ``answer`` checked.

An empty ``prediction`` cell is an empty reply.  Reading ``.xlsx`` needs ``openpyxl`` (the
``xlsx`` extra); ``.tsv`` needs nothing.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamspatial.bench.registry import HOMES
from streamspatial.core.errors import Problem

from .types import Release, Reply, ReplySource

# VLMEvalKit dataset name -> the benchmark format whose release it answers, and how a row's
# ``index`` names the release's question: the datasets each benchmark's folder declares
# (``Benchmark.vlmevalkit_datasets``) by the release's record id, OST's by position.
DATASETS: dict[str, tuple[str, str]] = {
    **{d: (b.name, "record") for b in HOMES.values() for d in b.vlmevalkit_datasets},
    "OST": ("ostbench", "position"),
}
_NAME = re.compile(
    r"^(?P<model>.+)_(?P<dataset>"
    + "|".join(re.escape(d) for d in sorted(DATASETS, key=len, reverse=True))
    + r")$"
)
REQUIRED = ("index", "prediction")


def dataset_of(path: Path) -> tuple[str, str] | None:
    """``(model, dataset)`` of a ``<model>_<dataset>`` file name."""
    m = _NAME.match(path.stem)
    return (m.group("model"), m.group("dataset")) if m else None


class VLMEvalKitPredictions(ReplySource):
    name = "vlmevalkit"
    title = "VLMEvalKit <model>_<dataset>.xlsx / .tsv"

    def sniff(self, path: Path) -> bool:
        if path.suffix.lower() == ".xlsx":
            return dataset_of(path) is not None
        if path.suffix.lower() != ".tsv":
            return False
        with path.open(encoding="utf-8", errors="replace", newline="") as fh:
            header = next(csv.reader(fh, delimiter="\t"), [])
        return set(REQUIRED) <= set(header)

    def read(self, path: Path, release: Release, problems: list[Problem]) -> Iterator[Reply]:
        file = str(path)
        named = dataset_of(path)
        if named is None:
            problems.append(
                Problem(
                    file,
                    "",
                    "expected a file named <model>_<dataset> with "
                    f"dataset one of {', '.join(DATASETS)}",
                )
            )
            return
        benchmark, naming = DATASETS[named[1]]
        if benchmark != release.adapter.name:
            problems.append(
                Problem(
                    file,
                    "",
                    f"dataset {named[1]} answers {benchmark}, but "
                    f"the --data file is {release.adapter.title}",
                )
            )
            return
        rows = _rows(path, problems)
        if rows is None:
            return
        header, body = rows
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            problems.append(
                Problem(file, missing[0], "missing column (VLMEvalKit writes index and prediction)")
            )
            return
        for n, values in body:
            row = dict(zip(header, values, strict=False))
            location = f"row {n}"
            index = _index(row.get("index"))
            if index is None:
                problems.append(
                    Problem(
                        file,
                        "index",
                        f"expected a whole number, got {row.get('index')!r}",
                        location=location,
                    )
                )
                continue
            prediction = row.get("prediction")
            text = "" if prediction is None else str(prediction)
            name: dict[str, Any] = (
                {"record": str(index)} if naming == "record" else {"position": index}
            )
            yield Reply(
                file,
                location,
                text,
                truth=_answer(row.get("answer")),
                question=_question(row, naming),
                id_field="index",
                **name,
            )

    def model_name(self, path: Path) -> str | None:
        named = dataset_of(path)
        return named[0] if named else None


def _rows(path: Path, problems: list[Problem]) -> tuple[list[str], list[tuple[int, list]]] | None:
    """The header and the numbered rows (spreadsheet row numbers, the header being row 1)."""
    if path.suffix.lower() == ".tsv":
        with path.open(encoding="utf-8", newline="") as fh:
            table = list(csv.reader(fh, delimiter="\t"))
        if not table:
            problems.append(Problem(str(path), "", "empty file; expected a header row"))
            return None
        return table[0], [(n, r) for n, r in enumerate(table[1:], start=2) if any(r)]
    from openpyxl import load_workbook  # the xlsx extra

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a file that is not a workbook
        problems.append(Problem(str(path), "", f"not a readable .xlsx workbook ({exc})"))
        return None
    try:
        sheet = book.worksheets[0]
        table = [list(r) for r in sheet.iter_rows(values_only=True)]
    finally:
        book.close()
    if not table:
        problems.append(Problem(str(path), "", "empty sheet; expected a header row"))
        return None
    header = [str(c) if c is not None else "" for c in table[0]]
    body = [(n, r) for n, r in enumerate(table[1:], start=2) if any(c is not None for c in r)]
    return header, body


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _answer(value: Any) -> str | float | None:
    """The row's stored ground truth: a number, or a letter / option text without quotes."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip().strip('"').strip()
    return text or None


def _question(row: dict[str, Any], naming: str) -> str | None:
    """VSI-Bench rows carry the question as released; OST's interleaved question holds its
    images and history, so it is not compared."""
    value = row.get("question")
    return str(value) if naming == "record" and value is not None else None


__all__ = ["DATASETS", "VLMEvalKitPredictions", "dataset_of"]
