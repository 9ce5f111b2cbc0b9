"""``--executor ray`` on a local Ray instance: same records and scores as the local executor,
resume through the same store, and a killed worker's video is taken over by a fresh actor.

Ray starts once for the module (``ray.init(num_cpus=2)``, a few seconds); each run starts its
actors (a few seconds more), so the module keeps to a handful of runs.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, write_ovos
from streamspatial.agents import PolicyAgent
from streamspatial.bench.registry import load_benchmark
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, PredictionWriter, read_records
from streamspatial.eval.runner import Runner
from streamspatial.testing.openai_server import FakeOpenAIServer

ray = pytest.importorskip("ray")

N_QUERY_POINTS = 11


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


@pytest.fixture
def invoke(monkeypatch, capsys):
    from streamspatial.cli import main

    def call(*args: object) -> tuple[int, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        return rc, capsys.readouterr().err

    return call


def run_args(data: Path, videos: Path, out: Path, server: FakeOpenAIServer) -> list[object]:
    return [
        "run",
        "--data",
        data,
        "--videos",
        videos,
        "--model",
        "openai:test-model",
        "--policy",
        "uniform-8",
        "--out",
        out,
        "--base-url",
        server.base_url,
        "--frame-size",
        "112",
        "--concurrency",
        "2",
    ]


def outcome(out: Path) -> dict[tuple[str, int], tuple[object, ...]]:
    return {
        r.key: (r.extracted, r.score, tuple(r.frame_times), r.error)
        for r in read_records(out / PREDICTIONS)
    }


def test_ray_matches_local_and_resumes_a_cut_store(local_ray, bench, tmp_path, invoke) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        rc, err = invoke(*run_args(data, videos, tmp_path / "local", server))
        assert rc == 0, err
        rc, err = invoke(
            *run_args(data, videos, tmp_path / "ray", server), "--executor", "ray", "--workers", "2"
        )
        assert rc == 0, err
        assert err.count("\n") == 1 and "3 video decode(s)" in err, err
        assert len(server.requests) == 2 * N_QUERY_POINTS
        reference = outcome(tmp_path / "local")
        assert len(reference) == N_QUERY_POINTS
        assert outcome(tmp_path / "ray") == reference
        # Same configuration hash: the executor is how a run goes, not what it computes.
        metas = [json.loads((tmp_path / d / RUN_JSON).read_text()) for d in ("local", "ray")]
        assert metas[0]["config_hash"] == metas[1]["config_hash"]
        assert metas[1]["status"] == "complete"
        assert metas[1]["counts"]["records"] == N_QUERY_POINTS
        for d in ("local", "ray"):
            assert invoke("report", tmp_path / d)[0] == 0
        scores = [json.loads((tmp_path / d / "scores.json").read_text()) for d in ("local", "ray")]
        assert scores[0]["table"] == scores[1]["table"]

        # A kill left four complete records and half of a fifth: resume on Ray keeps the four,
        # repairs the tail and asks only the seven missing query points.
        pred = tmp_path / "ray" / PREDICTIONS
        lines = pred.read_bytes().splitlines(keepends=True)
        pred.write_bytes(b"".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
        asked = len(server.requests)
        rc, err = invoke(*run_args(data, videos, tmp_path / "ray", server), "--executor", "ray")
        assert rc == 0, err
        assert "4 resumed, 7 new" in err, err
        assert len(server.requests) - asked == N_QUERY_POINTS - 4
    assert outcome(tmp_path / "ray") == reference
    assert len(pred.read_text().splitlines()) == N_QUERY_POINTS  # nothing duplicated


def driver_runner(
    data: Path, videos: Path, writer: PredictionWriter, concurrency: int = 2
) -> Runner:
    adapter, items = load_benchmark(data, videos=videos)
    return Runner(
        adapter=adapter,
        items=items,
        backend=None,
        agent=partial(PolicyAgent, "uniform-8"),
        writer=writer,
        videos=videos,
        model="openai:test-model",
        concurrency=concurrency,
        frame_size=112,
        progress=False,
    )


def make_backend(base_url: str):
    """A factory Ray can ship: a partial of a package function (this module is not importable
    in the workers)."""
    from streamspatial.models.registry import load_backend

    return partial(load_backend, "openai:test-model", base_url=base_url, api_key="x")


def test_killed_workers_video_is_finished_by_a_fresh_actor(local_ray, bench, tmp_path) -> None:
    from streamspatial.eval.ray_executor import RayOptions, run_on_ray

    data, videos = bench
    killed: list[tuple[int, str]] = []

    def kill_once(actor, record) -> None:
        # The first worker dies right after its first record: the rest of its video must be
        # answered by a fresh actor, and the record already received must not be asked again.
        if not killed:
            killed.append((ray.get(actor.pid.remote()), record.item_id))
            ray.kill(actor, no_restart=True)

    with FakeOpenAIServer(answer_from_frames, fps=FPS, latency=0.05) as server:
        out = tmp_path / "killed"
        out.mkdir()
        with PredictionWriter(out / PREDICTIONS) as writer:
            runner = driver_runner(data, videos, writer)
            run_on_ray(
                runner,
                make_backend(server.base_url),
                RayOptions(workers=2),
                on_record=kill_once,
            )
        assert len(killed) == 1
        assert runner.stats.videos_done == 3 and runner.stats.errors == 0
        assert len(server.requests) >= N_QUERY_POINTS
        records = read_records(out / PREDICTIONS)
        assert len(records) == N_QUERY_POINTS and not any(r.error for r in records)
        assert len((out / PREDICTIONS).read_text().splitlines()) == N_QUERY_POINTS


@pytest.mark.slow
def test_video_whose_workers_always_die_is_recorded_as_errors(local_ray, bench, tmp_path) -> None:
    """Every worker that takes video c dies: after max_attempts its remaining query points are
    recorded with the error (never dropped), and the other videos complete."""
    from streamspatial.eval.ray_executor import RayOptions, run_on_ray

    data, videos = bench

    def kill_on_c(actor, record) -> None:
        if record.item_id in {"6", "7", "8"}:
            ray.kill(actor, no_restart=True)

    # One request at a time per actor, each taking 0.3 s: a worker is killed on its first
    # record of c well before it could make a second.
    with FakeOpenAIServer(answer_from_frames, fps=FPS, latency=0.3) as server:
        out2 = tmp_path / "doomed"
        out2.mkdir()
        with PredictionWriter(out2 / PREDICTIONS) as writer:
            runner = driver_runner(data, videos, writer, concurrency=1)
            run_on_ray(
                runner,
                make_backend(server.base_url),
                RayOptions(workers=2, max_attempts=2),
                on_record=kill_on_c,
            )
    records = {r.key: r for r in read_records(out2 / PREDICTIONS)}
    assert len(records) == N_QUERY_POINTS
    on_c = [r for r in records.values() if r.item_id in {"6", "7", "8"}]
    failed = [r for r in on_c if r.error]
    # Each attempt delivered at least one record before its worker died; what the last
    # attempt left is recorded as failed, scored wrong.
    assert failed and all(r.error.startswith("worker died") for r in failed)
    assert all(r.score == 0.0 and not r.valid for r in failed)
    assert all(r.error is None for r in records.values() if r.item_id not in {"6", "7", "8"})
    assert runner.stats.errors == len(failed)


def test_worker_that_cannot_start_is_one_line_exit_2(local_ray, bench, tmp_path, invoke):
    data, videos = bench
    (tmp_path / "no-model-here").mkdir()  # a folder, so the spec passes; no model in it
    args = [
        "run",
        "--data",
        data,
        "--videos",
        videos,
        "--model",
        f"hf:{tmp_path / 'no-model-here'}",
        "--out",
        tmp_path / "run",
        "--executor",
        "ray",
    ]
    rc, err = invoke(*args)
    assert rc == 2 and err.count("\n") == 1, err
    assert "a Ray worker failed to start" in err and "no-model-here" in err, err
    assert "Traceback" not in err
    assert read_records(tmp_path / "run" / PREDICTIONS) == []


def test_unreachable_cluster_fails_fast_before_the_run_folder(bench, tmp_path, invoke) -> None:
    import socket

    data, videos = bench
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "run"
    for address, expect in [
        (f"127.0.0.1:{port}", "cannot reach the Ray cluster"),
        ("no-port-here", "expected host:port"),
    ]:
        rc, err = invoke(
            "run", "--data", data, "--videos", videos, "--model", "random", "--out", out,
            "--executor", "ray", "--address", address,
        )  # fmt: skip
        assert rc == 2 and err.count("\n") == 1, err
        assert f"--address {address}: {expect}" in err, err
        assert not out.exists()
