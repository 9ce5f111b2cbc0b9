"""Secrets suite: an API key in the environment reaches the server and nothing else.

The key travels in the ``Authorization`` header only.  It must not appear in any file the run
leaves (predictions, run.json, the response cache, scores, report.md, report.html, plots),
in stdout/stderr, or in the log at DEBUG level — including when calls fail and error texts
are recorded, and when the key comes from a custom ``--api-key-env`` variable.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, write_ovos
from streamspatial.testing.openai_server import FakeOpenAIServer

KEY = "sk-suite-canary-94c1e0a7d2b64f58"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


@pytest.fixture
def invoke(capsys):
    from streamspatial.cli import main

    def call(*args: object) -> tuple[int, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        captured = capsys.readouterr()
        return rc, captured.out + captured.err

    return call


def files_under(*roots: Path) -> list[Path]:
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


@pytest.mark.parametrize("env_name", ["OPENAI_API_KEY", "MY_PROVIDER_TOKEN"])
def test_key_appears_nowhere_but_the_header(
    bench, tmp_path, invoke, monkeypatch, caplog, env_name: str
) -> None:
    data, videos = bench
    for k in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv(env_name, KEY)
    caplog.set_level(logging.DEBUG)
    out, cache = tmp_path / "run", tmp_path / "cache"
    texts: list[str] = []
    # Faults first (errors get recorded, retries get logged), then a clean retry of them.
    faults = ["500", "429", "malformed", "503"] * 3
    for server_faults, extra in [(faults, ["--max-retries", "1"]), ([], ["--retry-errors"])]:
        with FakeOpenAIServer(answer_from_frames, fps=FPS, faults=server_faults) as server:
            rc, text = invoke(
                "run",
                "--data",
                data,
                "--videos",
                videos,
                "--model",
                "openai:m",
                "--policy",
                "uniform-4",
                "--out",
                out,
                "--base-url",
                server.base_url,
                "--api-key-env",
                env_name,
                "--cache-dir",
                cache,
                "--frame-size",
                "64",
                "--timeout",
                "5",
                *extra,
            )
            texts.append(text)
            assert server.requests
            assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
    assert rc == 0, texts
    assert "with errors" in texts[0]
    reports = {"predictions.jsonl", "run.json"}
    if env_name == "OPENAI_API_KEY":  # the report (plots, HTML) once: it is the slow part
        rc, text = invoke("report", out, "--html")
        assert rc == 0, text
        texts.append(text)
        reports |= {"scores.json", "report.md", "report.html"}
    texts.append(caplog.text)
    assert "call failed" in caplog.text or "retrying" in caplog.text  # the log did say things
    for t in texts:
        assert KEY not in t
    written = files_under(out, cache)
    names = {p.name for p in written}
    assert reports <= names
    assert "responses.sqlite" in names
    for p in written:
        assert KEY.encode() not in p.read_bytes(), p


@pytest.mark.slow
def test_key_stays_out_of_a_ray_run_and_rays_own_logs(bench, tmp_path) -> None:
    """--executor ray in a real subprocess: the actors inherit the key from the environment of
    the Ray instance the CLI starts; it reaches the server and no file, not even Ray's logs."""
    import shutil
    import subprocess
    import sys
    import tempfile

    pytest.importorskip("ray")
    data, videos = bench
    ray_tmp = Path(tempfile.mkdtemp(prefix="rs"))  # short: Ray puts unix sockets under it
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(OPENAI_API_KEY=KEY, RAY_TMPDIR=str(ray_tmp))
    out = tmp_path / "run"
    try:
        with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
            proc = subprocess.run(
                [sys.executable, "-m", "streamspatial", "run", "--data", str(data),
                 "--videos", str(videos), "--model", "openai:m", "--policy", "uniform-4",
                 "--out", str(out), "--base-url", server.base_url, "--frame-size", "64",
                 "--executor", "ray", "--workers", "2"],
                capture_output=True, text=True, env=env, timeout=300,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr[-2000:]
            assert server.requests
            assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
        assert KEY not in proc.stdout + proc.stderr
        written = files_under(out, ray_tmp)
        assert any(p.suffix in (".out", ".err", ".log") for p in written)  # Ray did log
        for p in written:
            if p.is_symlink() or p.suffix in (".sock",):
                continue
            assert KEY.encode() not in p.read_bytes(), p
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
