"""RTV-Bench's ``QA.json`` as released: reading, validating, each official rule, and a run
end to end over HTTP against the loopback server.

The fixture is written from the schema the official scripts read (``infer_model_rtv.py``,
``compute_acc.py``, ``compute_score.py``): ``{video, questionID, type, field, start_time,
end_time, question, options {letter: text}, answer}``; its videos are generated timestamp
videos, so the server can read which frame each request carried.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import rtv_reference as ref
from streamspatial.bench import check_benchmark, load_benchmark
from streamspatial.bench.registry import detect_format
from streamspatial.bench.rtvbench.score import rtv_letter, rtvbench_table
from streamspatial.cli import main
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.scoring.scorers import score_all
from streamspatial.testing.openai_server import FakeOpenAIServer, RecordedRequest
from streamspatial.video.synthetic import write_timestamp_video

FPS = 10.0
VIDEOS = {"sports/v1.mp4": 12.0, "driving/v2.mp4": 9.0}
OPTS = {"A": "a red car", "B": "a man", "C": "a dog", "D": "nothing"}


def row(qid: str, typ: str, end: float, answer: str, *, video: str = "v1.mp4",
        field: str = "sports", question: str = "What is in front now?") -> dict:  # fmt: skip
    return {"video": video, "questionID": qid, "type": typ, "field": field,
            "start_time": max(0.0, end - 2.0), "end_time": end, "question": question,
            "options": dict(OPTS), "answer": answer}  # fmt: skip


def rtv_rows() -> list[dict]:
    """Three groups: g1 (levels 0, 0, 1, 2, 2), g2 (0 and 2, on the second video), g3 (level
    0 and 1 only: no level-2 question, so compute_score skips it)."""
    return [
        row("q-group-g1-0-option0", "Object-TP", 2.0, "A", question="What is ahead?"),
        row("q-group-g1-0-option1", "Object-TP", 4.0, "B", question="Who is ahead?"),
        row("q-group-g1-1-option2", "Action-IA", 6.0, "C", question="What moves?"),
        row("q-group-g1-2-option3", "Event-SR", 8.0, "D", question="What comes next?"),
        row("q-group-g1-2-option0", "Event-SR", 10.5, "A", question="What follows?"),
        row("q-group-g2-0-option1", "Object-VP", 3.0, "B", video="v2.mp4", field="driving",
            question="Which lane?"),
        row("q-group-g2-2-option2", "Action-FP", 8.5, "C", video="v2.mp4", field="driving",
            question="Where will it turn?"),
        row("q-group-g3-0-option3", "Event-GU", 5.0, "D", question="Is it raining?"),
        row("q-group-g3-1-option0", "Event-PU", 7.0, "A", question="Why did it stop?"),
    ]  # fmt: skip


def write_release(root: Path, rows: list[dict] | None = None) -> tuple[Path, Path]:
    data = root / "QA.json"
    data.write_text(json.dumps(rows or rtv_rows(), indent=1), encoding="utf-8")
    videos = root / "videos"
    for rel, seconds in VIDEOS.items():
        (videos / rel).parent.mkdir(parents=True, exist_ok=True)
        write_timestamp_video(videos / rel, seconds=seconds, fps=FPS, size=(96, 64), gop=10)
    return data, videos


# --- reading -------------------------------------------------------------------------------


def test_reads_the_release_and_detects_it(tmp_path) -> None:
    data, videos = write_release(tmp_path)
    assert detect_format(data) == "rtvbench"
    adapter, items = load_benchmark(data, videos=videos)
    assert len(items) == 9 and adapter.name == "rtvbench"
    first = items[0]
    assert first.queries[0].time == 2.0 and first.queries[0].evidence == ((0.0, 2.0),)
    assert first.task.level == "0" and first.task.category == "Object"
    assert first.task.subcategory == "g1-0" and first.task.task == "Object-TP"
    assert adapter.video_path(first, videos) == videos / "sports" / "v1.mp4"
    # The option<k> suffix equals the answer: the id a model could see never holds it.
    assert all("option" not in it.id for it in items)
    assert adapter.record_id(first) == "q-group-g1-0-option0"
    prompt = adapter.prompt(first, first.queries[0])
    assert prompt == (
        "Question: What is ahead?\nOptions:\nA. a red car\nB. a man\nC. a dog\nD. nothing\n"
        "Answer with the option's letter from the given choices directly and only give the "
        "best option."
    )
    assert adapter.generation.max_tokens == 64 and adapter.generation.temperature == 0.0


def test_validate_reports_every_problem_one_line_each(tmp_path, capsys) -> None:
    rows = rtv_rows()
    rows[1]["answer"] = "F"
    rows[2]["end_time"] = "late"
    rows[3]["options"] = {"A": "x", "C": "y"}
    rows[4]["start_time"] = 11.0
    del rows[5]["field"]
    rows[6]["questionID"] = rows[0]["questionID"]
    data, videos = write_release(tmp_path, rows)
    _, result = check_benchmark(data, videos=videos)
    fields = sorted((p.item_id, p.field) for p in result.problems)
    assert (
        fields
        == [
            ("q-group-g1-0#1", "questionID"),
            ("q-group-g1-0#2", "answer"),
            ("q-group-g1-0#7", "questionID"),
            ("q-group-g1-1#3", "end_time"),
            ("q-group-g1-2#4", "options"),
            ("q-group-g1-2#5", "start_time"),
            ("q-group-g2-0#6", "field"),
        ][1:]
    )  # the first use of an id is fine; its repeat is the problem
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(data), "--videos", str(videos)])
    assert exc.value.code == 2
    err = capsys.readouterr()
    lines = [ln for ln in err.out.splitlines() if "QA.json:" in ln]
    assert len(lines) == 6 and all(": item q-group-" in ln for ln in lines)
    assert "6 problem(s)" in err.err + err.out


def test_end_time_past_the_video_is_reported(tmp_path) -> None:
    rows = rtv_rows()
    rows[0]["end_time"] = 30.0
    data, videos = write_release(tmp_path, rows)
    _, result = check_benchmark(data, videos=videos)
    assert [p.field for p in result.problems] == ["query_time"]


# --- official rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, letter",
    [
        ("B", "B"),
        ("A man is walking.", "A"),  # the first standalone letter: "A man…" reads as A
        ("I think B", "Unknown"),  # "I" comes first and is no option; no OPTION/ANSWER; "I"
        ("answer: c", "C"),  # case-blind ANSWER pattern
        ("The best OPTION-D here", "D"),
        ("c.", "C"),  # "C" standalone once upper-cased
        ("Definitely.", "D"),  # the first character
        ("", "Unknown"),
        ("E", "Unknown"),  # not an option
    ],
)
def test_extract_pred_letter(reply: str, letter: str) -> None:
    assert rtv_letter(reply, "ABCD") == letter == ref.extract_pred_letter(reply, OPTS)


def test_failed_call_is_error_and_wrong(tmp_path) -> None:
    data, _ = write_release(tmp_path)
    _, items = load_benchmark(data)
    verdicts = score_all(items[0], items[0].queries[0], None)
    assert verdicts["official"].score == 0.0 and not verdicts["official"].valid
    assert verdicts["paper"].score == 0.0


def _records(items, replies, scorer: str) -> list[dict]:
    out = []
    for it, reply in zip(items, replies, strict=True):
        v = score_all(it, it.queries[0], reply)[scorer]
        out.append({"item_id": it.id, "query_index": 0, "task": it.task.task,
                    "level": it.task.level, "category": it.task.category,
                    "subcategory": it.task.subcategory, "score": v.score, "valid": v.valid,
                    "rule": v.rule})  # fmt: skip
    return out


REPLIES = ["A", "B. a man", "C", "D", "I think A", "A man", "C", "D", "A"]


def test_accuracy_and_group_score_equal_the_official_scripts(tmp_path) -> None:
    data, _ = write_release(tmp_path)
    _, items = load_benchmark(data)
    table = rtvbench_table(_records(items, REPLIES, "official"))
    official = ref.results(rtv_rows(), REPLIES)
    acc = ref.compute_acc(official)
    got = {r["name"]: r["score"] for r in table.rows if r["group"] == "accuracy"}
    assert {k: v * 100 for k, v in got.items() if v is not None} == pytest.approx(acc)
    assert got["Overall"] == pytest.approx(7 / 9)
    score = ref.compute_score(official)
    group = table.row(name="Group score")
    assert (group["correct"], group["n"]) == (score["total_score"], score["total_q2"]) == (1, 3)
    # g1's level-2 "I think A" is wrong: its other level-2 question earns credit; g2's
    # level-0 "A man" is read as A (wrong), so g2's right level-2 answer earns none.
    assert table.row(name="Group score: Event")["correct"] == 1
    assert table.row(name="Group score: Action") == {
        "group": "group score", "name": "Group score: Action", "n": 1, "correct": 0,
        "score": 0.0}  # fmt: skip
    paper = rtvbench_table(_records(items, REPLIES, "paper"))
    assert paper.row(name="Overall")["score"] == pytest.approx(8 / 9)  # "I think A" reads A


def test_an_id_without_a_question_type_is_left_out_of_accuracy(tmp_path) -> None:
    rows = rtv_rows()
    rows[0]["questionID"] = "custom-id"
    data, _ = write_release(tmp_path, rows)
    _, items = load_benchmark(data)
    table = rtvbench_table(_records(items, REPLIES, "official"))
    official = ref.results(rows, REPLIES)
    assert table.row(name="Overall")["n"] == 8
    assert table.row(name="Overall")["score"] * 100 == pytest.approx(
        ref.compute_acc(official)["Overall"]
    )
    assert table.row(name="Group score")["n"] == ref.compute_score(official)["total_q2"]
    assert any("invalid_qtype" in n for n in table.notes)


# --- end to end ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def traced(monkeypatch) -> None:
    from streamspatial.models.openai_compat import OpenAIChatBackend

    defaults = {**OpenAIChatBackend.__init__.__kwdefaults__, "trace_headers": True}
    monkeypatch.setattr(OpenAIChatBackend.__init__, "__kwdefaults__", defaults)


def answer_for(req: RecordedRequest) -> str:
    by_question = {
        "What is ahead?": "A", "Who is ahead?": "B. a man", "What moves?": "C",
        "What comes next?": "D", "What follows?": "I think A", "Which lane?": "A man",
        "Where will it turn?": "C", "Is it raining?": "D", "Why did it stop?": "A",
    }  # fmt: skip
    return next((a for q, a in by_question.items() if q in req.text), "Unknown")


def cli(capsys, *args: object) -> tuple[int, str]:
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("scorer", ["official", "paper"])
def test_run_end_to_end(capsys, tmp_path, scorer: str) -> None:
    data, videos = write_release(tmp_path)
    out = tmp_path / "run"
    with FakeOpenAIServer(answer_for, fps=FPS) as server:
        rc, err = cli(capsys, "run", "--data", data, "--videos", videos, "--model",
                      "openai:fake-vlm", "--base-url", server.base_url, "--out", out,
                      "--no-progress", "--policy", "uniform-16", "--scorer", scorer)  # fmt: skip
        requests = list(server.requests)
    assert rc == 0, err
    # No frame after a query time went over HTTP; every query point is recorded at end_time.
    assert len(requests) == 9 and not [r for r in requests if r.violates_causality()]
    records = list(read_records(out / PREDICTIONS))
    assert {r.policy for r in records} == {"uniform-8" if scorer == "official" else "uniform-16"}
    ends = {f"#{n}": r["end_time"] for n, r in enumerate(rtv_rows(), start=1)}
    for rec in records:
        assert rec.t_q == ends["#" + rec.item_id.rpartition("#")[2]]
        assert rec.frame_times and max(rec.frame_times) <= rec.t_q + 1e-9
    # Under the official scorer, the wrappers' 8 uniform frames of [0, end_time].
    sizes = {len(r.frame_indices) for r in requests}
    assert sizes == ({8} if scorer == "official" else {16})
    # The released ids (whose option<k> suffix leaks the answer) never left the process.
    for r in requests:
        sent = json.dumps(r.body) + json.dumps(r.headers) + r.text
        assert not re.search(r"option\d", sent, re.IGNORECASE)
        assert not any(row["questionID"] in sent for row in rtv_rows())
    assert cli(capsys, "report", out)[0] == 0
    got = json.loads((out / "scores.json").read_text())
    assert got["scorer"] == scorer
    official = ref.results(rtv_rows(), [answer_for_text(q) for q in rtv_rows()])
    acc, score = ref.compute_acc(official), ref.compute_score(official)
    if scorer == "official":
        assert got["headline"]["Overall"] * 100 == pytest.approx(acc["Overall"])
        assert got["headline"]["Group score"] == score["total_score"] / score["total_q2"]
        assert set(got["headline"]) == {"Overall", "Main Macro Avg", "QType Macro Avg",
                                        "Dimension Macro Avg", "Group score"}  # fmt: skip
        assert "Rows where they differ:" in (out / "report.md").read_text()
    else:
        assert got["headline"]["Overall"] == pytest.approx(8 / 9)


def answer_for_text(row_: dict) -> str:
    class _Req:
        text = row_["question"]

    return answer_for(_Req())  # type: ignore[arg-type]


def test_a_text_only_run_stays_text_only_under_the_official_scorer(capsys, tmp_path) -> None:
    data, videos = write_release(tmp_path)
    with FakeOpenAIServer("A", fps=FPS) as server:
        rc, err = cli(capsys, "run", "--data", data, "--videos", videos, "--model",
                      "openai:fake-vlm", "--base-url", server.base_url, "--out", tmp_path / "r",
                      "--no-progress", "--policy", "none", "--scorer", "official")  # fmt: skip
        requests = list(server.requests)
    assert rc == 0, err
    assert requests and all(r.n_images == 0 for r in requests)
