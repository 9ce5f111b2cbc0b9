"""``streamspatial demo`` end to end: generate, run the baselines through the runner, report."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from rich.console import Console

import streamspatial.sim  # noqa: F401  (picks a headless MUJOCO_GL before mujoco loads)
from streamspatial.cli import main
from streamspatial.cli.demo import headline_table, run_demo

pytest.importorskip("mujoco")


class _Chat(BaseHTTPRequestHandler):
    """A loopback OpenAI-compatible endpoint that answers "A" and records what it was sent."""

    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        out = json.dumps({"choices": [{"message": {"content": "The answer is A."}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args) -> None:
        return None


@pytest.fixture
def chat_server(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Chat.seen = []
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    yield _Chat
    server.shutdown()


def test_demo_generates_evaluates_and_reports(tmp_path):
    result = run_demo(
        tmp_path, houses=1, minutes=0.4, size=(64, 48), spin_turns=2, rule_agents=False
    )
    text = result.report.read_text()
    for fmt in ("s3", "ovos", "vcbench"):
        assert f"## {fmt} —" in text
        run = tmp_path / "runs" / f"{fmt}-frequent"
        scores = json.loads((run / "scores.json").read_text())
        assert scores["model"] == "frequent"
        assert scores["counts"]["records"] == scores["counts"]["planned"] > 0
        points = scores["counts"]["planned"]
        assert re.search(rf"## {fmt} — \d+ items, {points} query points", text)
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links and all((tmp_path / link).is_file() for link in links), links
    assert result.html == tmp_path / "report.html" and result.html.is_file()
    # Random answers choice items only: on S3 it skips the numeric ones (and says so) …
    s3 = json.loads((tmp_path / "runs" / "s3-random" / "scores.json").read_text())
    assert s3["counts"]["errors"] == 0 and s3["counts"]["not_applicable"] > 0
    assert s3["counts"]["records"] == s3["counts"]["planned"] > 0
    ovos = json.loads((tmp_path / "runs" / "ovos-random" / "scores.json").read_text())
    assert ovos["counts"]["errors"] == 0  # every generated OVO-S item is multiple choice
    # … and on the all-numeric VCBench file it is not run at all, which the report says.
    assert not (tmp_path / "runs" / "vcbench-random").exists()
    assert [r.format for r in result.runs].count("vcbench") == 1
    assert result.skipped == {
        "vcbench": ["random (answers choice items only and this file has none)"]
    }
    assert "Not run on this file: random (answers choice items only" in text
    assert "numeric items count as wrong" not in text
    assert "rule agents have no rule" not in text  # they did not run here
    assert (tmp_path / "benchmark" / "manifest.json").is_file()
    # The closing headline: one row per contender, a dash where it did not run.
    console = Console(width=120, record=True)
    console.print(headline_table(result.runs))
    table = console.export_text()
    lines = [
        [c.strip() for c in ln.strip("│┃ ").split("│" if ln.startswith("│") else "┃")]
        for ln in table.splitlines()
        if ln.startswith(("│ ", "┃ "))
    ]
    head, body = lines[0], lines[1:]
    rows = {cells[0]: dict(zip(head, cells, strict=True)) for cells in body}
    assert "S3 Overall" in table and "OVO-S Overall" in table and "VCBench GPA" in table
    assert set(rows) == {"random", "frequent"}
    random_row = rows["random"]
    assert random_row["VCBench GPA"] == "–"  # random: not run on the all-numeric VCBench file
    assert float(random_row["S3 Overall"]) >= 0 and float(random_row["OVO-S Overall"]) >= 0
    assert random_row["unanswered"].startswith("0/")
    assert "–" not in [rows["frequent"][c] for c in ("S3 Overall", "OVO-S Overall", "VCBench GPA")]


def test_demo_runs_the_rule_agent_with_perfect_and_noisy_perception(tmp_path):
    result = run_demo(tmp_path, houses=1, minutes=0.4, size=(64, 48), spin_turns=0)
    labels = {(r.format, r.contender.label) for r in result.runs}
    assert {("s3", "rules-perfect"), ("s3", "rules-noisy")} <= labels
    text = result.report.read_text()
    assert "rules-perfect" in text and "rules-noisy" in text
    assert "no rule for are left blank" in text
    scores = {
        (fmt, label): json.loads((tmp_path / "runs" / f"{fmt}-{label}" / "scores.json").read_text())
        for fmt in ("s3", "ovos")
        for label in ("rules-perfect", "rules-noisy", "random")
    }
    for fmt in ("s3", "ovos"):
        assert scores[(fmt, "rules-perfect")]["agent"] == "scene-graph-rules"
    # Perfect perception answers S3 by geometry, far above guessing, and noise cannot help;
    # OVO-S L1 (what is in view now) is answered exactly.
    perfect = scores[("s3", "rules-perfect")]["headline"]["Overall"]
    # On one short walk (~60 items) noise can flip an answer or two the right way by chance.
    assert perfect >= scores[("s3", "rules-noisy")]["headline"]["Overall"] - 0.05
    assert perfect > scores[("s3", "random")]["headline"]["Overall"] + 0.2
    assert scores[("ovos", "rules-perfect")]["headline"]["L1"] == 1.0
    # The noise reached the agent: some answers changed.
    outputs = {
        label: [
            json.loads(line)["raw_output"]
            for line in (tmp_path / "runs" / f"s3-{label}" / "predictions.jsonl").open()
        ]
        for label in ("rules-perfect", "rules-noisy")
    }
    assert outputs["rules-perfect"] != outputs["rules-noisy"]


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "not a demo folder" in capsys.readouterr().err


def test_demo_command_prints_the_headline_and_skips_agents_when_asked(tmp_path, capsys):
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--houses", "1", "--minutes", "0.3", "--size", "64x48"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--spin-turns", "0", "--no-agents"])
    assert exc.value.code == 0
    printed = capsys.readouterr().out
    html = out / "report.html"
    assert "headline" in printed and f"report: {html.resolve()}" in printed
    assert f"also: {out / 'report.md'}" in printed
    assert "not run on vcbench: random" in printed
    # One self-contained page: every run in it, figures embedded, nothing fetched.
    page = html.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") >= 3
    assert not re.search(r'(src|href)="(?!data:|#)', page)
    for run in ("ovos-frequent", "s3-random", "vcbench-frequent"):
        assert f'data-run="{run}"' in page
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert runs == [
        "ovos-frequent", "ovos-random", "s3-frequent", "s3-random", "ucs-frequent", "ucs-random",
        "vcbench-frequent",
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard, not a speed test: the demo takes 4-5 min on 2 cores
def test_full_size_demo_from_the_command_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(tmp_path / "demo")])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "headline" in out and "frequent" in out and "report:" in out
    assert (tmp_path / "demo" / "report.md").is_file()
    assert (tmp_path / "demo" / "report.html").is_file()
