"""``streamspatial run / report / compare`` as a user runs them: real subprocesses, real HTTP.

The loopback server runs in this process; the CLI runs as ``python -m streamspatial`` so that
SIGKILL hits a real process at a random moment, and whatever it left behind must resume to the
records of an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, write_ovos
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.testing.openai_server import FakeOpenAIServer

KEY = "sk-canary-7f3a9c2e51d04b8e"
N_QUERY_POINTS = 11


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def cli(*args: str | Path, env: dict[str, str] | None = None) -> list[str]:
    return [sys.executable, "-m", "streamspatial", *map(str, args)]


def run_args(
    data: Path, videos: Path, out: Path, server: FakeOpenAIServer, policy: str = "uniform-8"
) -> list[str]:
    return cli(
        "run",
        "--data",
        data,
        "--videos",
        videos,
        "--model",
        "openai:test-model",
        "--policy",
        policy,
        "--out",
        out,
        "--base-url",
        server.base_url,
        "--concurrency",
        "2",
        "--frame-size",
        "112",
    )


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = KEY
    return env


def run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, env=environment(), timeout=timeout)


class Invoked:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def invoke(monkeypatch, capsys):
    """The CLI in this process (fast; no interpreter start-up): same parsing, same exit codes."""
    from streamspatial.cli import main

    for k in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def call(args: list[str]) -> Invoked:
        assert args[:3] == [sys.executable, "-m", "streamspatial"]
        capsys.readouterr()
        try:
            main(args[3:])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        captured = capsys.readouterr()
        return Invoked(rc, captured.out, captured.err)

    return call


def outcome(out: Path) -> dict[tuple[str, int], tuple[object, object]]:
    return {r.key: (r.extracted, r.score) for r in read_records(out / PREDICTIONS)}


def _lines(out: Path) -> int:
    path = out / PREDICTIONS
    return path.read_bytes().count(b"\n") if path.exists() else 0


def sigkill_trials(bench, tmp_path: Path, trials: int, seed: int) -> None:
    data, videos = bench
    rng = random.Random(seed)
    with FakeOpenAIServer(answer_from_frames, fps=FPS, latency=0.15) as server:
        ref = run(run_args(data, videos, tmp_path / "reference", server))
        assert ref.returncode == 0, ref.stderr
        reference = outcome(tmp_path / "reference")
        assert len(reference) == N_QUERY_POINTS
        out = tmp_path / "killed"
        seen: list[int] = []
        for trial in range(trials):
            mid_run = trial % 2 == 1
            # A kill after completion tests nothing more, and a mid-run kill needs room to
            # land before the end: start a fresh series of kills.
            if _lines(out) >= (N_QUERY_POINTS - 2 if mid_run else N_QUERY_POINTS):
                shutil.rmtree(out)
            proc = subprocess.Popen(
                run_args(data, videos, out, server),
                env=environment(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if not mid_run:  # anywhere, start-up and completion included
                time.sleep(rng.uniform(0.1, 2.0))
            else:
                # Mid-run, whatever the machine's speed: once the run has written more records
                # (a random number of them), at a random moment before it can finish.  Records
                # land at most two at a time (--concurrency 2), so stopping the wait at N - 2
                # keeps the kill before the last one.
                done = _lines(out)
                target = rng.randint(done + 1, N_QUERY_POINTS - 2)
                deadline = time.monotonic() + 60
                while _lines(out) < target and proc.poll() is None:
                    assert time.monotonic() < deadline
                    time.sleep(0.002)
                until = time.monotonic() + rng.uniform(0.0, 0.2)
                while (
                    time.monotonic() < until
                    and _lines(out) < N_QUERY_POINTS - 2
                    and proc.poll() is None
                ):
                    time.sleep(0.002)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            seen.append(_lines(out))
        assert any(0 < n < N_QUERY_POINTS for n in seen), seen  # some kills hit mid-run
        final = run(run_args(data, videos, out, server))
    assert final.returncode == 0, final.stderr
    assert outcome(out) == reference
    lines = (out / PREDICTIONS).read_text().splitlines()
    assert len(lines) == N_QUERY_POINTS  # nothing duplicated, nothing lost
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["status"] == "complete" and meta["counts"]["records"] == N_QUERY_POINTS
    # The reports agree too.
    for folder in (tmp_path / "reference", out):
        assert run(cli("report", folder)).returncode == 0
    scores = [
        json.loads((f / "scores.json").read_text())["table"] for f in (tmp_path / "reference", out)
    ]
    assert scores[0] == scores[1]


def test_sigkill_at_random_moments_then_resume_matches_uninterrupted(bench, tmp_path) -> None:
    sigkill_trials(bench, tmp_path, trials=4, seed=1)


@pytest.mark.slow
def test_sigkill_ten_trials(bench, tmp_path) -> None:
    sigkill_trials(bench, tmp_path, trials=10, seed=2)


def test_key_never_reaches_the_run_folder_or_logs(bench, tmp_path: Path) -> None:
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        proc = run(run_args(data, videos, out, server))
        assert proc.returncode == 0, proc.stderr
        assert server.requests and all(
            r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests
        )
    rep = run(cli("report", out))
    assert rep.returncode == 0
    for text in (proc.stdout, proc.stderr, rep.stdout, rep.stderr):
        assert KEY not in text
    # Not a TTY: no progress bar, just the one summary line.
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {PREDICTIONS, RUN_JSON, "scores.json", "report.md"}
    for p in files:
        assert KEY.encode() not in p.read_bytes(), p


def test_errors_are_recorded_exit_1_and_retry_errors_fixes_them(
    invoke, bench, tmp_path: Path
) -> None:
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer(answer_from_frames, fps=FPS, faults=["500"] * 200) as server:
        proc = invoke([*run_args(data, videos, out, server), "--max-retries", "0"])
    assert proc.returncode == 1
    records = read_records(out / PREDICTIONS)
    assert len(records) == N_QUERY_POINTS and all(r.error for r in records)
    assert json.loads((out / RUN_JSON).read_text())["status"] == "errors"
    rep = invoke(cli("report", out))
    assert rep.returncode == 0 and "Overall" in rep.stdout
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        plain = invoke(run_args(data, videos, out, server))  # errors stay recorded: nothing asked
        assert plain.returncode == 1 and not server.requests
        retry = invoke([*run_args(data, videos, out, server), "--retry-errors"])
        assert retry.returncode == 0, retry.stderr
        assert len(server.requests) == N_QUERY_POINTS
    records = read_records(out / PREDICTIONS)
    assert len(records) == N_QUERY_POINTS and not any(r.error for r in records)
    assert json.loads((out / RUN_JSON).read_text())["status"] == "complete"


def test_resume_refuses_a_different_config_and_force_starts_over(invoke, bench, tmp_path) -> None:
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        assert invoke(run_args(data, videos, out, server)).returncode == 0
        again = invoke(run_args(data, videos, out, server))  # same command: nothing to do
        assert again.returncode == 0 and "11 resumed, 0 new" in again.stderr
        n = len(server.requests)
        other = invoke(run_args(data, videos, out, server, policy="single@query"))
        assert other.returncode == 2
        assert other.stderr.count("\n") == 1 and "different configuration" in other.stderr
        assert len(server.requests) == n
        forced = invoke([*run_args(data, videos, out, server, policy="single@query"), "--force"])
        assert forced.returncode == 0
    assert {r.policy for r in read_records(out / PREDICTIONS)} == {"single@query"}


def test_yaml_config_runs_and_its_errors_are_one_line(invoke, bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        good = tmp_path / "run.yaml"
        good.write_text(
            f"data: {data}\nvideos: {videos}\nmodel: openai:test-model\n"
            f"base-url: {server.base_url}\npolicy: single@query\n"
            f"out: {tmp_path / 'run'}\nframe_size: 112\n"
        )
        proc = invoke(cli("run", "--config", good))
        assert proc.returncode == 0, proc.stderr
    assert len(read_records(tmp_path / "run" / PREDICTIONS)) == N_QUERY_POINTS
    for text, expect in [
        ("polcy: uniform-8\n", "field 'polcy': unknown option"),
        ("concurrency: lots\n", "field 'concurrency': expected a valid integer"),
    ]:
        bad = tmp_path / "bad.yaml"
        bad.write_text(good.read_text() + text)
        proc = invoke(cli("run", "--config", bad))
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and str(bad) in proc.stderr and expect in proc.stderr
        assert "Traceback" not in proc.stderr


def test_user_mistakes_exit_2_with_one_line(invoke, bench, tmp_path: Path) -> None:
    data, videos = bench
    cases = [
        (["--policy", "uniform-0"], "policy"),
        (["--model", "nonsense:x"], "unknown model spec"),
        (["--videos", str(tmp_path / "nowhere")], "video"),
    ]
    for extra, expect in cases:
        args = cli(
            "run",
            "--data",
            data,
            "--videos",
            videos,
            "--model",
            "random",
            "--out",
            tmp_path / "o",
            *extra,
        )
        proc = invoke(args)
        assert proc.returncode == 2, (extra, proc.stderr)
        assert proc.stderr.count("\n") == 1 and expect in proc.stderr, proc.stderr


def test_compare_ranks_runs_and_marks_offline(invoke, bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        for name, policy in [
            ("uni", "uniform-8"),
            ("oracle", "oracle-evidence-8"),
            ("blind", "none"),
        ]:
            assert invoke(run_args(data, videos, tmp_path / name, server, policy)).returncode == 0
    proc = invoke(cli("compare", tmp_path / "uni", tmp_path / "oracle", tmp_path / "blind"))
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("| ") and "rank" not in ln]
    assert len(lines) == 3
    assert any("oracle-evidence-8 (offline)" in ln for ln in lines)
    overall = [float(ln.strip("|").split("|")[-1]) for ln in lines]
    assert overall == sorted(overall, reverse=True)


def test_text_only_run_needs_no_videos(invoke, bench, tmp_path: Path) -> None:
    data, _ = bench
    proc = invoke(
        cli(
            "run",
            "--data",
            data,
            "--videos",
            tmp_path / "nowhere",
            "--model",
            "random",
            "--policy",
            "none",
            "--out",
            tmp_path / "run",
        )
    )
    assert proc.returncode == 0, proc.stderr
    records = read_records(tmp_path / "run" / PREDICTIONS)
    assert len(records) == N_QUERY_POINTS and all(r.frame_times == [] for r in records)
    # random is seeded per item: a second run in a new folder answers identically
    again = invoke(
        cli(
            "run",
            "--data",
            data,
            "--videos",
            tmp_path / "nowhere",
            "--model",
            "random",
            "--policy",
            "none",
            "--out",
            tmp_path / "run2",
        )
    )
    assert again.returncode == 0
    assert outcome(tmp_path / "run") == outcome(tmp_path / "run2")
