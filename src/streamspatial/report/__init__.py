"""Reports: a run folder's tables as ``scores.json`` + ``report.md``, and leaderboards across runs.

The room's modules: :mod:`.run_report` (one run's tables under its scorer, the files it writes,
the leaderboard), :mod:`.tables` (a table as Markdown, the headline), :mod:`.blind` (blind
scores beside each task's), :mod:`.runs` and :mod:`.queries` (several runs and their query
points, read together), :mod:`.html` and :mod:`.plots` (the HTML report and its figures).
"""

from __future__ import annotations

from streamspatial.report.run_report import (
    REPORT_MD,
    SCORES_JSON,
    RunReport,
    compare_rows,
    leaderboard,
    leaderboard_markdown,
    load_run,
    run_scorer,
    write_report,
)

__all__ = [
    "REPORT_MD",
    "SCORES_JSON",
    "RunReport",
    "compare_rows",
    "leaderboard",
    "leaderboard_markdown",
    "load_run",
    "run_scorer",
    "write_report",
]
