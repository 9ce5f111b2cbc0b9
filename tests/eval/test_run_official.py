"""``streamspatial run --scorer official`` on an OVO-S-Bench release, end to end over HTTP.

The release parquet is written from the official schema (release_fixtures); the model is the
project's loopback OpenAI-compatible server, which decodes the frame index drawn into every
image it receives.  The run must record every query point (the three of the multi-time item
too), send no frame after its query time, send the three L4.3 map images labelled with their
letters, and extract letters and score exactly as the official ``score.py`` does on the same
responses (official_reference).  A UCS-Bench file in its demo schema runs the same way.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from official_reference import (
    inference_pad_answers,
    score_py_calculate_scores,
    score_py_extract_answer,
)
from release_fixtures import (
    FPS,
    ovos_release_rows,
    ucs_demo_rows,
    write_json,
    write_ovos_parquet,
    write_ovos_videos,
    write_ucs_videos,
)
from streamspatial.cli import main
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.testing.openai_server import FakeOpenAIServer, RecordedRequest


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_model(capsys, server: FakeOpenAIServer, data: Path, videos: Path, out: Path, *extra):
    """``streamspatial run`` against the loopback server as model ``openai:fake-vlm``."""
    return run_cli(
        capsys, "run", "--data", data, "--videos", videos, "--model", "openai:fake-vlm",
        "--base-url", server.base_url, "--out", out, "--no-progress", *extra,
    )  # fmt: skip


def answer(req: RecordedRequest) -> str:
    """Responses in the styles the official and the paper readers treat differently."""
    latest = max((i for i in req.frame_indices if i is not None), default=-1)
    text = req.text
    if "kitchen" in text:  # the multi-time item: one style per query time
        return "Answer: A" if latest < 30 else ("the answer is b" if latest < 60 else "F")
    if "chair" in text:
        return "b"
    if "sketch" in text:
        return "<think>maybe A</think>Answer: C"
    if "map" in text:
        return "(B)"
    return "I think it is C, but A chair suggests otherwise"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("release")
    data = write_ovos_parquet(root / "ovo_s_bench.parquet", ovos_release_rows())
    return data, write_ovos_videos(root)


def test_official_run_on_the_release(capsys, tmp_path, release) -> None:
    data, videos = release
    out = tmp_path / "run"
    with FakeOpenAIServer(answer, fps=FPS, keep_images=True) as server:
        rc, _, err = run_model(
            capsys, server, data, videos, out, "--scorer", "official", "--policy", "uniform-8"
        )
        requests = list(server.requests)
    assert rc == 0, err
    assert "invalid (scorer official); 2 video decode(s)" in err
    rows = {r["id"]: r for r in ovos_release_rows()}
    records = sorted(read_records(out / PREDICTIONS), key=lambda r: (r.item_id, r.query_index))

    # Every query point is recorded, the multi-time item's three included.
    expected_keys = sorted((i, k) for i, r in rows.items() for k in range(len(r["query_times"])))
    assert [(r.item_id, r.query_index) for r in records] == expected_keys
    assert len(requests) == len(records) == 7

    # No frame after its query time, checked on what went over HTTP: each item's requests,
    # latest frame first to last, against its query times in order.
    for row in rows.values():
        question = (row.get("re_constructed") or {}).get("question") or row["question"]
        latest = sorted(
            max(i for i in q.frame_indices if i is not None) for q in requests if question in q.text
        )
        assert len(latest) == len(row["query_times"])
        for frame, t_q in zip(latest, sorted(row["query_times"]), strict=True):
            assert frame / FPS <= t_q
    for r in records:
        assert r.frame_times and max(r.frame_times) <= r.t_q
        assert r.frame_times == sorted(r.frame_times)

    # The L4.3 map options arrive as images, after the frames, each after its letter.
    (maps,) = [q for q in requests if "Which map" in q.text]
    content = maps.body["messages"][-1]["content"]
    kinds = [p["text"] if p["type"] == "text" else "<image>" for p in content]
    assert kinds[-7:-1] == ["Option A:", "<image>", "Option B:", "<image>", "Option C:", "<image>"]
    assert maps.frame_indices[-3:] == [None, None, None]  # no video frames among them
    released = [base64.b64decode(c.partition(",")[2]) for _, c in rows["4.3_000"]["options"]]
    assert maps.image_bytes[-3:] == released
    assert "C. [See option image labeled C]" in kinds[-1]
    assert kinds[-1].endswith(
        "correspond to options A, B, C in order. Choose the option whose "
        "image best matches the question."
    )

    # Letters and accuracy equal score.py's on the same responses.
    results = []
    for r in records:
        row = rows[r.item_id]
        truth = inference_pad_answers(
            row["query_times"], (row.get("re_constructed") or {}).get("answers") or row["answers"]
        )[r.query_index]
        assert (r.extracted or "") == score_py_extract_answer(r.raw_output), r
        results.append(
            {
                "query_id": f"{r.item_id}_q{r.query_index}",
                "task_subcategory": row["task_subcategory"],
                "response": r.raw_output,
                "ground_truth": truth,
            }
        )
    official = score_py_calculate_scores(results)
    rc, _, err = run_cli(capsys, "report", out)
    assert rc == 0, err
    scores = json.loads((out / "scores.json").read_text())
    assert scores["scorer"] == "official"
    assert scores["headline"]["Overall"] == official["overall"]["accuracy"]
    for cat, cell in official["by_main_category"].items():
        assert scores["headline"][f"L{cat}"] == cell["accuracy"]
    by_group = {row["group"]: row for row in scores["table"]["rows"]}
    for sub, cell in official["by_task"].items():
        assert (by_group[sub]["n"], by_group[sub]["accuracy"]) == (cell["total"], cell["accuracy"])
    # The paper reading of the same responses differs here, and the report shows both.
    assert scores["other_scorer"]["scorer"] == "paper"
    report = (out / "report.md").read_text()
    assert "- scorer: `official` (official — InternLM/OVO-S-Bench score.py" in report
    assert "### Scorers compared" in report
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["benchmark"]["scorer"] == "official"
    # report --scorer paper re-scores the same responses with the paper rules.
    rc, _, err = run_cli(capsys, "report", out, "--scorer", "paper")
    assert rc == 0, err
    assert json.loads((out / "scores.json").read_text())["scorer"] == "paper"


def test_paper_run_sends_time_captions_and_g5_prompt(capsys, tmp_path, release) -> None:
    data, videos = release
    with FakeOpenAIServer("A", fps=FPS) as server:
        rc, _, err = run_model(
            capsys,
            server,
            data,
            videos,
            tmp_path / "run",
            "--scorer",
            "paper",
            "--policy",
            "uniform-4",
            "--limit",
            "1",
        )
        (req,) = server.requests
    assert rc == 0, err
    texts = [p.get("text") for p in req.body["messages"][-1]["content"] if p["type"] == "text"]
    assert texts[0].startswith("Frame at 0 s:")
    assert texts[-1].endswith(
        '(e.g., "A" or "B").\n- Do not include any explanation or additional text.\nYour answer:'
    )


def test_ucs_demo_schema_runs_and_scores_directions(capsys, tmp_path) -> None:
    data = write_json(tmp_path / "sample_qa.json", ucs_demo_rows())
    videos = write_ucs_videos(tmp_path)
    out = tmp_path / "run"
    with FakeOpenAIServer("It is on your left.", fps=FPS) as server:
        rc, _, err = run_model(capsys, server, data, videos, out)
        requests = list(server.requests)
    assert rc == 0, err
    assert len(requests) == 4
    assert all("front-left, front-right, back-left or back-right" in q.text for q in requests)
    records = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert {k: r.score for k, r in records.items()} == {
        "demo_01": 1.0,  # left == left
        "demo_02": 0.0,  # {front_left, behind_left} != {left}
        "demo_03": 0.0,
        "demo_04": 0.0,
    }
    assert records["demo_01"].extracted == "left"
    rc, table, _ = run_cli(capsys, "report", out)
    assert rc == 0 and "| Overall |  | 4 | 0 | 25.00 |" in table
