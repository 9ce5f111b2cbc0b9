"""``sim export --format rtvbench``: a generated benchmark in RTV-Bench's ``QA.json``, which
RTV-Bench's own scripts read (its ``questionID`` grammar, ``type`` categories, clip path) and
streamspatial reads and runs like the release."""

from __future__ import annotations

import json

import pytest

import rtv_reference as ref
from cli_run import cli
from streamspatial.bench.registry import check_benchmark, detect_format
from streamspatial.bench.rtvbench.reader import GROUP_ID, parse_qtype
from streamspatial.cli.sim_export import exportable, read_generated
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.testing.openai_server import FakeOpenAIServer

pytest.importorskip("mujoco")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from streamspatial.sim.generate import generate_benchmark
    from streamspatial.sim.pipeline.config import GenerateConfig

    out = tmp_path_factory.mktemp("gen")
    cfg = GenerateConfig(out=out, houses=1, seed=3, minutes=0.5, size=(96, 72),
                         identity_turns=3, rooms=4, per_family=2)  # fmt: skip
    generate_benchmark(cfg, lambda *_: None)
    return out


def test_export_reads_as_rtvbench_and_runs_in_its_own_scoring(capsys, tmp_path, generated):
    rc, out = cli(capsys, "sim", "export", generated, "--format", "rtvbench")
    assert rc == 0, out
    qa = generated / "QA.json"
    assert f"→ {qa}" in out and detect_format(qa) == "rtvbench"
    rows = json.loads(qa.read_text())
    assert rows and set(rows[0]) == {"video", "questionID", "type", "field", "start_time",
                                     "end_time", "question", "options", "answer"}  # fmt: skip
    # Every id parses as the official scripts parse it; the suffix is never the answer.
    for row in rows:
        assert GROUP_ID.match(row["questionID"]) and parse_qtype(row["questionID"]) in "012"
        assert row["type"].split("-")[0] in ("Object", "Action", "Event")
        assert (generated / "videos" / row["field"] / row["video"]).is_file()
    chosen = exportable(read_generated(generated))
    assert len(rows) == len(chosen)
    _, result = check_benchmark(qa, videos=generated / "videos")
    assert not result.problems
    assert [it.queries[0].time for it in result.items] == [it.queries[0].time for it in chosen]
    # Run it end to end; the official aggregates equal RTV-Bench's scripts on the same replies.
    with FakeOpenAIServer("B", fps=None) as server:
        rc, out = cli(capsys, "run", "--data", qa, "--videos", generated / "videos", "--model",
                      "openai:fake", "--base-url", server.base_url, "--out", tmp_path / "run",
                      "--no-progress", "--scorer", "official")  # fmt: skip
    assert rc == 0, out
    records = list(read_records(tmp_path / "run" / PREDICTIONS))
    assert len(records) == len(rows)
    assert cli(capsys, "report", tmp_path / "run")[0] == 0
    got = json.loads((tmp_path / "run" / "scores.json").read_text())["headline"]
    official = ref.results(rows, ["B"] * len(rows))
    assert got["Overall"] * 100 == pytest.approx(ref.compute_acc(official)["Overall"])
    score = ref.compute_score(official)
    if score["total_q2"]:
        assert got["Group score"] == pytest.approx(score["total_score"] / score["total_q2"])
