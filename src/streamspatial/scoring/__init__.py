"""Scoring: how a model's text becomes an answer, a score, and the papers' tables.

One room, used by everything that judges answers — the runner (``eval``), the quality-control
probes (``qc``), the human study (``web``) and the reports (``report``) — so a number means the
same wherever it is printed:

* :mod:`.scorers`: one verdict per scorer (``official``, ``paper``) for one response, by the
  rule the benchmark's folder registers (``bench.registry.HOMES``), else the generic paper
  rule;
* :mod:`.tables`: a run's results table and headline, picked the same way (each benchmark's
  ``bench/<name>/score.py``);
* the machinery every benchmark shares — reading a letter, a number or an action out of a
  response, the metrics, the aggregation and the table type — is :mod:`streamspatial.grading`,
  below ``bench``; its public names are re-exported here.

The public names here are the stable surface; submodules hold the details.
"""

from streamspatial.bench.ovos.score import ovos_table
from streamspatial.bench.s3.score import s3_table
from streamspatial.bench.ucs.score import ucs_table
from streamspatial.bench.vcbench.score import Trajectory, vcbench_table, vcbench_trajectories
from streamspatial.bench.vsibench.score import vsibench_table
from streamspatial.grading.aggregate import (
    ScoredQuery,
    Table,
    diagnostics_table,
    generic_table,
    per_source_table,
)
from streamspatial.grading.extract import (
    ChoiceExtraction,
    extract_action,
    extract_choice,
    extract_choice_detailed,
    extract_number,
    strip_thinking,
)
from streamspatial.grading.metrics import (
    MRA_THRESHOLDS,
    accuracy,
    gaussian_precision_accuracy,
    mean_relative_accuracy,
    monotonicity_consistency,
    score_prediction,
    update_direction_accuracy,
)
from streamspatial.scoring.scorers import SCORERS, Scored, default_scorer, score_all, score_response
from streamspatial.scoring.tables import headline, paper_table, results_table

__all__ = [
    "MRA_THRESHOLDS",
    "SCORERS",
    "ChoiceExtraction",
    "Scored",
    "ScoredQuery",
    "Table",
    "Trajectory",
    "accuracy",
    "default_scorer",
    "diagnostics_table",
    "extract_action",
    "extract_choice",
    "extract_choice_detailed",
    "extract_number",
    "gaussian_precision_accuracy",
    "generic_table",
    "headline",
    "mean_relative_accuracy",
    "monotonicity_consistency",
    "ovos_table",
    "paper_table",
    "per_source_table",
    "results_table",
    "s3_table",
    "score_all",
    "score_prediction",
    "score_response",
    "strip_thinking",
    "ucs_table",
    "update_direction_accuracy",
    "vcbench_table",
    "vcbench_trajectories",
    "vsibench_table",
]
