"""Reports: a run folder's tables as ``scores.json`` + ``report.md``, and leaderboards across runs.

The tables are the eval package's (:func:`streamspatial.eval.aggregate.paper_table`), chosen by
the benchmark's scoring spec recorded in ``run.json`` at run time, so a report never has to
re-read the benchmark file.  Offline runs (oracle-evidence) are labelled as such everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.aggregate import Table, diagnostics_table, paper_table, per_source_table
from streamspatial.eval.planner import NotApplicable
from streamspatial.eval.results import (
    Record,
    iter_records,
    now_iso,
    read_run_json,
    write_json_atomic,
)
from streamspatial.report.tables import fmt_cell, headline, markdown, table_markdown

SCORES_JSON = "scores.json"
REPORT_MD = "report.md"


@dataclass
class RunReport:
    run_dir: Path
    meta: dict[str, Any]
    table: Table
    sources: Table | None
    counts: dict[str, int]
    offline: bool
    diagnostics: Table | None = None  # CR / ER per level (seed 000 §4.3.3)

    @property
    def not_applicable(self) -> dict[str, Any] | None:
        """What the run left out because its model cannot answer it (random: numbers)."""
        return (self.meta.get("benchmark") or {}).get("not_applicable")

    def not_applicable_line(self) -> str | None:
        na = self.not_applicable
        if not na:
            return None
        note = NotApplicable.from_dict(na)
        tasks = f" (tasks: {', '.join(note.tasks)})" if note.tasks else ""
        return f"{note.sentence()}, left out of every row{tasks}"

    @property
    def label(self) -> str:
        cfg = self.meta.get("config", {})
        tag = f"{cfg.get('model')} · {cfg.get('agent', 'policy')}:{cfg.get('policy')}"
        return tag + (" (offline)" if self.offline else "")

    def scores(self) -> dict[str, Any]:
        cfg = self.meta.get("config", {})
        return {
            "run": str(self.run_dir),
            "benchmark": self.meta.get("benchmark", {}),
            "model": cfg.get("model"),
            "agent": cfg.get("agent", "policy"),
            "policy": cfg.get("policy"),
            "offline": self.offline,
            "config_hash": self.meta.get("config_hash"),
            "status": self.meta.get("status"),
            "counts": self.counts,
            "not_applicable": self.not_applicable,
            "headline": headline(self.table),
            "table": self.table.to_dict(),
            "per_source": self.sources.to_dict() if self.sources else None,
            "diagnostics": self.diagnostics.to_dict() if self.diagnostics else None,
            "generated_at": now_iso(),
        }

    def markdown(self) -> str:
        cfg = self.meta.get("config", {})
        c = self.counts
        lines = [
            f"# {self.table.name} — {cfg.get('model')}",
            "",
            f"- agent / policy: `{cfg.get('agent', 'policy')}` / `{cfg.get('policy')}`"
            + (
                " — **offline (reads evidence annotations; not a streaming result)**"
                if self.offline
                else ""
            ),
            f"- data: `{cfg.get('data')}` · config hash `{self.meta.get('config_hash')}` · "
            f"status `{self.meta.get('status')}`",
            f"- query points: {c['records']} recorded of {c['planned']} planned · "
            f"{c['errors']} with errors · {c['invalid']} invalid",
        ]
        if self.not_applicable_line():
            lines.append(f"- {self.not_applicable_line()}")
        lines += [
            "",
            table_markdown(self.table),
        ]
        if self.sources is not None:
            lines += ["", table_markdown(self.sources)]
        if self.diagnostics is not None:
            lines += ["", table_markdown(self.diagnostics)]
        return "\n".join(lines) + "\n"


def _table_for(meta: dict[str, Any]) -> str:
    bench = meta.get("benchmark") or {}
    table = bench.get("table")
    if not table:
        raise StreamspatialError("run.json: no benchmark table recorded (was the run started?)")
    return str(table)


def load_run(run_dir: Path) -> RunReport:
    """Read a run folder and compute its tables (nothing is written)."""
    meta = read_run_json(run_dir)
    records: list[Record] = list(iter_records(run_dir))
    table = paper_table(_table_for(meta), records)
    have_sources = len({r.source for r in records if r.source}) > 1
    sources = per_source_table(records) if have_sources else None
    planned = int((meta.get("benchmark") or {}).get("query_points", len(records)))
    counts = {
        "planned": planned,
        "records": len(records),
        "errors": sum(1 for r in records if r.error),
        "invalid": sum(1 for r in records if not r.valid),
        "not_applicable": int(
            ((meta.get("benchmark") or {}).get("not_applicable") or {}).get("query_points", 0)
        ),
    }
    offline = any(r.offline for r in records) or bool(meta.get("offline"))
    return RunReport(run_dir, meta, table, sources, counts, offline, diagnostics_table(records))


def write_report(run_dir: Path) -> RunReport:
    """Write ``scores.json`` and ``report.md`` into the run folder (atomically)."""
    rep = load_run(run_dir)
    write_json_atomic(run_dir / SCORES_JSON, rep.scores())
    tmp = run_dir / (REPORT_MD + ".tmp")
    tmp.write_text(rep.markdown(), encoding="utf-8")
    tmp.replace(run_dir / REPORT_MD)
    return rep


def leaderboard(run_dirs: list[Path]) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per run, sorted best first by its Overall (or first headline) number."""
    reports = [load_run(d) for d in run_dirs]
    names = {r.table.name for r in reports}
    if len(names) > 1:
        raise StreamspatialError(
            f"compare: runs are on different benchmarks ({', '.join(sorted(names))}); "
            "compare runs of one benchmark"
        )
    metric_cols: list[str] = []
    rows: list[dict[str, Any]] = []
    for rep in reports:
        head = headline(rep.table)
        for k in head:
            if k not in metric_cols:
                metric_cols.append(k)
        cfg = rep.meta.get("config", {})
        rows.append(
            {
                "run": rep.run_dir.name,
                "model": cfg.get("model"),
                "policy": f"{cfg.get('agent', 'policy')}:{cfg.get('policy')}"
                + (" (offline)" if rep.offline else ""),
                "n": rep.counts["records"],
                "errors": rep.counts["errors"],
                "n/a": rep.counts["not_applicable"],
                **head,
            }
        )
    key = "Overall" if "Overall" in metric_cols else (metric_cols[0] if metric_cols else None)

    def order(row: dict[str, Any]) -> tuple[int, float]:
        v = row.get(key) if key else None
        return (1, 0.0) if v is None else (0, -float(v))

    rows.sort(key=order)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    # "n/a": query points the run's model cannot answer by design (random: numbers), shown
    # only when some run has them, so a row's Overall is read over what it answered.
    na = ["n/a"] if any(r["n/a"] for r in rows) else []
    columns = ["rank", "run", "model", "policy", "n", *na, "errors", *metric_cols]
    return columns, rows


def leaderboard_markdown(columns: list[str], rows: list[dict[str, Any]]) -> str:
    pct = {
        c: "accuracy"
        for c in columns
        if c not in ("rank", "run", "model", "policy", "n", "n/a", "errors")
    }
    shown = [
        {c: (fmt_cell(pct[c], r.get(c)) if c in pct else r.get(c)) for c in columns} for r in rows
    ]
    return markdown(columns, shown, align_right=pct)


__all__ = ["RunReport", "leaderboard", "leaderboard_markdown", "load_run", "write_report"]
