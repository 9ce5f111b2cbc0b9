"""What a benchmark's folder registers: its reader and everything that scores it, in one record.

A benchmark moved into its own folder (``bench/<name>/``) names, in its ``__init__.py``, one
:class:`Benchmark`: the adapter (reading, validation, prompts, the decoding and frame
sampling it fixes), its official and paper rules, its results table under each scorer, the
few numbers a leaderboard shows of that table, the writer ``sim export`` uses to write a
generated benchmark in its release's layout, and, for a benchmark the simulator's question
families imitate, the file ``sim generate`` writes their items to.
:mod:`streamspatial.bench.registry` lists each folder's record once; ``scoring`` (the rules
and tables of a run), ``sim export`` and the adapters' registry read them from there, and so
does the simulator (which file each of its benchmarks gets, which ``--size`` presets exist),
so nothing else needs the benchmark's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from streamspatial.core.schema import Item
from streamspatial.grading.aggregate import Scorable, Table
from streamspatial.grading.verdict import Rule

from .base import BenchmarkAdapter, NamedByAdapter

TableOf = Callable[[Iterable[Scorable]], Table]
Headline = dict[str, float | None]


def overall_headline(table: Table) -> Headline:
    """The Overall row of the table's score column: the one number a leaderboard shows of a
    table that ends with it (VSI-Bench's; the generic table of a benchmark-less run)."""
    key_col = table.columns[0]
    metric = next((c for c in ("score", "accuracy", "gpa") if c in table.columns), None)
    out: Headline = {}
    for r in table.rows:
        if r.get(key_col) == "Overall" and metric is not None:
            out["Overall"] = r.get(metric)
    return out


@dataclass(frozen=True)
class Export:
    """How a benchmark's items are written: the file name and the writer (items, path → the
    number written).  ``sim export --format <name>`` writes the release's layout
    (``Benchmark.export``); ``sim generate`` writes a generated benchmark's own file
    (``Benchmark.generated``)."""

    file: str
    write: Callable[[Iterable[Item], Path], int]


@dataclass(frozen=True)
class Benchmark(NamedByAdapter):
    """One benchmark, as its folder registers it.

    ``official`` / ``paper``: the rule each scorer scores a response with (None: the generic
    paper rule of :func:`streamspatial.scoring.scorers.paper_rule`, and no official code).
    ``reads_failures``: the rules read a failed call (None) themselves, as the benchmark's
    code reads its own error marker; otherwise a failure reaches them as "".  ``reads_judge``:
    the rules read a language model judge's stored reply (``run --judge``) as a fourth
    argument, beside the response.  ``table``: the
    results table under both scorers unless ``official_table`` averages differently.
    ``headline``: the leaderboard's numbers of the table (by default its Overall row,
    :func:`overall_headline`).  ``export``: the writer of ``sim
    export --format <name>`` (a generated benchmark's multiple-choice questions in this
    release's layout); ``generated``: the file ``sim generate`` writes the items of this
    format to, which the simulator's own question families ask (``Family.format``), and its
    writer; None: the simulator asks nothing in this format.  ``lmms_eval_tasks`` /
    ``vlmevalkit_datasets``: the harnesses' own names of the benchmark (lmms-eval's task, whose
    sample's ``doc.id`` is the release's id; VLMEvalKit's dataset, whose row ``index`` is), so
    ``score --from lmms-eval|vlmevalkit`` reads their output for it.
    ``frame_size``: the benchmark's own frame size, a ``sim generate --size`` preset under its
    format name (S3-Bench's simulated videos, 768×768).
    """

    adapter: BenchmarkAdapter
    official: Rule | None = None
    paper: Rule | None = None
    reads_failures: bool = False
    reads_judge: bool = False
    table: TableOf | None = None
    official_table: TableOf | None = None
    headline: Callable[[Table], Headline] = overall_headline
    export: Export | None = None
    generated: Export | None = None
    frame_size: tuple[int, int] | None = None
    lmms_eval_tasks: tuple[str, ...] = ()
    vlmevalkit_datasets: tuple[str, ...] = ()


__all__ = ["Benchmark", "Export", "Headline", "TableOf", "overall_headline"]
