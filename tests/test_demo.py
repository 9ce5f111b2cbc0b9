"""``streamspatial demo`` end to end: generate, run the baselines through the runner, report."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

import streamspatial.sim  # noqa: F401  (picks a headless MUJOCO_GL before mujoco loads)
from streamspatial.cli import main
from streamspatial.cli.demo import run_demo

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
    report = run_demo(tmp_path, houses=1, minutes=0.4, size=(64, 48), spin_turns=2)
    text = report.read_text()
    for fmt in ("s3", "ovos", "vcbench"):
        assert f"## {fmt} —" in text
        for model in ("random", "frequent"):
            run = tmp_path / "runs" / f"{fmt}-{model}"
            scores = json.loads((run / "scores.json").read_text())
            assert scores["model"] == model
            assert scores["counts"]["records"] == scores["counts"]["planned"] > 0
    ovos = json.loads((tmp_path / "runs" / "ovos-random" / "scores.json").read_text())
    assert ovos["counts"]["errors"] == 0  # every generated OVO-S item is multiple choice
    assert (tmp_path / "benchmark" / "manifest.json").is_file()


def test_demo_probes_a_configured_model_text_only(tmp_path, chat_server):
    run_demo(tmp_path, houses=1, minutes=0.3, size=(64, 48), spin_turns=0, model="openai:toy")
    assert chat_server.seen, "the configured model was never asked"
    for body in chat_server.seen:
        for msg in body["messages"]:
            content = msg["content"]
            parts = content if isinstance(content, list) else [{"type": "text"}]
            assert all(p.get("type") == "text" for p in parts)  # blind: no frames sent
    assert (tmp_path / "runs" / "ovos-openai_toy" / "report.md").is_file()


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "not a demo folder" in capsys.readouterr().err


@pytest.mark.slow
def test_full_size_demo_from_the_command_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(tmp_path / "demo")])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "# streamspatial demo" in out and "ovos-frequent" in out
