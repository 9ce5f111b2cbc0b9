"""``streamspatial run --agent scene-graph[-rules] --perception …`` end to end, and the CR/ER
diagnostics every agent and policy records.

The canary: a timestamp video (each frame shows its index, so the loopback server reads the
time of every image it receives) with a 3D-annotated capture file in which a new, uniquely
named object appears every second.  A scene-graph request for a query at t_q may show only
keyframes ≤ t_q and name only objects that had appeared by t_q.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from streamspatial.cli import main
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.perception.capture import capture_path_for
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.coverage import compression_ratio, evidence_recall
from streamspatial.video.synthetic import write_timestamp_video

FPS = 4.0
SECONDS = 24.0
QUERIES = {0: 6.5, 1: 13.0, 2: 23.5}  # item id → query time
EVIDENCE = {0: (2.0, 3.5), 1: (9.0, 9.0), 2: (15.25, 18.0)}


def canary(k: int) -> str:
    return f"canary{k:02d}"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("sgcli")
    videos = root / "videos"
    videos.mkdir()
    video = write_timestamp_video(videos / "walk.mp4", seconds=SECONDS, fps=FPS, size=(160, 120))
    n = round(SECONDS * FPS)
    # camera at (0, 0, 1.5) looking along +x; object k appears at k seconds, 2 m ahead
    pose = [[0, 0, 1, 0], [-1, 0, 0, 0], [0, -1, 0, 1.5], [0, 0, 0, 1]]
    objects = [
        {"id": k, "label": canary(k), "center": [2.0 + 0.1 * k, 0.5 * k - 6, 0.5]}
        for k in range(int(SECONDS))
    ]
    frames = [
        {"t": i / FPS, "pose": pose, "visible": list(range(int(i / FPS) + 1)), "scene": "hall"}
        for i in range(n)
    ]
    capture = {
        "format": "streamspatial-boxes3d",
        "version": 1,
        "world_up": "z",
        "camera": "opencv",
        "intrinsics": {"width": 160, "height": 120, "fx": 140, "fy": 140, "cx": 80, "cy": 60},
        "objects": objects,
        "frames": frames,
    }
    capture_path_for(video).write_text(json.dumps(capture))
    data = root / "ovos.jsonl"
    with data.open("w") as fh:
        for iid, t in QUERIES.items():
            row = {
                "id": iid,
                "category_index": f"2.1.2_{iid}",
                "source_dataset": "synthetic",
                "video_id": "walk",
                "video_path": "walk.mp4",
                "level": 2,
                "task_main_category": "2.1",
                "task_subcategory": "2.1.2",
                "task_type_name": "Relative Direction",
                "question": f"Question {iid}: is {canary(1)} left of me?",
                "options": {"ABCD"[k]: f"option {k}" for k in range(4)},
                "query_times": [t],
                "evidence_times": [[list(EVIDENCE[iid])]],
                "answers": ["A"],
            }
            fh.write(json.dumps(row) + "\n")
    return data, videos


@pytest.fixture
def cli(monkeypatch, capsys):
    """The CLI in this process: returns (exit code, stdout, stderr)."""
    for k in [k for k in __import__("os").environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def call(*args: str | Path) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        out = capsys.readouterr()
        return rc, out.out, out.err

    return call


def _query_of(text: str) -> int:
    for iid in QUERIES:
        if f"Question {iid}:" in text:
            return iid
    raise AssertionError(f"request names no question: {text[:200]}")


def test_scene_graph_through_the_cli_and_loopback_server_never_leaks_the_future(
    cli, bench, tmp_path
):
    data, videos = bench
    with FakeOpenAIServer("A", fps=FPS) as server:
        rc, _, err = cli(
            "run", "--data", data, "--videos", videos, "--model", "openai:m",
            "--base-url", server.base_url, "--agent", "scene-graph",
            "--perception", "ground-truth", "--out", tmp_path / "sg", "--no-progress",
        )  # fmt: skip
        requests = list(server.requests)
    assert rc == 0, err
    assert len(requests) == len(QUERIES)
    for req in requests:
        t_q = QUERIES[_query_of(req.text)]
        assert req.n_images > 0 and None not in req.frame_times
        assert max(req.frame_times) <= t_q  # keyframes from the prefix only
        seen = {k for k in range(int(SECONDS)) if canary(k) in req.text}
        # the asked-about object is retrieved; no object that appears later is named
        assert 1 in seen and max(seen) <= math.floor(t_q), (t_q, sorted(seen))
    run = json.loads((tmp_path / "sg" / "run.json").read_text())
    assert run["config"]["perception"] == "ground-truth"
    records = read_records(tmp_path / "sg" / PREDICTIONS)
    assert {r.policy for r in records} == {"scene-graph[ground-truth]"}
    for r in records:
        assert r.diagnostics["memory_objects"] == math.floor(r.t_q) + 1  # all seen, no more
        assert r.diagnostics["memory_time"] <= r.t_q
        assert 0 < r.diagnostics["compression_ratio"] <= 1
        assert r.diagnostics["evidence_recall"] is not None


def test_noisy_perception_spec_reaches_the_agent_and_the_records(cli, bench, tmp_path):
    data, videos = bench
    with FakeOpenAIServer("A", fps=FPS) as server:
        rc, _, err = cli(
            "run", "--data", data, "--videos", videos, "--model", "openai:m",
            "--base-url", server.base_url, "--agent", "scene-graph",
            "--perception", "ground-truth[:noise=0.5,seed=2]", "--out", tmp_path / "n",
            "--no-progress",
        )  # fmt: skip
        assert not any(r.violates_causality() for r in server.requests)
    assert rc == 0, err
    records = read_records(tmp_path / "n" / PREDICTIONS)
    assert {r.policy for r in records} == {"scene-graph[ground-truth:noise=0.5,seed=2]"}


def test_rules_agent_runs_without_a_model_and_reports_diagnostics_by_level(cli, bench, tmp_path):
    data, videos = bench
    out = tmp_path / "rules"
    rc, _, err = cli(
        "run", "--data", data, "--videos", videos, "--agent", "scene-graph-rules",
        "--out", out, "--no-progress",
    )  # fmt: skip
    assert rc == 0, err
    assert json.loads((out / "run.json").read_text())["config"]["model"] == "rules"
    records = read_records(out / PREDICTIONS)
    assert len(records) == len(QUERIES) and all(r.error is None for r in records)
    assert all(r.frame_times == [] for r in records)  # the rules agent shows no frame
    rc, _, err = cli("report", out)
    assert rc == 0, err
    scores = json.loads((out / "scores.json").read_text())
    diag = {row["level"]: row for row in scores["diagnostics"]["rows"]}
    assert set(diag) == {"L2", "Overall"} and diag["Overall"]["n"] == len(QUERIES)
    crs = [r.diagnostics["compression_ratio"] for r in records]
    assert diag["Overall"]["cr"] == pytest.approx(sum(crs) / len(crs))
    assert "### diagnostics" in (out / "report.md").read_text()


def test_policy_agent_records_frame_compression_ratio_and_evidence_recall(cli, bench, tmp_path):
    """A frame policy's CR/ER are its kept frame seconds against the prefix (OVO-S-Bench
    §4.3.3), recomputed here from the frames the server received."""
    data, videos = bench
    out = tmp_path / "uniform"
    with FakeOpenAIServer("A", fps=FPS) as server:
        rc, _, err = cli(
            "run", "--data", data, "--videos", videos, "--model", "openai:m",
            "--base-url", server.base_url, "--policy", "uniform-6", "--out", out,
            "--no-progress",
        )  # fmt: skip
        sent = {_query_of(r.text): r.frame_times for r in server.requests}
    assert rc == 0, err
    for r in read_records(out / PREDICTIONS):
        iid, t_q = int(r.item_id), r.t_q
        assert r.diagnostics["frames_sent"] == len(sent[iid]) == 6
        assert r.diagnostics["compression_ratio"] == compression_ratio(sent[iid], t_q)
        assert r.diagnostics["evidence_recall"] == evidence_recall(sent[iid], [EVIDENCE[iid]], t_q)
    cli("report", out)
    rows = json.loads((out / "scores.json").read_text())["diagnostics"]["rows"]
    assert rows[-1]["level"] == "Overall" and rows[-1]["n_er"] == len(QUERIES)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "random", "--perception", "ground-truth"], "--perception: only --agent"),
        (["--agent", "scene-graph-rules", "--model", "random"], "answers without a model"),
        (["--model", "rules"], "answers without a model"),
        (["--agent", "scene-graph", "--model", "random", "--perception", "lidar"], "lidar"),
    ],
)
def test_agent_and_perception_mistakes_are_one_line_exit_2(cli, bench, tmp_path, args, message):
    data, videos = bench
    rc, _, err = cli(
        "run", "--data", data, "--videos", videos, "--out", tmp_path / "x", *args
    )  # fmt: skip
    assert rc == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x" / PREDICTIONS).exists()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("agent", ["policy", "scene-graph", "folding", "spatial-caption"])
@pytest.mark.parametrize("model", ["frequent", "random"])
def test_every_agent_runs_with_the_baselines(cli, bench, tmp_path, agent, model):
    """The baselines key on the item and its task: every agent's requests must carry the same
    keys (``--agent scene-graph --model frequent`` once failed on a task-key mismatch), and a
    memory agent's side calls get an empty memory from a baseline, not an error."""
    data, videos = bench
    extra = ["--perception", "ground-truth"] if agent == "scene-graph" else []
    extra += ["--fold-every", "5"] if agent == "folding" else []
    rc, _, err = cli(
        "run", "--data", data, "--videos", videos, "--model", model, "--agent", agent,
        "--out", tmp_path / "run", "--no-progress", *extra,
    )  # fmt: skip
    assert rc == 0, err
    records = read_records(tmp_path / "run" / PREDICTIONS)
    assert len(records) == len(QUERIES) and not any(r.error for r in records)
    if model == "frequent":  # every other item of the task answers A
        assert {r.extracted for r in records} == {"A"}
