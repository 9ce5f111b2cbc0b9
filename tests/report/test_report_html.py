"""``report --html``: the page's numbers equal scores.json; each figure drawn or explained."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from report_fixtures import (
    ovos_runs,
    vcbench_run,
    without_diagnostics,
    write_vcbench,
)
from runner_fixtures import write_ovos
from streamspatial.cli import main
from streamspatial.report.queries import (
    QueryRow,
    RunQueries,
    length_vs_accuracy,
    level_controlled_spearman,
    spearman,
)
from streamspatial.report.tables import headline


class Cells(HTMLParser):
    """Every number cell (``data-value``) with its data attributes, and every section."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.sections: list[str] = []
        self.images: list[bytes] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "td" and "data-value" in a:
            self.cells.append(a)
        if tag == "h2":
            self.sections.append(a.get("id", ""))
        if tag == "img":
            self.images.append(base64.b64decode(a["src"].split("base64,", 1)[1]))


def parse(path: Path) -> tuple[Cells, str]:
    text = path.read_text(encoding="utf-8")
    p = Cells()
    p.feed(text)
    return p, text


def section(text: str, anchor: str) -> str:
    start = text.index(f'<h2 id="{anchor}">')
    end = text.find("<h2 ", start + 1)
    return text[start : end if end > 0 else None]


@pytest.fixture(scope="module")
def ovos(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("html")
    data, videos = write_ovos(root)
    runs = ovos_runs(root / "runs", data, videos)
    return runs


def run_cli(args: list[str]) -> None:
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        assert exc.code in (0, None), exc


def test_page_numbers_equal_scores_json(ovos, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    run_cli(["report", *ovos.values(), "--html", "--html-out", out])
    cells, text = parse(out)
    assert text.startswith("<!doctype html>") and "http" not in re.sub(r'href="#\w+"', "", text)
    for name, run in ovos.items():
        scores = json.loads((run / "scores.json").read_text())
        mine = [c for c in cells.cells if c.get("data-run") == run.name]
        # Paper table: every number in scores.json's table appears with its exact value.
        for row in scores["table"]["rows"]:
            for col, value in row.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    assert any(
                        c["data-col"] == col and float(c["data-value"]) == value for c in mine
                    ), (name, col, value)
        # Headline row (accuracy per level): exactly scores.json's headline numbers.
        for key, value in scores["headline"].items():
            found = [c for c in mine if c["data-col"] == key]
            assert value is None or any(float(c["data-value"]) == value for c in found), key
    # Heatmap cells equal each run's Overall.
    heat = Cells()
    heat.feed(section(text, "heatmap"))
    overall = {(c["data-policy"], c["data-col"]): float(c["data-value"]) for c in heat.cells}
    m2 = json.loads((ovos["m2-single@query"] / "scores.json").read_text())
    assert overall[("single@query", "openai:m2")] == m2["headline"]["Overall"]
    assert len(overall) == 2 * 2 + 2  # m1, m2 × 2 policies; ±think on uniform-8
    # Thinking delta = on − off per headline key.
    think = Cells()
    think.feed(section(text, "thinking"))
    on = json.loads((ovos["think-True"] / "scores.json").read_text())["headline"]
    off = json.loads((ovos["think-False"] / "scores.json").read_text())["headline"]
    deltas = {c["data-col"]: float(c["data-value"]) for c in think.cells}
    assert deltas == {k: on[k] - off[k] for k in on}


def test_every_figure_is_drawn_or_explained(ovos, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    run_cli(["report", *ovos.values(), "--html", "--html-out", out])
    cells, text = parse(out)
    assert cells.sections == [
        "runs", "tables", "levels", "blind", "heatmap", "thinking", "interval", "trajectories",
        "recall", "sources", "length", "taxonomy", "footage",
    ]  # fmt: skip
    assert all(img.startswith(b"\x89PNG") for img in cells.images)
    # Drawn: levels, heatmap, both interval plots, recall, sources.
    for anchor, n_images in (("levels", 1), ("heatmap", 1), ("interval", 2), ("recall", 1),
                             ("sources", 1)):  # fmt: skip
        assert section(text, anchor).count("<img") == n_images, anchor
    # Explained: no VCBench run, no taxonomy, no human run.
    assert "no VCBench run among the inputs" in section(text, "trajectories")
    assert "no error taxonomy" in section(text, "taxonomy")
    assert "no simulator footage" in section(text, "footage")
    assert "no blind scores found" in section(text, "blind")
    assert "Reference rows not among the inputs: Human" in section(text, "levels")
    # Reference rows are marked and listed first.
    levels = section(text, "levels")
    assert levels.index("<td>Text-only</td>") < levels.index("openai:m1 · uniform-8")
    assert levels.count('class="ref"') == 2


def test_blind_scores_stand_beside_the_runs(ovos, tmp_path: Path) -> None:
    run = ovos["m1-uniform-8"]
    records = [json.loads(line) for line in (run / "predictions.jsonl").open()]
    tasks = sorted({f"{r['benchmark']}/{r['task']['task']}" for r in records})
    blind = tmp_path / "blind.json"
    rows = [{"task": t, "chance": 0.25, "blind": 0.3, "items": 30} for t in tasks]
    blind.write_text(json.dumps({"tasks": rows}))
    out = tmp_path / "page.html"
    run_cli(["report", run, "--html", "--html-out", out, "--blind", blind])
    _, text = parse(out)
    gap = section(text, "blind")
    assert gap.count("<tr>") == len(tasks) + 1  # header + one row per task
    assert "vision_gap" in gap and str(blind) in gap
    scores = json.loads((run / "scores.json").read_text())
    assert [r["task"] for r in scores["vision_blind_gap"]["rows"]] == tasks
    assert "Vision–blind gap" in (run / "report.md").read_text()


def test_single_run_without_data_explains_what_is_missing(ovos, tmp_path: Path) -> None:
    run = without_diagnostics(ovos["m1-uniform-8"], tmp_path / "old-run")
    run_cli(["report", run, "--html"])
    _, text = parse(run / "report.html")
    assert "no policy × model heatmap" in section(text, "heatmap")
    assert "no thinking vs non-thinking pair" in section(text, "thinking")
    assert "no run with ER/CR data" in section(text, "recall")
    assert "<img" in section(text, "levels")


def test_recall_pearson_and_vcbench_trajectories(ovos, tmp_path: Path) -> None:
    root = tmp_path
    data = write_vcbench(root)
    videos = ovos["m1-uniform-8"].parent.parent / "videos"
    vc = vcbench_run(root, data, videos)
    out = root / "vc.html"
    run_cli(["report", vc, "--html", "--html-out", out])
    cells, text = parse(out)
    scores = json.loads((vc / "scores.json").read_text())
    traj = section(text, "trajectories")
    assert traj.count("<img") == 1
    assert headline_matches(cells, vc.name, scores)
    # Per-question GPA in the page; their mean is scores.json's Overall GPA.
    overall_gpa = next(r for r in scores["table"]["rows"] if r["subcategory"] == "Overall")["gpa"]
    traj_cells = Cells()
    traj_cells.feed(traj)
    gpas = [float(c["data-value"]) for c in traj_cells.cells if c.get("data-col") == "gpa"]
    assert len(gpas) == 3 and sum(gpas) / 3 == pytest.approx(overall_gpa, abs=1e-12)
    # ER/CR: the recall section reports a Pearson r equal to one computed here.
    out2 = root / "er.html"
    run_cli(["report", ovos["m1-single@query"], "--html", "--html-out", out2])
    _, text2 = parse(out2)
    rec = Cells()
    rec.feed(section(text2, "recall"))
    r_page = next(float(c["data-value"]) for c in rec.cells if c.get("data-col") == "r")
    pairs = []
    from streamspatial.eval.results import iter_records

    for r in iter_records(ovos["m1-single@query"]):
        if r.diagnostics["evidence_recall"] is not None:
            pairs.append((r.diagnostics["evidence_recall"], r.score))
    xs, ys = zip(*pairs, strict=True)
    import numpy as np

    assert r_page == pytest.approx(float(np.corrcoef(xs, ys)[0, 1]), abs=1e-12)
    # CR / ER in the page are scores.json's diagnostics Overall row, exactly.
    diag = json.loads((ovos["m1-single@query"] / "scores.json").read_text())["diagnostics"]
    overall = next(r for r in diag["rows"] if r["level"] == "Overall")
    shown = {c["data-col"]: float(c["data-value"]) for c in rec.cells if "data-run" in c}
    assert {k: shown[k] for k in ("n", "cr", "er", "n_er")} == {
        k: overall[k] for k in ("n", "cr", "er", "n_er")
    }
    assert section(text2, "recall").count("<img") == 1


def headline_matches(cells: Cells, run: str, scores: dict) -> bool:
    mine = {c["data-col"]: float(c["data-value"]) for c in cells.cells if c.get("data-run") == run}
    return all(v is None or mine.get(k) == v for k, v in scores["headline"].items())


def test_spearman_matches_scipy_and_level_control_removes_level_effect() -> None:
    from scipy.stats import spearmanr

    xs = [1.0, 2.0, 2.0, 5.0, 7.0, 3.0]
    ys = [0.1, 0.4, 0.3, 0.9, 0.5, 0.5]
    assert spearman(xs, ys) == pytest.approx(spearmanr(xs, ys).statistic, abs=1e-12)
    # Two levels: across levels length and accuracy move together, within each they are
    # exactly opposed, so the level-controlled ρ is −1 while the pooled ρ is positive.
    pts = [("L1", 1.0, 0.3), ("L1", 2.0, 0.2), ("L1", 3.0, 0.1),
           ("L2", 10.0, 0.9), ("L2", 11.0, 0.8), ("L2", 12.0, 0.7)]  # fmt: skip
    assert spearman([p[1] for p in pts], [p[2] for p in pts]) > 0
    assert level_controlled_spearman(pts) == pytest.approx(-1.0)
    assert spearman([1, 2], [1, 2]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_length_table_rows_per_level_and_controls() -> None:
    """Table 9 rows: per level, level-controlled, level+source-controlled.  Within each
    (level, source) group longer prefixes are less accurate, across groups more: only the
    level+source-controlled ρ sees the within-group effect in full (−1)."""
    rows = []
    groups = [("L1", "a", 0, 0.1), ("L1", "b", 10, 0.5), ("L2", "a", 20, 0.3), ("L2", "b", 30, 0.8)]
    for level, source, base_t, base_acc in groups:
        for k in range(3):
            rows.append(QueryRow(item_id=f"{level}{source}{k}", query_index=0,
                                 t_q=float(base_t + k), level=level, score=base_acc - 0.01 * k,
                                 evidence=((0.0, 0.5 + k),), er=None, cr=None, frame_times=(),
                                 source=source))  # fmt: skip
    table = {r.scope: r for r in length_vs_accuracy([RunQueries("x", rows, True)])}
    assert list(table) == ["L1", "L2", "Level-controlled", "Level+source-controlled"]
    assert table["Level+source-controlled"].prefix_rho == pytest.approx(-1.0)
    assert table["Level+source-controlled"].evidence_rho == pytest.approx(-1.0)
    assert table["L1"].prefix_rho > 0 and table["L1"].prefix_n == 6


def test_headline_is_the_leaderboard_source(ovos) -> None:
    """Guard: the page reads headline() like compare does (no second definition)."""
    from streamspatial.report import load_run

    rep = load_run(ovos["m2-uniform-8"])
    assert set(headline(rep.table)) == {"L1", "L2", "L3", "L4", "Overall"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 4)), min_size=3, max_size=25))
def test_spearman_equals_scipy_with_ties(pairs) -> None:
    from scipy.stats import spearmanr

    xs = [float(p[0]) for p in pairs]
    ys = [float(p[1]) for p in pairs]
    ours = spearman(xs, ys)
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        assert ours is None
    else:
        assert ours == pytest.approx(float(spearmanr(xs, ys).statistic), abs=1e-9)


def test_reference_rows_are_baselines_text_only_models_and_humans_only() -> None:
    """A memory agent run with policy ``none`` still sees the video: it is no Text-only row."""
    from types import SimpleNamespace

    from streamspatial.report.runs import reference_kind

    def kind(**cfg):
        return reference_kind(SimpleNamespace(meta={"config": cfg}))

    assert kind(model="random", policy="none") == "Random"
    assert kind(model="frequent", policy="none") == "Frequent"
    assert kind(model="human:ana", policy="human-streaming") == "Human"
    assert kind(model="openai:m", policy="none", agent="policy") == "Text-only"
    assert kind(model="openai:m", policy="none") == "Text-only"
    assert kind(model="rules", policy="none", agent="scene-graph-rules") is None
    assert kind(model="openai:m", policy="none", agent="folding") is None
    assert kind(model="openai:m", policy="uniform-8", agent="policy") is None


def test_memory_agent_runs_are_told_apart_by_their_perception() -> None:
    from types import SimpleNamespace

    from streamspatial.report.runs import policy_label

    def label(**cfg):
        return policy_label(SimpleNamespace(meta={"config": cfg}, offline=False))

    assert label(agent="policy", policy="uniform-8") == "uniform-8"
    perfect = label(agent="scene-graph-rules", policy="none", perception="ground-truth")
    noisy = label(agent="scene-graph-rules", policy="none", perception="ground-truth:noise=1")
    assert perfect == "scene-graph-rules[ground-truth]"
    assert noisy == "scene-graph-rules[ground-truth:noise=1]"
    assert label(agent="folding", policy="uniform-8") == "folding:uniform-8"
