"""Several run folders read together: who each run is, and the tables across runs.

Why a module of its own: the HTML report and ``sweep`` both need to know, for a set of runs,
which are reference rows (Random, Text-only, Human), which cell of the policy × model grid a
run fills, and which pairs differ only in the thinking flag (OVO-S-Bench Tables 3, 7–8).  Every
number here is a run's :func:`~streamspatial.report.tables.headline`, i.e. exactly what its
``scores.json`` holds; nothing is re-scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.eval.options import EXECUTION_ONLY
from streamspatial.models.registry import REFERENCE_ROWS
from streamspatial.report.run_report import RunReport
from streamspatial.report.tables import headline


def thinking_flag(cfg: dict[str, Any]) -> bool | None:
    """The run's thinking switch (``extra_body.chat_template_kwargs.enable_thinking``)."""
    kwargs = (cfg.get("extra_body") or {}).get("chat_template_kwargs") or {}
    value = kwargs.get("enable_thinking")
    return bool(value) if value is not None else None


def reference_kind(rep: RunReport) -> str | None:
    """``Random``, ``Frequent``, ``Text-only`` or ``Human`` for the papers' reference rows.

    Text-only is a model shown no frame by the plain policy agent; a memory agent run with
    policy ``none`` (the rule agent, folding) still sees the video, so it is no reference.
    """
    cfg = rep.meta.get("config", {})
    model = str(cfg.get("model") or "")
    if model in REFERENCE_ROWS:
        return REFERENCE_ROWS[model]
    if model.startswith("human:"):
        return "Human"
    if cfg.get("agent", "policy") == "policy" and cfg.get("policy") == "none":
        return "Text-only"
    return None


def model_label(rep: RunReport) -> str:
    """The model as a heatmap column: its name, marked when thinking is on or off."""
    cfg = rep.meta.get("config", {})
    think = thinking_flag(cfg)
    suffix = "" if think is None else (" +think" if think else " -think")
    return f"{cfg.get('model')}{suffix}"


def policy_label(rep: RunReport) -> str:
    cfg = rep.meta.get("config", {})
    agent, policy = cfg.get("agent", "policy"), str(cfg.get("policy"))
    if agent == "policy":
        name = policy
    else:  # a memory agent: its perception tells two runs apart, a text-only policy nothing
        perception = cfg.get("perception")
        name = agent + (f"[{perception}]" if perception else "")
        name += "" if policy == "none" else f":{policy}"
    return name + (" (offline)" if rep.offline else "")


def run_label(rep: RunReport) -> str:
    """Who answered: a reference row's name, else model · agent · perception · policy.

    The parts a reader needs to tell two runs of one benchmark apart; :func:`run_labels`
    adds the run folder where that is still not enough (the same contender on two files).
    """
    kind = reference_kind(rep)
    if kind:
        return kind
    cfg = rep.meta.get("config", {})
    agent, policy = cfg.get("agent", "policy"), str(cfg.get("policy"))
    parts = [model_label(rep)]
    if agent != "policy":
        parts.append(str(agent))
        if cfg.get("perception"):
            parts.append(f"perception {cfg['perception']}")
    if agent == "policy" or policy != "none":
        parts.append(policy)
    return " · ".join(parts) + (" (offline)" if rep.offline else "")


def run_labels(reports: Sequence[RunReport]) -> dict[Path, str]:
    """One distinct label per run: :func:`run_label`, plus ``[folder]`` where two collide."""
    base = {rep.run_dir: run_label(rep) for rep in reports}
    counts = Counter(base.values())
    return {d: (f"{b} [{d.name}]" if counts[b] > 1 else b) for d, b in base.items()}


def main_metric(rep: RunReport) -> tuple[str | None, float | None]:
    """The headline number a grid cell shows: the benchmark's main one (Overall, OVO-Bench's
    Total Avg., …), else the table's first headline."""
    head = headline(rep.table)
    if rep.main_metric in head:
        return rep.main_metric, head[rep.main_metric]
    if head:
        key = next(iter(head))
        return key, head[key]
    return None, None


@dataclass(frozen=True)
class Grid:
    """Policy × model: ``cells[(policy, model)]`` is a run's main headline number."""

    metric: str | None
    policies: tuple[str, ...]
    models: tuple[str, ...]
    cells: dict[tuple[str, str], float | None]


def policy_model_grid(reports: list[RunReport]) -> Grid | None:
    """The heatmap of OVO-S-Bench Tables 7–8; None unless ≥2 runs fill ≥2 distinct cells."""
    runs = [r for r in reports if reference_kind(r) is None]
    cells: dict[tuple[str, str], float | None] = {}
    metric = None
    for rep in runs:
        metric, value = main_metric(rep)
        key = (policy_label(rep), model_label(rep))
        if key in cells:  # two runs of one cell (e.g. a re-run): keep both, named by folder
            key = (key[0], f"{key[1]} [{rep.run_dir.name}]")
        cells[key] = value
    if len(cells) < 2:
        return None
    policies = tuple(dict.fromkeys(p for p, _ in cells))
    models = tuple(dict.fromkeys(m for _, m in cells))
    return Grid(metric, policies, models, cells)


def _comparable(cfg: dict[str, Any]) -> str:
    """The result-affecting configuration with the thinking switch taken out."""
    import json

    kept = {k: v for k, v in cfg.items() if k not in EXECUTION_ONLY}
    extra = dict(kept.get("extra_body") or {})
    kwargs = dict(extra.get("chat_template_kwargs") or {})
    kwargs.pop("enable_thinking", None)
    if kwargs:
        extra["chat_template_kwargs"] = kwargs
    else:
        extra.pop("chat_template_kwargs", None)
    kept["extra_body"] = extra
    kept.pop("max_tokens", None)  # thinking runs need a larger budget (OVO-S-Bench §4.1)
    return json.dumps(kept, sort_keys=True, default=str)


@dataclass(frozen=True)
class ThinkingDelta:
    """Two runs equal but for the thinking flag: thinking − non-thinking per headline."""

    model: str
    policy: str
    on: RunReport
    off: RunReport
    deltas: dict[str, float | None]


def thinking_deltas(reports: list[RunReport]) -> list[ThinkingDelta]:
    """OVO-S-Bench Table 3: pairs of runs that differ only in ``enable_thinking``."""
    groups: dict[str, dict[bool, RunReport]] = {}
    for rep in reports:
        cfg = rep.meta.get("config", {})
        flag = thinking_flag(cfg)
        if flag is None:
            continue
        groups.setdefault(_comparable(cfg), {})[flag] = rep
    out = []
    for pair in groups.values():
        if True not in pair or False not in pair:
            continue
        on, off = pair[True], pair[False]
        h_on, h_off = headline(on.table), headline(off.table)
        deltas = {
            k: (h_on[k] - h_off[k])
            if h_on.get(k) is not None and h_off.get(k) is not None
            else None
            for k in h_on
        }
        cfg = on.meta.get("config", {})
        out.append(ThinkingDelta(str(cfg.get("model")), policy_label(on), on, off, deltas))
    return out


__all__ = [
    "Grid",
    "ThinkingDelta",
    "main_metric",
    "model_label",
    "policy_label",
    "policy_model_grid",
    "reference_kind",
    "run_label",
    "run_labels",
    "thinking_deltas",
    "thinking_flag",
]
