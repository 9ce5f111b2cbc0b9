"""Evaluation: answer extraction, metrics and per-paper tables (the runner lives beside them).

The public names here are the stable surface; submodules hold the details.
"""

from streamspatial.eval.aggregate import (
    ScoredQuery,
    Table,
    Trajectory,
    generic_table,
    ovos_table,
    paper_table,
    per_source_table,
    s3_table,
    ucs_table,
    vcbench_table,
    vcbench_trajectories,
    vsibench_table,
)
from streamspatial.eval.extract import (
    ChoiceExtraction,
    extract_action,
    extract_choice,
    extract_choice_detailed,
    extract_number,
    strip_thinking,
)
from streamspatial.eval.metrics import (
    MRA_THRESHOLDS,
    accuracy,
    compression_ratio,
    evidence_recall,
    gaussian_precision_accuracy,
    mean_relative_accuracy,
    monotonicity_consistency,
    score_prediction,
    update_direction_accuracy,
)
from streamspatial.eval.official_tables import results_table
from streamspatial.eval.scoring import SCORERS, Scored, default_scorer, score_all, score_response

__all__ = [
    "MRA_THRESHOLDS",
    "SCORERS",
    "ChoiceExtraction",
    "Scored",
    "ScoredQuery",
    "Table",
    "Trajectory",
    "accuracy",
    "compression_ratio",
    "default_scorer",
    "evidence_recall",
    "extract_action",
    "extract_choice",
    "extract_choice_detailed",
    "extract_number",
    "gaussian_precision_accuracy",
    "generic_table",
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
