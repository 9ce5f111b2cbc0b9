"""``streamspatial run`` against a real ``transformers serve`` hosting the tiny VLM we build.

The loopback fake server shows what the harness sends; this one shows that a real
OpenAI-compatible server accepts it: images as data URLs, only the sampling fields the user
set (the server answers 422 to a field it does not know), and a dead or refusing server
stopping the run with one line.  Skipped, with the reason, where the ``serving`` extra of
transformers (FastAPI, uvicorn, openai, accelerate) is not installed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("torch", reason="the tiny VLM needs torch (the 'hf' extra)")
transformers = pytest.importorskip("transformers", reason="needs the 'hf' extra")

from runner_fixtures import write_ovos  # noqa: E402
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records  # noqa: E402


def _serve_available() -> bool:
    try:
        from transformers.utils.import_utils import is_serve_available
    except ImportError:
        return False
    return bool(is_serve_available())


pytestmark = pytest.mark.skipif(
    not _serve_available(),
    reason="transformers serve needs its serving extra: pip install 'streamspatial[serving]'",
)

SERVE = (
    "import sys; from transformers.cli.transformers import main; "
    "sys.argv[0] = 'transformers'; sys.exit(main())"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``transformers serve <tiny-vlm>`` on a loopback port; yields (base URL, model name)."""
    from streamspatial.testing import build_tiny_vlm

    model = build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm") / "tiny")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with log.open("w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, "serve", "--host", "127.0.0.1", "--port", str(port),
             str(model)],
            stdout=fh, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, log.read_text()[-2000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1", str(model)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def run(*args: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run(
        [sys.executable, "-m", "streamspatial", "run", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip


def test_a_run_against_transformers_serve_completes(server, bench, tmp_path) -> None:
    base_url, model = server
    data, videos = bench
    out = tmp_path / "run"
    proc = run(
        "--data", data, "--videos", videos, "--model", f"openai:{model}", "--base-url", base_url,
        "--policy", "uniform-2", "--limit", "3", "--max-tokens", "8", "--out", out,
        "--concurrency", "2", "--no-progress",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    records = read_records(out / PREDICTIONS)
    assert records and not any(r.error for r in records)
    # the server read the images: two frames' tokens on top of the text
    assert all(r.prompt_tokens > 0 and 0 < r.completion_tokens <= 8 for r in records)
    assert all(len(r.frame_times) == 2 for r in records)
    assert json.loads((out / RUN_JSON).read_text())["status"] == "complete"


def test_a_field_the_server_refuses_stops_the_run_with_one_line(server, bench, tmp_path) -> None:
    base_url, model = server
    data, videos = bench
    config = tmp_path / "run.yaml"
    config.write_text("extra_body: {not_a_field: 1}\n")
    out = tmp_path / "run"
    proc = run(
        "--data", data, "--videos", videos, "--model", f"openai:{model}", "--base-url", base_url,
        "--policy", "single@query", "--limit", "2", "--config", config, "--out", out,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "HTTP 422" in proc.stderr, proc.stderr
    assert "not_a_field" in proc.stderr and "Traceback" not in proc.stderr
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["status"] == "failed" and "HTTP 422" in meta["reason"]
