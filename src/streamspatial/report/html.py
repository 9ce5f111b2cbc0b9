"""``report --html``: one self-contained page with the papers' tables and analyses.

The page is a single file (figures are embedded PNG data URLs, styles inline) so it can be
mailed or attached to a paper's supplement.  Every number comes from the same functions that
write ``scores.json`` (:func:`streamspatial.report.load_run`, the eval tables and
:func:`~streamspatial.report.tables.headline`); each number cell carries its unrounded value in
``data-value`` so a test can check the page against ``scores.json``.  A figure that cannot be
drawn for lack of data is replaced by one sentence saying what is missing, never left out
silently.

Over 400 lines on purpose: one self-contained page whose sections share the same cell and
figure helpers; each section is a short function.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from streamspatial.analysis.taxonomy import TAXONOMY_JSON
from streamspatial.bench.base import TRAJECTORIES
from streamspatial.bench.registry import ADAPTERS
from streamspatial.bench.vcbench.score import vcbench_trajectories
from streamspatial.eval.results import iter_records
from streamspatial.grading.aggregate import Table
from streamspatial.report import plots
from streamspatial.report.queries import (
    INTERVAL_BINS,
    RunQueries,
    accuracy_by_interval,
    length_vs_accuracy,
    recall_stats,
    run_queries,
)
from streamspatial.report.run_report import RunReport, write_report
from streamspatial.report.runs import (
    policy_label,
    policy_model_grid,
    reference_kind,
    run_labels,
    thinking_deltas,
    thinking_flag,
)
from streamspatial.report.tables import VCBENCH_METRICS, fmt_cell, headline

REPORT_HTML = "report.html"
MAX_TRAJECTORIES = 12  # per run: a page of small multiples stays readable

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1200px;color:#222;line-height:1.4;padding:0 1rem}
h1{font-size:1.6rem}h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
h3{margin-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem;display:block;
overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:.25rem .55rem}th{background:#f3f3f3;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.ref td{background:#fafae6;font-style:italic}
.absent{color:#8a5300;background:#fff6e5;border-left:4px solid #e0a030;padding:.4rem .7rem}
.note{color:#555;font-size:.85rem}
img{max-width:100%;height:auto;border:1px solid #eee;margin:.3rem 0}
details{margin:.4rem 0}summary{cursor:pointer;font-weight:600}
nav a{margin-right:.8rem}
"""


# The papers' reference rows and the run that gives each (HTML, shown when one is missing).
REFERENCE_RUNS = {
    "Random": "a run with model <code>random</code>",
    "Text-only": "a model run with policy <code>none</code>",
    "Human": "a <code>streamspatial serve</code> session, model <code>human:NAME</code>",
}


def _e(x: Any) -> str:
    return html.escape(str(x))


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _absent(text: str) -> str:
    return f'<p class="absent">{_e(text)}</p>'


def _num_td(column: str, value: Any, **data: str) -> str:
    attrs = "".join(f' data-{k}="{_e(v)}"' for k, v in data.items())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        attrs += f' data-value="{_e(repr(value))}"'
        return f'<td class="num"{attrs}>{_e(fmt_cell(column, value))}</td>'
    return f"<td{attrs}>{_e(fmt_cell(column, value))}</td>"


def html_table(
    columns: Sequence[str],
    rows: Sequence[dict[str, Any]],
    *,
    run: str | None = None,
    row_class: Sequence[str] | None = None,
) -> str:
    """A table whose number cells carry ``data-value`` (and ``data-run`` / ``data-col``)."""
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = []
    for k, r in enumerate(rows):
        cells = []
        for c in columns:
            extra = {"col": c, **({"run": run} if run else {})}
            cells.append(_num_td(c, r.get(c), **extra))
        cls = f' class="{row_class[k]}"' if row_class and row_class[k] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _paper_table(t: Table, run: str) -> str:
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in t.notes)
    return f"<h3>{_e(t.name)}</h3>" + html_table(t.columns, t.rows, run=run) + notes


class Page:
    """The page under construction: sections in order, with a table of contents."""

    def __init__(self, title: str):
        self.title = title
        self.sections: list[tuple[str, str, str]] = []

    def add(self, anchor: str, heading: str, body: str) -> None:
        self.sections.append((anchor, heading, body))

    def render(self) -> str:
        nav = " ".join(f'<a href="#{a}">{_e(h)}</a>' for a, h, _ in self.sections)
        parts = [f'<h2 id="{a}">{_e(h)}</h2>{b}' for a, h, b in self.sections]
        return (
            "<!doctype html><html lang=en><head><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(self.title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{_e(self.title)}</h1><nav>{nav}</nav>{''.join(parts)}</body></html>\n"
        )


def _run_name(rep: RunReport) -> str:
    return rep.run_dir.name


Labels = Mapping[Path, str]  # run folder → the name a table row or a legend shows


def _per_benchmark(reports: Sequence[RunReport], section: Callable[[list[RunReport]], str]) -> str:
    """``section`` once per benchmark among ``reports``: numbers of two benchmarks never
    share a table or a chart, and within one benchmark the labels stay short."""
    groups: dict[str, list[RunReport]] = {}
    for rep in reports:
        groups.setdefault(rep.table.name, []).append(rep)
    if len(groups) == 1:
        return section(next(iter(groups.values())))
    return "".join(f"<h3>{_e(name)}</h3>" + section(runs) for name, runs in groups.items())


def _runs_section(reports: Sequence[RunReport]) -> str:
    rows = []
    for rep in reports:
        cfg = rep.meta.get("config", {})
        think = thinking_flag(cfg)
        rows.append(
            {
                "run": _run_name(rep),
                "model": cfg.get("model"),
                "agent / policy": policy_label(rep),
                "scorer": rep.scorer,
                "thinking": "–" if think is None else ("on" if think else "off"),
                "reference": reference_kind(rep) or "",
                "status": rep.meta.get("status"),
                "records": rep.counts["records"],
                "planned": rep.counts["planned"],
                "errors": rep.counts["errors"],
                "invalid": rep.counts["invalid"],
            }
        )
    cols = ["run", "model", "agent / policy", "scorer", "thinking", "reference", "status",
            "records", "planned", "errors", "invalid"]  # fmt: skip
    notes = [
        f'<p class="note">{_e(rep.run_dir.name)}: {_e(rep.not_applicable_line())}</p>'
        for rep in reports
        if rep.not_applicable_line()
    ]
    return html_table(cols, rows) + "".join(notes)


def _headline_section(reports: Sequence[RunReport]) -> str:
    """Accuracy per level / task, one row per run, reference rows marked (OVO-S-Bench,
    Table 2); one table and chart per benchmark."""
    return _per_benchmark(reports, _headline_of_one_benchmark)


def _headline_of_one_benchmark(reports: list[RunReport]) -> str:
    label = run_labels(reports)
    heads = [headline(r.table) for r in reports]
    keys = list(dict.fromkeys(k for h in heads for k in h))
    if not keys:
        return _absent("no headline numbers: the runs hold no scored records")
    order = sorted(range(len(reports)), key=lambda i: (reference_kind(reports[i]) is None, i))
    cols = ["run", *keys]
    body = "<table><thead><tr>" + "".join(f"<th>{_e(c)}</th>" for c in cols) + "</tr></thead>"
    body += "<tbody>"
    for i in order:
        rep = reports[i]
        cls = "ref" if reference_kind(rep) else ""
        cells = f"<td>{_e(label[rep.run_dir])}</td>" + "".join(
            _num_td("accuracy", heads[i].get(k), run=_run_name(rep), col=k) for k in keys
        )
        body += f'<tr class="{cls}">{cells}</tr>'
    body += "</tbody></table>"
    refs = [label[r.run_dir] for r in reports if reference_kind(r)]
    present = {reference_kind(r) for r in reports}
    missing = [f"{k} ({how})" for k, how in REFERENCE_RUNS.items() if k not in present]
    if missing:
        body += f'<p class="note">Reference rows not among the inputs: {"; ".join(missing)}.</p>'
    series = {label[reports[i].run_dir]: [heads[i].get(k) for k in keys] for i in order}
    name = reports[0].table.name
    body += _img(
        plots.grouped_bars(keys, series, title=f"{name}: headline numbers", references=refs),
        f"{name} headline numbers per run",
    )
    return body


def _heatmap_section(reports: Sequence[RunReport]) -> str:
    return _per_benchmark(reports, _heatmap_of_one_benchmark)


def _heatmap_of_one_benchmark(reports: list[RunReport]) -> str:
    grid = policy_model_grid(reports)
    if grid is None:
        return _absent(
            "no policy × model heatmap: it needs at least two non-reference runs in different "
            "(policy, model) cells (run `streamspatial sweep`)"
        )
    rows = [
        {"policy": p, **{m: grid.cells.get((p, m)) for m in grid.models}} for p in grid.policies
    ]
    table = (
        "<table><thead><tr><th>policy \\ model</th>"
        + "".join(f"<th>{_e(m)}</th>" for m in grid.models)
        + "</tr></thead><tbody>"
    )
    for row in rows:
        table += (
            f"<tr><td>{_e(row['policy'])}</td>"
            + "".join(_num_td("accuracy", row[m], col=m, policy=row["policy"]) for m in grid.models)
            + "</tr>"
        )
    table += "</tbody></table>"
    values = [[grid.cells.get((p, m)) for m in grid.models] for p in grid.policies]
    name = reports[0].table.name
    title = f"{name}: {grid.metric or 'score'} by frame policy × model"
    return (
        f'<p class="note">cell = each run\'s {_e(name)} {_e(grid.metric)} '
        "(as in its scores.json)</p>"
        + table
        + _img(plots.heatmap(grid.policies, grid.models, values, title), "policy model heatmap")
    )


def _thinking_section(reports: Sequence[RunReport]) -> str:
    pairs = thinking_deltas(reports)
    if not pairs:
        return _absent(
            "no thinking vs non-thinking pair: no two runs differ only in "
            "extra_body.chat_template_kwargs.enable_thinking"
        )
    keys = list(dict.fromkeys(k for p in pairs for k in p.deltas))
    out = (
        "<table><thead><tr><th>model</th><th>policy</th>"
        + "".join(f"<th>Δ {_e(k)}</th>" for k in keys)
        + "</tr></thead><tbody>"
    )
    for p in pairs:
        out += (
            f"<tr><td>{_e(p.model)}</td><td>{_e(p.policy)}</td>"
            + "".join(
                _num_td("accuracy", p.deltas.get(k), col=k, run=_run_name(p.on)) for k in keys
            )
            + "</tr>"
        )
    out += "</tbody></table>"
    return out + (
        '<p class="note">Δ = thinking − non-thinking, in points (OVO-S-Bench, Table 3).</p>'
    )


def _interval_section(reports: Sequence[RunReport], queries: Sequence[RunQueries]) -> str:
    out = "".join(
        _absent(f"{q.label}: {q.why_no_annotations}") for q in queries if not q.annotations
    )
    by_run = {rep.run_dir: q for rep, q in zip(reports, queries, strict=True)}
    usable = [
        rep for rep in reports if by_run[rep.run_dir].annotations and by_run[rep.run_dir].rows
    ]
    if not usable:
        return out + _absent("no run with readable benchmark annotations: no interval figures")

    def one_benchmark(group: list[RunReport]) -> str:
        short = run_labels(group)
        return _interval_figures(
            [replace(by_run[r.run_dir], label=short[r.run_dir]) for r in group],
            group[0].table.name,
        )

    return out + _per_benchmark(usable, one_benchmark)


def _interval_figures(usable: Sequence[RunQueries], benchmark: str) -> str:
    out = ""
    bins = [b for b, _ in INTERVAL_BINS]
    for value, title, xlabel in (
        ("gap", "Accuracy vs question–evidence interval", "t_q − end of last evidence"),
        ("time", "Accuracy vs query time", "t_q"),
    ):
        series = {q.label: accuracy_by_interval(q.rows, value) for q in usable}
        if not any(series.values()):
            out += _absent(f"{title}: no query has annotated evidence")
            continue
        used = [b for b in bins if any(b == p[0] for pts in series.values() for p in pts)]
        rows = [
            {"run": label, **{b: next((a for x, _, a in pts if x == b), None) for b in used}}
            for label, pts in series.items()
        ]
        out += f"<h4>{_e(title)}</h4>" + _percent_table(["run", *used], rows)
        figure = plots.lines_by_bin(series, used, title=f"{benchmark}: {title}", xlabel=xlabel)
        out += _img(figure, title)
    return out


def _percent_table(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """Like :func:`html_table` but every number column prints as a percentage."""
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = ""
    for r in rows:
        body += (
            "<tr>"
            + "".join(_num_td("accuracy" if c != "n" else "n", r.get(c), col=c) for c in columns)
            + "</tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _trajectory_section(reports: Sequence[RunReport], label: Labels) -> str:
    vc = [r for r in reports if TRAJECTORIES in r.figures]
    if not vc:
        having = " / ".join(a.title for a in ADAPTERS.values() if TRAJECTORIES in a.figures)
        return _absent(f"no {having} run among the inputs: no prediction trajectories")
    out = ""
    for rep in vc:
        records = list(iter_records(rep.run_dir))
        trajs = vcbench_trajectories(records)
        times: dict[str, list[float]] = {}
        for r in sorted(records, key=lambda r: r.query_index):
            times.setdefault(r.item_id, []).append(r.t_q)
        trajs.sort(key=lambda t: t.item_id)
        shown = trajs[:MAX_TRAJECTORIES]
        metrics = [{m: t.metric(m) for m in VCBENCH_METRICS} for t in shown]
        out += f"<h3>{_e(label[rep.run_dir])}</h3>"
        rows = [{"question": t.item_id, "subcategory": t.subcategory, **m}
                for t, m in zip(shown, metrics, strict=True)]  # fmt: skip
        out += html_table(["question", "subcategory", *VCBENCH_METRICS], rows,
                          run=_run_name(rep))  # fmt: skip
        if len(trajs) > len(shown):
            out += f'<p class="note">first {len(shown)} of {len(trajs)} questions shown</p>'
        figure = plots.trajectories(shown, metrics, [times[t.item_id] for t in shown])
        out += _img(figure, "VCBench trajectories")
    return out


def _recall_section(reports: Sequence[RunReport], queries: Sequence[RunQueries]) -> str:
    """OVO-S-Bench, Fig. 5, once per benchmark.  CR / ER per level are the runs' scores.json
    ``diagnostics`` tables (scoring.aggregate.diagnostics_table); the Pearson r and the
    retained-time density are computed here from the same records."""
    by_run = {rep.run_dir: q for rep, q in zip(reports, queries, strict=True)}
    with_diag = [rep for rep in reports if rep.diagnostics]
    if not with_diag:
        return _absent(
            "no run with ER/CR data: no record carries diagnostics.compression_ratio / "
            "evidence_recall (the runner records them for runs made since it does; "
            "older run folders lack them)"
        )
    note = (
        '<p class="note">CR = share of the prefix\'s 1-s bins that reached the model; ER = '
        "share of the annotated evidence bins that did (OVO-S-Bench §4.3.3); r = per-query "
        "Pearson correlation of ER with the query's score; – : ER or score constant.</p>"
    )
    return _per_benchmark(with_diag, lambda group: _recall_of_one_benchmark(group, by_run)) + note


def _recall_of_one_benchmark(group: list[RunReport], by_run: Mapping[Path, RunQueries]) -> str:
    label = run_labels(group)
    cols = ["run", "n", "CR", "ER", "n (ER)", "Pearson r (ER, correct)"]
    body, stats, details = "", [], ""
    for rep in group:
        table = rep.diagnostics
        overall = table.row(level="Overall")
        s = recall_stats(replace(by_run[rep.run_dir], label=label[rep.run_dir]))
        if s is not None:
            per_level = {r["level"]: r["er"] for r in table.rows if r["level"] != "Overall"}
            stats.append(replace(s, er_by_level=per_level))
        run = _run_name(rep)
        body += (
            f"<tr><td>{_e(label[rep.run_dir])}</td>{_num_td('n', overall['n'], col='n', run=run)}"
            f"{_num_td('accuracy', overall['cr'], col='cr', run=run)}"
            f"{_num_td('accuracy', overall['er'], col='er', run=run)}"
            f"{_num_td('n', overall['n_er'], col='n_er', run=run)}"
            f"{_num_td('r', s.pearson_r if s else None, col='r', run=run)}</tr>"
        )
        details += (
            f"<details><summary>{_e(label[rep.run_dir])}: CR / ER per level</summary>"
            + html_table(table.columns, table.rows)
            + "</details>"
        )
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    out = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{details}"
    if not stats:
        return out + _absent("no query with annotated evidence: no ER figure")
    figure = plots.recall_figure(stats, title=group[0].table.name)
    return out + _img(figure, "evidence recall diagnostics")


def _source_section(reports: Sequence[RunReport]) -> str:
    with_src = [r for r in reports if r.sources is not None]
    if not with_src:
        return _absent("no per-source accuracy: no run has records from more than one source")
    return _per_benchmark(with_src, _sources_of_one_benchmark)


def _sources_of_one_benchmark(with_src: list[RunReport]) -> str:
    label = run_labels(with_src)
    sources = list(dict.fromkeys(row["source"] for r in with_src for row in r.sources.rows))
    series, rows = {}, []
    for rep in with_src:
        by = {row["source"]: row["score"] for row in rep.sources.rows}
        series[label[rep.run_dir]] = [by.get(s) for s in sources]
    for s_i, s in enumerate(sources):
        rows.append({"source": s, **{k: v[s_i] for k, v in series.items()}})
    name = with_src[0].table.name
    return _percent_table(["source", *series], rows) + _img(
        plots.grouped_bars(sources, series, title=f"{name}: accuracy per source"),
        "per-source accuracy",
    )


def _length_section(queries: Sequence[RunQueries]) -> str:
    usable = [q for q in queries if q.annotations and q.rows]
    if not usable:
        return _absent("no run with readable benchmark annotations: no length correlations")
    rows = [
        {"scope": r.scope, "evidence ρ": r.evidence_rho, "evidence n": r.evidence_n,
         "prefix ρ": r.prefix_rho, "prefix n": r.prefix_n}
        for r in length_vs_accuracy(usable)
    ]  # fmt: skip
    return (
        html_table(["scope", "evidence ρ", "evidence n", "prefix ρ", "prefix n"], rows)
        + '<p class="note">Spearman ρ between query-level mean accuracy (over the runs above) '
        "and evidence-span / prefix length; controlled rows centre the ranks within each "
        "level (or level and source) first (OVO-S-Bench, Table 9). – : fewer than 3 queries "
        "or a constant variable.</p>"
    )


def _taxonomy_section(reports: Sequence[RunReport], label: Labels) -> str:
    found = [
        (r, r.run_dir / TAXONOMY_JSON) for r in reports if (r.run_dir / TAXONOMY_JSON).exists()
    ]
    if not found:
        return _absent("no error taxonomy: run `streamspatial taxonomy RUN_DIR --judge ...`")
    out = ""
    for rep, path in found:
        data = json.loads(path.read_text(encoding="utf-8"))
        dist = data.get("distribution") or {}
        labels = list(data.get("labels") or [])
        levels = sorted(dist)
        names = data.get("label_names") or {}
        heads = [f"{lb} {names.get(lb, '')}".strip() for lb in labels]
        rows = [
            {"level": lv, **{h: dist[lv].get(lb, 0) for h, lb in zip(heads, labels, strict=True)}}
            for lv in levels
        ]
        out += f"<h3>{_e(label[rep.run_dir])}</h3>" + html_table(["level", *heads], rows)
        kappa = data.get("kappa")
        judges = ", ".join(data.get("judges") or [])
        out += (
            f'<p class="note">judge(s) {_e(judges)}: {data.get("wrong")} wrong answers, '
            f"{data.get('labelled')} labelled by majority of {data.get('votes', 3)} votes, "
            f"{data.get('truncated')} truncated traces tagged T1a without a call, "
            f"{data.get('disagreements')} disagreements excluded"
            + (
                f"; Cohen's κ = {kappa:.3f} over {data.get('kappa_n')} queries both judges labelled"
                if isinstance(kappa, (int, float))
                else ""
            )
            + ".</p>"
        )
        shares = []
        for lv in levels:
            total = sum(dist[lv].get(lb, 0) for lb in labels) or 1
            shares.append([dist[lv].get(lb, 0) / total for lb in labels])
        if levels and labels:
            figure = plots.stacked_shares(levels, heads, shares, "Error types per level")
            out += _img(figure, "taxonomy distribution")
    return out


FOOTAGE_FRAMES = 4  # simulator frames shown, one per episode
META_SUFFIX = ".mp4.meta.json.gz"  # what marks a video as simulator footage


def _footage_frames(videos: Path, n: int) -> list[tuple[str, bytes]]:
    """(episode, PNG) of the middle frame of up to ``n`` simulator episodes under ``videos``."""
    import io

    import av
    from PIL import Image

    out: list[tuple[str, bytes]] = []
    for meta in sorted(videos.rglob(f"*{META_SUFFIX}"))[:n]:
        video = meta.with_name(meta.name.removesuffix(".meta.json.gz"))
        try:
            with av.open(str(video)) as c:
                stream = c.streams.video[0]
                middle = max(0, (stream.frames or 1) // 2)
                frame = None
                for i, f in enumerate(c.decode(stream)):
                    frame = f
                    if i >= middle:
                        break
        except (OSError, av.error.FFmpegError):
            continue
        if frame is None:
            continue
        img = frame.to_image()
        img.thumbnail((320, 320), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        img.save(buf, format="PNG", optimize=True)
        out.append((video.stem, buf.getvalue()))
    return out


def _footage_section(reports: Sequence[RunReport]) -> str:
    """A few frames of the simulator footage the runs were evaluated on, if any."""
    folders = []
    for rep in reports:
        v = (rep.meta.get("config") or {}).get("videos")
        if v and Path(v).is_dir() and Path(v) not in folders:
            folders.append(Path(v))
    shots: list[tuple[str, bytes]] = []
    for folder in folders:
        shots += _footage_frames(folder, FOOTAGE_FRAMES - len(shots))
        if len(shots) >= FOOTAGE_FRAMES:
            break
    if not shots:
        return _absent("no simulator footage in these runs' video folders")
    return "<p>Middle frames of the generated episodes the runs watched.</p>" + "".join(
        f"<figure>{_img(png, name)}<figcaption>{_e(name)}</figcaption></figure>"
        for name, png in shots
    )


Progress = Callable[[str, int, int], None]  # (what is being done, steps done, steps in all)


def _blind_section(reports: Sequence[RunReport]) -> str:
    """Each task's score beside a text-only model's (VSI-Bench-Debiased reports both)."""
    shown = [r for r in reports if r.blind is not None]
    if not shown:
        return _absent(
            "no blind scores found: run `streamspatial qc blind DATA --out blind.json` beside "
            "the benchmark file (a generated benchmark's pruned manifest.json is read as well)"
        )
    out = []
    for r in shown:
        assert r.blind is not None
        notes = "".join(f'<p class="note">{_e(n)}</p>' for n in r.blind.notes)
        out.append(
            f"<h3>{_e(_run_name(r))} — {_e(r.table.name)}</h3>"
            + html_table(r.blind.columns, r.blind.rows, run=_run_name(r))
            + notes
            + f'<p class="note">blind scores: {_e(r.blind_source)}</p>'
        )
    return "".join(out)


def build_html(
    run_dirs: Sequence[Path],
    *,
    title: str | None = None,
    progress: Progress | None = None,
    blind: Path | None = None,
) -> str:
    """The page for these runs; also (re)writes each run's scores.json and report.md.

    ``progress`` hears of every run scored and every section drawn (the figures take a
    few seconds for a dozen runs)."""
    tick = progress or (lambda *_: None)
    reports: list[RunReport] = []

    def paper_tables() -> str:
        return "".join(
            f"<details{' open' if len(reports) <= 3 else ''}>"
            f"<summary>{_e(label[r.run_dir])} — {_e(r.table.name)}</summary>"
            + _paper_table(r.table, _run_name(r))
            + "</details>"
            for r in reports
        )

    sections: list[tuple[str, str, Callable[[], str]]] = [
        ("runs", "Runs", lambda: _runs_section(reports)),
        ("tables", "Paper tables", paper_tables),
        ("levels", "Accuracy per level / task", lambda: _headline_section(reports)),
        ("blind", "Vision–blind gap", lambda: _blind_section(reports)),
        ("heatmap", "Frame policy × model", lambda: _heatmap_section(reports)),
        ("thinking", "Thinking vs non-thinking", lambda: _thinking_section(reports)),
        ("interval", "Accuracy vs time", lambda: _interval_section(reports, queries)),
        ("trajectories", "VCBench trajectories", lambda: _trajectory_section(reports, label)),
        ("recall", "Evidence recall (ER/CR)", lambda: _recall_section(reports, queries)),
        ("sources", "Per-source accuracy", lambda: _source_section(reports)),
        ("length", "Length vs accuracy", lambda: _length_section(queries)),
        ("taxonomy", "Error taxonomy", lambda: _taxonomy_section(reports, label)),
        ("footage", "Footage", lambda: _footage_section(reports)),
    ]
    total = len(run_dirs) + len(sections)
    for d in run_dirs:
        tick(f"scoring {Path(d).name}", len(reports), total)
        reports.append(write_report(d, blind=blind))
    label = run_labels(reports)
    queries = [run_queries(r, label[r.run_dir]) for r in reports]
    names = sorted({r.table.name for r in reports})
    page = Page(title or f"streamspatial report — {', '.join(names)}")
    for k, (anchor, heading, draw) in enumerate(sections):
        tick(heading, len(reports) + k, total)
        page.add(anchor, heading, draw())
    tick("done", total, total)
    return page.render()


def write_html(
    run_dirs: Sequence[Path],
    out: Path,
    *,
    title: str | None = None,
    progress: Progress | None = None,
    blind: Path | None = None,
) -> Path:
    """Write the page atomically (a reader never sees half a file)."""
    text = build_html(run_dirs, title=title, progress=progress, blind=blind)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out


__all__ = ["REPORT_HTML", "build_html", "html_table", "write_html"]
