"""``streamspatial run`` on a release-shaped OmniMMI folder, end to end over HTTP, with a second
loopback server as the judge.

Every query point is recorded with its time and no request carries a frame after it; the
judged tasks are scored from the judge's stored verdicts when there is one and named not
scored when there is none; the judge's requests (which carry the reference answers) never
reach the evaluated model's server, even with a response cache.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omnimmi_fixtures import write_release
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.testing.openai_server import FakeOpenAIServer, RecordedRequest
from test_run_stream_benchmarks import assert_causal, run, run_cli, scores, traced  # noqa: F401

FPS = 10.0
REFERENCES = ("the man in red", "Cook Omelet", "Pouring the egg", "a cup")


def latest(req: RecordedRequest) -> int:
    return max((i for i in req.frame_indices if i is not None), default=-1)


def model(req: RecordedRequest) -> str:
    text = req.text
    if "right time to respond" in text:
        return "Yes, now." if latest(req) >= 35 else "No."
    if "Speaker A" in text:
        return "<2>"
    if "task of the instruction video" in text:
        return "Bake bread"
    if "first step of" in text:
        return "knead"
    return "pour milk"


def judge(req: RecordedRequest) -> str:
    pred = req.text.split("Predicted Answer: ")[-1].split("\n")[0]
    return "{'pred': 'yes', 'score': 5}" if pred == "knead" else "{'pred': 'no', 'score': 1}"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("omnimmi"))


@pytest.fixture()
def servers():
    with FakeOpenAIServer(model, fps=FPS) as m, FakeOpenAIServer(judge) as j:
        yield m, j


def _run_all(capsys, tmp_path, release, servers, *extra):
    m, _ = servers
    outs = {}
    for name in sorted(release.glob("*.json")):
        out = tmp_path / name.stem
        rc, _, err = run(capsys, m, name, release, out, "--policy", "uniform-4", *extra)
        assert rc == 0, err
        outs[name.stem] = out
    return outs


def test_run_with_a_judge_scores_every_task_and_keeps_verdicts(capsys, tmp_path, release,
                                                              servers):  # fmt: skip
    m, j = servers
    outs = _run_all(capsys, tmp_path, release, servers, "--judge", "openai:judge",
                    "--judge-base-url", j.base_url, "--cache-dir", tmp_path / "cache")  # fmt: skip
    records = assert_causal(list(m.requests), outs["action_prediction"])
    by_id = {}
    for out in outs.values():
        by_id.update({r.item_id: r for r in read_records(out / PREDICTIONS)})
    assert {k: v.t_q for k, v in by_id.items()} == {
        "ap-0": 10.0, "si-0": 3.0, "md-0-0": 2.0, "md-0-1": 5.0, "sg-0-0": 1.0, "sg-0-1": 5.0,
        "pa-0": 8.0, "pt-0": 10.0,
    }  # fmt: skip
    assert records and not [r for r in m.requests if r.violates_causality()]
    for out in outs.values():
        for r in read_records(out / PREDICTIONS):
            assert all(t <= r.t_q + 1e-9 for t in r.frame_times)
    # The reference answers reach the judge only; the model saw its own reply in MD's turn 2.
    assert not [r for r in m.requests if any(ref in r.text for ref in REFERENCES)]
    assert any("What's the first step of Bake bread?" in r.text for r in m.requests)
    assert len(j.requests) == 6 and all("Correct Answer:" in r.text for r in j.requests)
    assert not [r for r in j.requests if r.n_images]
    assert by_id["md-0-1"].extra["judge"]["reply"] == "{'pred': 'yes', 'score': 5}"
    assert "judge" not in by_id["pa-0"].extra
    md = scores(capsys, outs["multiturn_dependency_reasoning"])["headline"]
    assert md["MD"] == 0.0  # turn 0 judged no: the dialogue is wrong
    assert scores(capsys, outs["speaker_identification"])["headline"]["SI"] == 0.0
    pa = scores(capsys, outs["proactive_alerting"])
    # Polled each second; "yes" from 4 s (frame 40) on: alerts 4..8 against [3, 5].
    alerts = json.loads(by_id["pa-0"].raw_output)["dialog_history"]
    assert [m["time"] for m in alerts if m["role"] == "assistant"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert pa["headline"]["PA"] == 1.0
    assert scores(capsys, outs["proactive_turntaking"])["headline"]["PT"] == 1.0


def test_without_a_judge_judged_tasks_are_named_not_scored(capsys, tmp_path, release, servers):
    m, j = servers
    out = tmp_path / "ap"
    rc, _, err = run(capsys, m, release / "action_prediction.json", release, out)
    assert rc == 0, err
    assert "AP: scored by a language model judge" in err and "not scored" in err
    assert not j.requests
    got = scores(capsys, out)
    assert got["headline"]["AP"] is None
    report = (out / "report.md").read_text()
    assert "not scored (no judge)" in report and "run --judge MODEL" in report


def test_official_clips_show_speaker_identification_the_whole_video(capsys, tmp_path, release,
                                                                   servers):  # fmt: skip
    m, _ = servers
    out = tmp_path / "si"
    rc, _, err = run(capsys, m, release / "speaker_identification.json", release, out,
                     "--clips", "official", "--policy", "uniform-4")  # fmt: skip
    assert rc == 0, err
    (record,) = read_records(out / PREDICTIONS)
    assert record.t_q == 3.0 and record.extra["shown_until"] == 8.0
    assert max(record.frame_times) > 3.0
    assert scores(capsys, out)["clips"] == "official"


def test_report_lists_the_rows_where_the_scorers_differ(capsys, tmp_path, release):
    """A verdict in a code block: ``literal_eval`` raises (officially left out), the paper
    reading takes the object inside."""
    with (
        FakeOpenAIServer(model, fps=FPS) as m,
        FakeOpenAIServer("```{'pred': 'yes', 'score': 5}```") as j,
    ):
        out = tmp_path / "si"
        rc, _, err = run(capsys, m, release / "speaker_identification.json", release, out,
                         "--judge", "openai:judge", "--judge-base-url", j.base_url)  # fmt: skip
    assert rc == 0, err
    official = scores(capsys, out)
    assert official["headline"]["SI"] is None
    assert scores(capsys, out, "--scorer", "paper")["headline"]["SI"] == 1.0
    report = (out / "report.md").read_text()
    assert "Rows where they differ:" in report
    assert "| SI |" in report.split("Rows where they differ:")[1]


def test_official_clips_record_proactive_alerting_invalid_with_a_note(capsys, tmp_path, release,
                                                                     servers):  # fmt: skip
    m, _ = servers
    out = tmp_path / "pa"
    rc, _, err = run(capsys, m, release / "proactive_alerting.json", release, out,
                     "--clips", "official")  # fmt: skip
    assert rc == 0, err
    assert "1 item(s) recorded invalid, not asked: OmniMMI's offline pipeline raises" in err
    assert not m.requests
    (record,) = read_records(out / PREDICTIONS)
    assert not record.valid and "TypeError" in record.extra["note"]
    assert scores(capsys, out)["headline"]["PA"] is None


def test_score_imports_replies_and_asks_the_judge(capsys, tmp_path, release):
    """Replies made elsewhere (the ``jsonl`` layout): without --judge the judged turns are not
    scored; with it the judge is asked as ``run --judge`` asks it and its reply is stored."""
    preds = tmp_path / "replies.jsonl"
    lines = [
        json.dumps({"item_id": i, "query_index": 0, "reply": r})
        for i, r in (("md-0-0", "Cook Omelet"), ("md-0-1", "knead"))
    ]
    preds.write_text("\n".join(lines) + "\n")
    data = release / "multiturn_dependency_reasoning.json"
    plain = tmp_path / "plain"
    rc, _, err = run_cli(capsys, "score", "--data", data, "--predictions", preds, "--out", plain,
                         "--model-name", "m")  # fmt: skip
    assert rc == 0, err
    assert scores(capsys, plain)["headline"]["MD"] is None
    with FakeOpenAIServer(judge) as j:
        out = tmp_path / "judged"
        rc, _, err = run_cli(capsys, "score", "--data", data, "--predictions", preds, "--out",
                             out, "--model-name", "m", "--judge", "openai:judge",
                             "--judge-base-url", j.base_url)  # fmt: skip
        assert rc == 0, err
        assert len(j.requests) == 2
    records = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert records["md-0-1"].extra["judge"]["reply"] == "{'pred': 'yes', 'score': 5}"
    assert scores(capsys, out)["headline"]["MD"] == 0.0  # turn 0 judged no


def test_one_run_of_the_release_folder_gives_the_leaderboard_average(capsys, tmp_path, release):
    """``--data`` the release folder: every task in one run, so "avg. w/o P" is there."""

    def lenient(req: RecordedRequest) -> str:  # right unless MD's first turn (Bake bread)
        wrong = "Predicted Answer: Bake bread" in req.text
        return "{'pred': 'no', 'score': 0}" if wrong else "{'pred': 'yes', 'score': 4}"

    out = tmp_path / "all"
    with FakeOpenAIServer(model, fps=FPS) as m, FakeOpenAIServer(lenient) as j:
        rc, _, err = run(capsys, m, release, release, out, "--policy", "uniform-4", "--judge",
                         "openai:judge", "--judge-base-url", j.base_url)  # fmt: skip
        assert rc == 0, err
        assert_causal(list(m.requests), out)
    head = scores(capsys, out)["headline"]
    got = {k: head[k] for k in ("SG", "AP", "MD", "SI", "PA", "PT")}
    assert got == {"SG": 1.0, "AP": 1.0, "MD": 0.0, "SI": 1.0, "PA": 1.0, "PT": 1.0}
    assert head["avg. w/o P"] == 0.75  # (SG + AP + MD + SI) / 4
    rc, _, _ = run_cli(capsys, "validate", tmp_path / "nowhere")
    assert rc == 2
