"""Which results table a run gets, and the few numbers a leaderboard shows of each.

Two registries, keyed the way the data names them: :data:`TABLES` by the table a benchmark's
:class:`~streamspatial.bench.base.ScoringSpec` names (``ovos``, ``s3``, …; the official
scorer's own averaging where it differs), and :data:`HEADLINES` by the table's own name
(``OVO-S-Bench``, ``S3-Bench``, …), since ``scores.json`` stores a table, not its benchmark.
Each benchmark's folder (:data:`~streamspatial.bench.registry.HOMES`) brings its tables and
headline with it; a table of no benchmark is the generic one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from streamspatial.bench.home import Headline, overall_headline
from streamspatial.bench.registry import HOMES
from streamspatial.core.errors import InputError
from streamspatial.grading.aggregate import Scorable, Table, generic_table

TABLES: dict[str, Callable[..., Table]] = {
    "generic": generic_table,
    **{b.adapter.scoring.table: b.table for b in HOMES.values() if b.table is not None},
}
# The official scorer's own averaging, where it differs from the paper table's.
_OFFICIAL_TABLES: dict[str, Callable[..., Table]] = {
    b.adapter.scoring.table: b.official_table
    for b in HOMES.values()
    if b.official_table is not None
}


def paper_table(table: str, records: Iterable[Scorable]) -> Table:
    """The table a benchmark's :class:`~streamspatial.bench.base.ScoringSpec` names."""
    return results_table(table, records, "paper")


def results_table(table: str, records: Iterable[Scorable], scorer: str = "paper") -> Table:
    """The table of a run under ``scorer``; records must already carry that scorer's verdicts
    (:func:`streamspatial.scoring.scorers.rescored`)."""
    if table not in TABLES:
        raise InputError(
            f"unknown results table {table!r}; expected one of {', '.join(sorted(TABLES))}"
        )
    if scorer == "official" and table in _OFFICIAL_TABLES:
        return _OFFICIAL_TABLES[table](records)
    return TABLES[table](records)


# -- headline numbers --------------------------------------------------------------------------

HEADLINES: dict[str, Callable[[Table], Headline]] = {b.title: b.headline for b in HOMES.values()}


def headline(table: Table) -> Headline:
    """The few numbers a leaderboard shows for a table, in the paper's order (the
    ``headline`` of ``scores.json``)."""
    return HEADLINES.get(table.name, overall_headline)(table)


__all__ = ["HEADLINES", "TABLES", "headline", "paper_table", "results_table"]
