"""One run folder's report: its tables under a scorer, ``scores.json`` + ``report.md``, and the
leaderboard over several runs.

The tables are the scoring package's (:func:`streamspatial.scoring.tables.results_table`),
chosen by the benchmark's scoring spec recorded in ``run.json`` at run time, so a report never
has to re-read the benchmark file.  Every number says which scorer made it (``official``: the
benchmark's own scoring code; ``paper``: the papers' formulas); a run is reported with the
scorer it ran with unless ``scorer`` asks for the other, and where the two scorers' headline
numbers differ both are shown.  Offline runs (oracle-evidence) are labelled as such everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.planner import NotApplicable
from streamspatial.eval.results import (
    Record,
    iter_records,
    now_iso,
    read_run_json,
    write_json_atomic,
)
from streamspatial.grading.aggregate import Table, diagnostics_table, per_source_table
from streamspatial.report.blind import find_blind, gap_table, load_blind
from streamspatial.report.tables import fmt_cell, headline, markdown, table_markdown
from streamspatial.scoring.scorers import SCORERS, SCORERS_KEY, rescored
from streamspatial.scoring.tables import results_table

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
    diagnostics: Table | None = None  # CR / ER per level (OVO-S-Bench §4.3.3)
    scorer: str = "paper"  # the scorer of every number in ``table``
    # The other scorer's headline numbers, when they differ from this one's (else None).
    compared: dict[str, Any] | None = None
    # Each task's score next to the blind stress test's (report.blind), when one is found.
    blind: Table | None = None
    blind_source: Path | None = None

    @property
    def figures(self) -> tuple[str, ...]:
        """The report figures particular to this run's benchmark (its adapter lists them,
        e.g. ``trajectories`` for VCBench's counting trajectories)."""
        from streamspatial.bench.registry import ADAPTERS

        adapter = ADAPTERS.get(str((self.meta.get("benchmark") or {}).get("format")))
        return adapter.figures if adapter is not None else ()

    @property
    def main_metric(self) -> str:
        """The headline key a summary ranks by: the benchmark's own (OVO-Bench's "Total Avg.",
        StreamingBench's "total") when its headline has it, or has it for the one part the run
        holds ("omni total"), else "Overall"."""
        from streamspatial.bench.registry import ADAPTERS

        adapter = ADAPTERS.get(str((self.meta.get("benchmark") or {}).get("format")))
        own = adapter.headline_metric if adapter is not None else "Overall"
        head = headline(self.table)
        if own in head:
            return own
        parts = [k for k in head if k.endswith(f" {own}")]
        return parts[0] if len(parts) == 1 else "Overall"

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
    def clips(self) -> str:
        """``official`` when the run showed the benchmark's official clips, which may end
        after the query time (``run --clips official``), else ``prefix``."""
        return str((self.meta.get("benchmark") or {}).get("clips") or "prefix")

    @property
    def history(self) -> str:
        """``official`` when a dialogue's earlier turns were shown as the benchmark's official
        script shows them (``run --history official``: ground-truth answers), else ``own``."""
        return str((self.meta.get("benchmark") or {}).get("history") or "own")

    @property
    def protocol(self) -> str:
        """The benchmark's protocol: ``streaming``, or ``offline`` (whole clips: MMSI-Video)."""
        return str((self.meta.get("benchmark") or {}).get("protocol", "streaming"))

    @property
    def marks(self) -> str:
        """What sets this run apart from a streaming one, for labels and leaderboards."""
        return (
            (" (offline benchmark)" if self.protocol == "offline" else "")
            + (" (official clips)" if self.clips == "official" else "")
            + (" (official history)" if self.history == "official" else "")
        )

    @property
    def label(self) -> str:
        cfg = self.meta.get("config", {})
        tag = f"{cfg.get('model')} · {cfg.get('agent', 'policy')}:{cfg.get('policy')}"
        tag += self.marks
        return tag + (" (offline)" if self.offline else "")

    @property
    def scorer_line(self) -> str:
        """Which scorer made the numbers, and whose code that is."""
        code = (self.meta.get("benchmark") or {}).get("official")
        if self.scorer == "official" and code:
            return f"official — {code}: its prompt, frame sampling, extraction and averaging"
        if self.scorer == "official":
            return "official — this benchmark publishes no scoring code: the paper's formulas"
        return "paper — the formulas as the papers write them"

    def scores(self) -> dict[str, Any]:
        cfg = self.meta.get("config", {})
        return {
            "run": str(self.run_dir),
            "benchmark": self.meta.get("benchmark", {}),
            "model": cfg.get("model"),
            "agent": cfg.get("agent", "policy"),
            "policy": cfg.get("policy"),
            "offline": self.offline,
            "protocol": self.protocol,
            "scorer": self.scorer,
            "clips": self.clips,
            "history": self.history,
            "official_code": (self.meta.get("benchmark") or {}).get("official"),
            "other_scorer": self.compared,
            "config_hash": self.meta.get("config_hash"),
            "status": self.meta.get("status"),
            "counts": self.counts,
            "not_applicable": self.not_applicable,
            "headline": headline(self.table),
            "table": self.table.to_dict(),
            "per_source": self.sources.to_dict() if self.sources else None,
            "diagnostics": self.diagnostics.to_dict() if self.diagnostics else None,
            "vision_blind_gap": self.blind.to_dict() if self.blind else None,
            "blind_source": str(self.blind_source) if self.blind_source else None,
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
            f"- scorer: `{self.scorer}` ({self.scorer_line})",
        ]
        if self.protocol == "offline":
            lines.append(
                "- protocol: `offline` — **the benchmark shows every clip whole and asks after "
                "them, with no query time (as its authors ran it); not a streaming result**"
            )
        if self.clips == "official":
            lines.append(
                "- clips: `official` — **each query was shown the benchmark's official clip, "
                "which may end after its query time (OVO-Bench's forward probes: up to ⌈t⌉); "
                "not a streaming result**"
            )
        if self.history == "official":
            lines.append(
                "- history: `official` — **a dialogue's earlier turns were shown as the "
                "benchmark's official script shows them, with their ground-truth answers "
                "(StreamingBench SQA); not a streaming result**"
            )
        if self.not_applicable_line():
            lines.append(f"- {self.not_applicable_line()}")
        lines += [
            "",
            table_markdown(self.table),
        ]
        if self.compared is not None:
            lines += ["", self._comparison_markdown()]
        if self.sources is not None:
            lines += ["", table_markdown(self.sources)]
        if self.diagnostics is not None:
            lines += ["", table_markdown(self.diagnostics)]
        if self.blind is not None:
            lines += ["", table_markdown(self.blind), f"*blind scores: `{self.blind_source}`*"]
        return "\n".join(lines) + "\n"

    def _comparison_markdown(self) -> str:
        assert self.compared is not None
        mine, other = headline(self.table), self.compared["headline"]
        keys = list(dict.fromkeys([*mine, *other]))
        rows = [
            {"scorer": self.scorer, **{k: mine.get(k) for k in keys}},
            {"scorer": self.compared["scorer"], **{k: other.get(k) for k in keys}},
        ]
        pct = {k: "accuracy" for k in keys}
        shown = [{c: (fmt_cell(pct[c], r[c]) if c in pct else r[c]) for c in r} for r in rows]
        lines = [
            "### Scorers compared",
            "",
            markdown(["scorer", *keys], shown, align_right=pct),
        ]
        other_name = self.compared["scorer"]
        per_row = compare_rows(self.table, Table(**self.compared["table"]), other_name)
        if per_row:
            scores = (self.scorer, other_name)
            cells = [
                {c: fmt_cell("accuracy", v) if c in scores else v for c, v in r.items()}
                for r in per_row
            ]
            table = markdown(list(per_row[0]), cells, align_right=scores)
            lines += ["", "Rows where they differ:", "", table]
        lines += [
            "",
            "*the same responses under both scorers; docs/reproducing.md says what differs*",
        ]
        return "\n".join(lines)


_METRICS = ("accuracy", "score", "gpa")


def compare_rows(mine: Table, other: Table, other_name: str) -> list[dict[str, Any]]:
    """Rows present in both tables whose main metric differs: the row's label columns, then
    this table's value and the other scorer's (the report's per-task comparison)."""
    metric = next((c for c in _METRICS if c in mine.columns and c in other.columns), None)
    if metric is None:
        return []
    labels = [
        c
        for c in mine.columns
        if c in other.columns and c != metric and all(_is_label(r.get(c)) for r in mine.rows)
    ]

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row.get(c) for c in labels)

    theirs = {key(r): r.get(metric) for r in other.rows}
    out = []
    for r in mine.rows:
        if key(r) in theirs and theirs[key(r)] != r.get(metric):
            mine_name = "official" if other_name == "paper" else "paper"
            row = {c: r.get(c) for c in labels}
            out.append({**row, mine_name: r.get(metric), other_name: theirs[key(r)]})
    return out


def _is_label(value: Any) -> bool:
    """A cell naming a row (text, or nothing) rather than counting or scoring it."""
    return value is None or isinstance(value, str)


def _table_for(meta: dict[str, Any]) -> str:
    bench = meta.get("benchmark") or {}
    table = bench.get("table")
    if not table:
        raise StreamspatialError("run.json: no benchmark table recorded (was the run started?)")
    return str(table)


def run_scorer(meta: dict[str, Any]) -> str:
    """The scorer a run ran with (runs made before ``--scorer``: paper)."""
    return str((meta.get("benchmark") or {}).get("scorer") or "paper")


def load_run(run_dir: Path, scorer: str | None = None, blind: Path | None = None) -> RunReport:
    """Read a run folder and compute its tables under ``scorer`` (default: the run's own).

    Nothing is written.  A scorer other than the run's own re-scores the same responses from
    the verdicts every record holds.  ``blind``: the blind stress test's scores (``qc blind
    --out`` JSON or a generated ``manifest.json``); by default the one beside the run's data.
    """
    meta = read_run_json(run_dir)
    scorer = scorer or run_scorer(meta)
    if scorer not in SCORERS:
        raise StreamspatialError(f"--scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    raw: list[Record] = list(iter_records(run_dir))
    records = rescored(raw, scorer)
    table = results_table(_table_for(meta), records, scorer)
    have_sources = len({r.source for r in raw if r.source}) > 1
    sources = per_source_table(records) if have_sources else None
    planned = int((meta.get("benchmark") or {}).get("query_points", len(records)))
    counts = {
        "planned": planned,
        "records": len(records),
        "errors": sum(1 for r in raw if r.error),
        "invalid": sum(1 for r in records if not r["valid"]),
        "not_applicable": int(
            ((meta.get("benchmark") or {}).get("not_applicable") or {}).get("query_points", 0)
        ),
    }
    offline = any(r.offline for r in raw) or bool(meta.get("offline"))
    blind = blind or find_blind((meta.get("config") or {}).get("data"))
    invalid = str((meta.get("benchmark") or {}).get("invalid", "wrong"))
    gap = gap_table(records, load_blind(blind), invalid=invalid) if blind else None
    return RunReport(
        run_dir,
        meta,
        table,
        sources,
        counts,
        offline,
        diagnostics_table(raw),
        scorer=scorer,
        compared=_compared(meta, raw, table, scorer),
        blind=gap,
        blind_source=blind if gap is not None else None,
    )


def _compared(
    meta: dict[str, Any], raw: list[Record], table: Table, scorer: str
) -> dict[str, Any] | None:
    """The other scorer's headline, when every record holds its verdict and it differs."""
    other = next(s for s in SCORERS if s != scorer)
    if not raw or not all(SCORERS_KEY in (r.extra or {}) for r in raw):
        return None
    other_table = results_table(_table_for(meta), rescored(raw, other), other)
    mine, theirs = headline(table), headline(other_table)
    if mine == theirs:
        return None
    return {"scorer": other, "headline": theirs, "table": other_table.to_dict()}


def write_report(run_dir: Path, scorer: str | None = None, blind: Path | None = None) -> RunReport:
    """Write ``scores.json`` and ``report.md`` into the run folder (atomically)."""
    rep = load_run(run_dir, scorer, blind)
    write_json_atomic(run_dir / SCORES_JSON, rep.scores())
    tmp = run_dir / (REPORT_MD + ".tmp")
    tmp.write_text(rep.markdown(), encoding="utf-8")
    tmp.replace(run_dir / REPORT_MD)
    return rep


def leaderboard(
    run_dirs: list[Path], scorer: str | None = None
) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per run, sorted best first by its Overall (or first headline) number."""
    reports = [load_run(d, scorer) for d in run_dirs]
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
                + rep.marks
                + (" (offline)" if rep.offline else ""),
                "scorer": rep.scorer,
                "n": rep.counts["records"],
                "errors": rep.counts["errors"],
                "n/a": rep.counts["not_applicable"],
                **head,
            }
        )
    main = reports[0].main_metric if reports else "Overall"
    key = main if main in metric_cols else (metric_cols[0] if metric_cols else None)

    def order(row: dict[str, Any]) -> tuple[int, float]:
        v = row.get(key) if key else None
        return (1, 0.0) if v is None else (0, -float(v))

    rows.sort(key=order)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    # "n/a": query points the run's model cannot answer by design (random: numbers), shown
    # only when some run has them, so a row's Overall is read over what it answered.
    na = ["n/a"] if any(r["n/a"] for r in rows) else []
    columns = ["rank", "run", "model", "policy", "scorer", "n", *na, "errors", *metric_cols]
    return columns, rows


def leaderboard_markdown(columns: list[str], rows: list[dict[str, Any]]) -> str:
    pct = {
        c: "accuracy"
        for c in columns
        if c not in ("rank", "run", "model", "policy", "scorer", "n", "n/a", "errors")
    }
    shown = [
        {c: (fmt_cell(pct[c], r.get(c)) if c in pct else r.get(c)) for c in columns} for r in rows
    ]
    return markdown(columns, shown, align_right=pct)


__all__ = ["RunReport", "leaderboard", "leaderboard_markdown", "load_run", "write_report"]
