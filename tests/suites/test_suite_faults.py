"""Fault suite: a misbehaving server over a few hundred query points, through the real CLI.

The loopback server answers 10 % 500, 10 % 503, 10 % 429 with ``Retry-After``, 5 % hangs past
the client timeout and 5 % malformed bodies (half of all calls fail).  The run must end with a
record for every query point, retries bounded by ``--max-retries``, exit status 1 exactly
when some record still holds an error, and ``--retry-errors`` must then finish the job.

Text-only (policy ``none``) keeps it fast; backoff is shrunk to milliseconds (``Retry-After``
is still honoured: the client waits at least what the server asks).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

import pytest

from memory_agent_fixtures import write_bench
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.testing.openai_server import FakeOpenAIServer

N_POINTS = 300
MAX_RETRIES = 5
RATES = {"500": 0.10, "503": 0.10, "429": 0.10, "hang": 0.05, "malformed": 0.05}
RETRY_AFTER = 0.05


@pytest.fixture
def invoke(monkeypatch, capsys):
    from streamspatial.cli import main

    for k in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(k)
    # Millisecond backoff instead of 0.5 s · 2^k: the schedule is not what is under test.
    monkeypatch.setattr(OpenAIChatBackend, "backoff", lambda self, attempt: 0.002 * 2**attempt)

    def call(*args: object) -> tuple[int, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        return rc, capsys.readouterr().err

    return call


def bench(root: Path, n_points: int) -> Path:
    rng = random.Random(3)
    queries: list[tuple[str, list[float]]] = []
    total = 0
    while total < n_points:
        k = min(rng.randint(1, 3), n_points - total)
        queries.append(("a.mp4", sorted(round(rng.uniform(0, 60), 2) for _ in range(k))))
        total += k
    data, _ = write_bench(root, {}, queries, fps=1.0)
    return data


def args(data: Path, out: Path, server: FakeOpenAIServer, *extra: object) -> list[object]:
    return [
        "run",
        "--data",
        data,
        "--videos",
        out.parent / "no-videos-needed",
        "--model",
        "openai:faulty",
        "--policy",
        "none",
        "--out",
        out,
        "--base-url",
        server.base_url,
        "--concurrency",
        "16",
        "--timeout",
        "0.3",
        "--max-retries",
        str(MAX_RETRIES),
        *extra,
    ]


def test_faulty_server_every_point_recorded_retries_bounded(invoke, tmp_path) -> None:
    data = bench(tmp_path, N_POINTS)
    out = tmp_path / "run"
    with FakeOpenAIServer(
        "A",
        fault_rates=RATES,
        seed=11,
        retry_after=str(RETRY_AFTER),
        hang_seconds=1.5,
    ) as server:
        t0 = time.monotonic()
        rc, err = invoke(*args(data, out, server))
        elapsed = time.monotonic() - t0
        calls = len(server.requests)
        faults = [r.fault for r in server.requests]
    records = read_records(out / PREDICTIONS)
    errors = [r for r in records if r.error]
    # Every query point ends with exactly one record, nothing lost, nothing duplicated.
    assert len(records) == N_POINTS
    assert len((out / PREDICTIONS).read_text().splitlines()) == N_POINTS
    # Retries are bounded: at most 1 + MAX_RETRIES calls per query point, and they happened.
    assert N_POINTS < calls <= N_POINTS * (1 + MAX_RETRIES)
    assert {f for f in faults if f} == set(RATES)  # every kind of fault was served
    # A record holding an error is one whose every attempt failed: scored wrong, not dropped.
    for r in errors:
        assert r.score == 0.0 and not r.valid and r.raw_output == ""
    for r in records:
        if r.error is None:
            assert r.extracted == "A" and r.score is not None
    # The exit status tells whether errors remain, and so does run.json.
    meta = json.loads((out / RUN_JSON).read_text())
    assert rc == (1 if errors else 0), err
    assert meta["status"] == ("errors" if errors else "complete")
    assert meta["counts"]["errors_total"] == len(errors)
    assert err.count("\n") == 1 and f"{len(errors)} with errors" in err, err
    print(
        f"faults: {N_POINTS} query points, {calls} calls ({calls - N_POINTS} retries), "
        f"{sum(f is not None for f in faults)} faults served, {len(errors)} left as errors, "
        f"{elapsed:.1f} s",
        file=sys.__stderr__,  # past capsys: the suite's figures for the log
    )

    # --retry-errors against a healthy server asks only the failed points and finishes clean.
    with FakeOpenAIServer("A") as healthy:
        rc, err = invoke(*args(data, out, healthy, "--retry-errors"))
        assert len(healthy.requests) == len(errors)
    assert rc == 0, err
    records = read_records(out / PREDICTIONS)
    assert len(records) == N_POINTS and not any(r.error for r in records)


def test_all_calls_failing_exit_1_with_every_point_recorded(invoke, tmp_path) -> None:
    data = bench(tmp_path, 40)
    out = tmp_path / "run"
    with FakeOpenAIServer("A", fault_rates={"503": 0.5, "malformed": 0.5}) as server:
        # (no hangs here: a deadline far from the busiest machine's response times, so every
        # attempt reaches the server and the count is exact)
        rc, err = invoke(*args(data, out, server, "--max-retries", "2", "--timeout", "30"))
        assert len(server.requests) == 40 * 3  # bounded: exactly 1 + 2 retries each
    records = read_records(out / PREDICTIONS)
    assert rc == 1 and len(records) == 40 and all(r.error for r in records), err
    assert json.loads((out / RUN_JSON).read_text())["status"] == "errors"
