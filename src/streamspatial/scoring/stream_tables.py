"""Results tables of OVO-Bench, StreamingBench, OST-Bench and VSI-SUPER, under both scorers.

Every aggregate is named as the benchmark's official code prints it, and the per-query
verdicts (:mod:`.stream_rules`) decide what enters it:

* OVO-Bench (``OVOBenchScore.py``): a task's accuracy over its probes; "Backward Avg.",
  "Realtime Avg.", "Forward Avg." the mean of their tasks; "Total Avg." the mean of the three.
* StreamingBench (``count.py``, run on each file): accuracy per ``task_type`` and, for the
  real-time and omni files, "total" over every counted question of the file (an SQA reply
  that is empty is left out); the proactive file's ``time_accuracy`` and
  ``answer_accuracy``.  The paper's table adds each category's "All" and "Overall".
* OST-Bench (``OST_evaluator.py`` ``collect_results``): the mean per question type, the
  multi-part types merged (three Judgements, two Temporal-locs), eight composites
  (``A_state(Judge)`` … ``AO(Temp)``), four format means and "Overall", the mean of the eight.
* VSI-SUPER: one "Overall" per task, i.e. per duration (Recall) or split (Count).

A composite whose inputs the run lacks is None (the official code would raise a KeyError or a
NameError); the table's notes say which.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamspatial.bench.ostbench import OSTBenchAdapter
from streamspatial.bench.ovobench import MODES, OVOBenchAdapter
from streamspatial.bench.streamingbench import PROACTIVE, StreamingBenchAdapter
from streamspatial.bench.vsisuper import VSISuperAdapter
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _group, _records
from streamspatial.grading.metrics import mean
from streamspatial.scoring.stream_rules import UNSCORED


def _cell(records: list[ScoredQuery]) -> dict[str, Any]:
    """n, invalid and the mean score of the records that count (score None: left out)."""
    counted = [r for r in records if r.score is not None]
    return {
        "n": len(counted),
        "invalid": sum(1 for r in records if not r.valid),
        "score": mean(float(r.score) for r in counted) if counted else None,
    }


def _scorer(records: list[ScoredQuery]) -> str:
    return "paper" if all(r.rule in (None, "paper") for r in records) else "official"


# --- OVO-Bench -----------------------------------------------------------------------------


def ovobench_table(records: Iterable[Scorable]) -> Table:
    recs = _records(records)
    by_task = _group(recs, lambda r: r.task)
    rows: list[dict[str, Any]] = []
    averages: list[float] = []
    missing = []
    for mode, tasks in MODES.items():
        scores = []
        for task in tasks:
            if task not in by_task:
                continue
            cell = _cell(by_task[task])
            scores.append(cell["score"])
            rows.append(
                {
                    "mode": mode,
                    "task": task,
                    "n": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
        avg = mean(scores)
        if avg is None:
            missing.append(mode)
        else:
            averages.append(avg)
        in_mode = [r for t in tasks for r in by_task.get(t, [])]
        rows.append(
            {
                "mode": mode,
                "task": f"{mode} Avg.",
                "n": len(in_mode),
                "invalid": sum(1 for r in in_mode if not r.valid),
                "accuracy": avg,
            }
        )
    rows.append(
        {
            "mode": "",
            "task": "Total Avg.",
            "n": len(recs),
            "invalid": sum(1 for r in recs if not r.valid),
            "accuracy": mean(averages),
        }
    )
    notes = [
        f"{_scorer(recs)} reading; task = accuracy over its probes; each Avg. = mean of its "
        "tasks; Total Avg. = mean of the three Avg.",
    ]
    if missing:
        notes.append(
            f"no {', '.join(missing)} tasks in this run: Total Avg. over the others "
            "(the official score() would raise)"
        )
    return Table(
        OVOBenchAdapter.title,
        ("mode", "task", "n", "invalid", "accuracy"),
        tuple(rows),
        tuple(notes),
    )


# --- StreamingBench ------------------------------------------------------------------------


def _on_time(r: ScoredQuery) -> bool:
    """count.py's ``-2 <= last_time - ground_truth_time <= 2`` (the record's reading of the
    last poll's time is its prediction; its answer the ground-truth time)."""
    if not isinstance(r.prediction, int | float) or not isinstance(r.answer, int | float):
        return False
    return -2 <= float(r.prediction) - float(r.answer) <= 2


def _proactive_row(kind: str, task: str, recs: list[ScoredQuery]) -> dict[str, Any]:
    timed = sum(1 for r in recs if _on_time(r))
    return {
        "file": kind,
        "task_type": task,
        "total": len(recs),
        "invalid": sum(1 for r in recs if not r.valid),
        "accuracy": mean(float(r.score or 0.0) for r in recs),
        "time_accuracy": timed / len(recs) if recs else None,
    }


def _mc_row(kind: str, task: str, recs: list[ScoredQuery]) -> dict[str, Any]:
    cell = _cell(recs)
    return {
        "file": kind,
        "task_type": task,
        "total": cell["n"],
        "invalid": cell["invalid"],
        "accuracy": cell["score"],
        "time_accuracy": None,
    }


def streamingbench_official_table(records: Iterable[Scorable]) -> Table:
    """``count.py`` run on each file: per task_type, plus real/omni's "total"."""
    recs = _records(records)
    rows = []
    for kind, in_kind in _group(recs, lambda r: r.level or "real").items():
        for task, in_task in _group(in_kind, lambda r: r.task).items():
            row = _proactive_row if kind == PROACTIVE else _mc_row
            rows.append(row(kind, task, in_task))
        if kind not in ("sqa", PROACTIVE):
            rows.append(_mc_row(kind, "total", in_kind))
    return Table(
        StreamingBenchAdapter.title,
        ("file", "task_type", "total", "invalid", "accuracy", "time_accuracy"),
        tuple(rows),
        (
            "official reading (THUNLP-MT/StreamingBench src/data/count.py): first character of "
            "the reply; total = counted questions; an empty SQA reply is left out; proactive "
            "accuracy = answer_accuracy (on time and the expected output in the reply)",
        ),
    )


def streamingbench_table(records: Iterable[Scorable]) -> Table:
    """StreamingBench's results table: each task, each category's All, and Overall, pooled."""
    recs = _records(records)
    rows = []
    for category, in_cat in _group(recs, lambda r: r.category or "").items():
        for task, in_task in _group(in_cat, lambda r: r.task).items():
            cell = _cell(in_task)
            rows.append(
                {
                    "category": category,
                    "task_type": task,
                    "total": cell["n"],
                    "invalid": cell["invalid"],
                    "accuracy": cell["score"],
                }
            )
        cell = _cell(in_cat)
        rows.append(
            {
                "category": category,
                "task_type": "All",
                "total": cell["n"],
                "invalid": cell["invalid"],
                "accuracy": cell["score"],
            }
        )
    cell = _cell(recs)
    rows.append(
        {
            "category": "Overall",
            "task_type": "",
            "total": cell["n"],
            "invalid": cell["invalid"],
            "accuracy": cell["score"],
        }
    )
    return Table(
        StreamingBenchAdapter.title,
        ("category", "task_type", "total", "invalid", "accuracy"),
        tuple(rows),
        ("accuracy pooled over questions in every row; empty replies count wrong",),
    )


# --- OST-Bench -----------------------------------------------------------------------------

_MERGED = {
    "Agent_object_spatial-direction(Judgement)": [
        f"Agent_object_spatial-direction(Judgement{i})" for i in (1, 2, 3)
    ],
    "Agent_object_spatial-distance(Judgement)": [
        f"Agent_object_spatial-distance(Judgement{i})" for i in (1, 2, 3)
    ],
    "Agent_visible_info-existence(Temporal-loc)": [
        f"Agent_visible_info-existence(Temporal-loc{i})" for i in (1, 2)
    ],
}
_COMPOSITES: dict[str, list[str]] = {
    "A_state(Judge)": ["Agent_state-orientation(Judgement)", "Agent_state-position(Judgement)"],
    "A_state(Esti)": ["Agent_state-orientation(Estimation)", "Agent_state-position(Estimation)"],
    "A_info(Judge)": [
        "Agent_visible_info-existence(Judgement)",
        "Agent_visible_info-order(Judgement)",
        "Agent_visible_info-diversity(Judgement)",
    ],
    "A_info(Temp)": ["Agent_visible_info-existence(Temporal-loc)"],
    "A_info(Count)": ["Agent_visible_info-quantity(Counting)"],
    "AO(Judge)": [
        "Agent_object_spatial-direction(Judgement)",
        "Agent_object_spatial-distance(Judgement)",
    ],
    "AO(Esti)": [
        "Agent_object_spatial-direction(Estimation)",
        "Agent_object_spatial-distance(Estimation)",
    ],
    "AO(Temp)": [
        "Agent_object_spatial-direction(Temporal-loc)",
        "Agent_object_spatial-distance(Temporal-loc)",
    ],
}
_FORMATS: dict[str, list[str]] = {
    "Judgement": [
        *_COMPOSITES["AO(Judge)"],
        *_COMPOSITES["A_info(Judge)"],
        *_COMPOSITES["A_state(Judge)"],
    ],
    "Estimation": [*_COMPOSITES["AO(Esti)"], *_COMPOSITES["A_state(Esti)"]],
    "Temporal-loc": ["Agent_visible_info-existence(Temporal-loc)", *_COMPOSITES["AO(Temp)"]],
    "Counting": ["Agent_visible_info-quantity(Counting)"],
}
OST_HEADLINE = ("Overall", "Judgement", "Estimation", "Temporal-loc", "Counting", *_COMPOSITES)


def _strict_mean(values: list[float | None]) -> float | None:
    """The mean, or None when any input is missing (where the evaluator raises)."""
    return None if not values or any(v is None for v in values) else sum(values) / len(values)  # type: ignore[arg-type]


def ostbench_table(records: Iterable[Scorable]) -> Table:
    """``collect_results`` over the per-type means (the paper's layout too)."""
    recs = [r for r in _records(records) if r.rule != UNSCORED]
    per_type = {t: _cell(g) for t, g in sorted(_group(recs, lambda r: r.task).items())}
    static = {t: c["score"] for t, c in per_type.items() if c["score"] is not None}
    full: dict[str, float | None] = {
        k: _strict_mean([static.get(p) for p in parts]) for k, parts in _MERGED.items()
    }
    merged_parts = {p for parts in _MERGED.values() for p in parts}
    full.update({t: v for t, v in static.items() if t not in merged_parts})
    rows = [
        {"group": "type", "name": t, "n": c["n"], "invalid": c["invalid"], "score": c["score"]}
        for t, c in per_type.items()
    ]
    rows += [
        {"group": "type", "name": k, "n": None, "invalid": None, "score": full[k]} for k in _MERGED
    ]
    overall = {k: _strict_mean([full.get(p) for p in parts]) for k, parts in _COMPOSITES.items()}
    overall.update({k: _strict_mean([full.get(p) for p in parts]) for k, parts in _FORMATS.items()})
    overall["Overall"] = _strict_mean([overall[k] for k in _COMPOSITES])
    n_all = len(recs)
    rows += [
        {
            "group": "overall",
            "name": k,
            "n": n_all if k == "Overall" else None,
            "invalid": sum(1 for r in recs if not r.valid) if k == "Overall" else None,
            "score": overall[k],
        }
        for k in OST_HEADLINE
    ]
    notes = [
        f"{_scorer(recs)} reading; per-type mean over the turns scored "
        "(an empty reply is left out officially, wrong in the paper reading); "
        "Overall = mean of the eight composites"
    ]
    absent = sorted(
        {p for parts in _COMPOSITES.values() for p in parts} - set(full)
        | {k for k, v in full.items() if v is None}
    )
    if absent:
        notes.append(
            "missing question types (the official evaluator would raise): " + ", ".join(absent)
        )
    return Table(
        OSTBenchAdapter.title, ("group", "name", "n", "invalid", "score"), tuple(rows), tuple(notes)
    )


# --- VSI-SUPER -----------------------------------------------------------------------------


def vsisuper_table(records: Iterable[Scorable]) -> Table:
    """One Overall per duration / split: mean accuracy (Recall) or MRA (Count) over its
    query points, every one counted (an unreadable answer scores 0)."""
    recs = _records(records)
    rows = []
    for (bench, split), group in sorted(_group(recs, lambda r: (r.category, r.task)).items()):
        rows.append(
            {
                "benchmark": bench,
                "split": split,
                "n": len(group),
                "invalid": sum(1 for r in group if not r.valid),
                "score": mean(float(r.score or 0.0) for r in group),
            }
        )
    return Table(
        VSISuperAdapter.title,
        ("benchmark", "split", "n", "invalid", "score"),
        tuple(rows),
        (f"{_scorer(recs)} reading; Overall of each task",),
    )


# --- headlines -----------------------------------------------------------------------------


def ovobench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["task"]): r["accuracy"] for r in table.rows}


def streamingbench_headline(table: Table) -> dict[str, float | None]:
    """The official counter's names, one file's ``total`` as ``"<file> total"`` (``real
    total``, ``omni total``) and a task that two files share prefixed with its file, so no
    key stands for two numbers; the paper table's categories and Overall."""
    out: dict[str, float | None] = {}
    files_of: dict[str, set[str]] = {}
    for r in table.rows:
        if "file" in r:
            files_of.setdefault(str(r["task_type"]), set()).add(str(r["file"]))
    for r in table.rows:
        if "file" in r:
            task = str(r["task_type"])
            if task == "total":
                key = f"{r['file']} total"
            else:
                key = task if len(files_of[task]) == 1 else f"{r['file']}: {task}"
            out[key] = r["accuracy"]
            if r.get("time_accuracy") is not None:
                out[f"{key} time_accuracy"] = r["time_accuracy"]
        elif r["task_type"] in ("All", ""):
            out[str(r["category"]) if r["task_type"] == "All" else "Overall"] = r["accuracy"]
    return out


def ostbench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["name"]): r["score"] for r in table.rows if r["group"] == "overall"}


def vsisuper_headline(table: Table) -> dict[str, float | None]:
    return {str(r["split"]): r["score"] for r in table.rows}


__all__ = [
    "OST_HEADLINE",
    "ostbench_headline",
    "ostbench_table",
    "ovobench_headline",
    "ovobench_table",
    "streamingbench_headline",
    "streamingbench_official_table",
    "streamingbench_table",
    "vsisuper_headline",
    "vsisuper_table",
]
