"""``streamspatial score``: replies made elsewhere become an ordinary run folder, scored as the
official code scores them.

OVO-Bench's released results layout (written from ``inference.py``'s schema, never copied) is
scored and reported, every aggregate equal to the transcribed ``OVOBenchScore.py`` on the same
files — including a record filed under its twin's id, as OVO-Bench's Gemini release files five.
The plain JSONL layout is scored on StreamingBench files against the transcribed ``count.py``.
Bad input is one line, exit 2, and no folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import harness_fixtures as hx
import stream_fixtures as fx
import stream_reference as ref
from harness_fixtures import run_cli
from streamspatial.eval.results import PREDICTIONS, read_records


def headline(capsys, run: Path, scorer: str) -> dict[str, float | None]:
    rc, _, err = run_cli(capsys, "report", run, "--scorer", scorer)
    assert rc == 0, err
    return json.loads((run / "scores.json").read_text())["headline"]


# --- OVO-Bench results/<Model>/*.json -----------------------------------------------------------

TWIN = {  # item 2's twin: same task, video and question, asked later, another answer
    "id": 7,
    "task": "EPM",
    "video": "Ego4D/a.mp4",
    "realtime": 9,
    "question": "Where did I put the keys?",
    "answer": "by the door",
    "options": ["on the sofa", "in the drawer", "on the shelf", "by the door"],
    "gt": 3,
}


def ovo_reply(row: dict, probe: dict | None) -> str | None:
    if probe is None:
        return {0: "A", 1: "B.", 2: "C \n", 3: None, 7: "D"}[row["id"]]
    if row["task"] == "REC":
        return "2" if probe["count"] == 2 else "three"
    return {0: "No", 1: "Y"}[probe["type"]] if row["task"] == "SSR" else "Not sure"


@pytest.fixture
def ovo(tmp_path) -> tuple[Path, Path, dict]:
    rows = [*fx.ovobench_rows(), TWIN]
    data = fx.write_json(tmp_path / "ovo_bench_new.json", rows)
    results = hx.ovo_results(rows, ovo_reply)
    for rec in results["backward"]:  # filed under its twin's id, as Gemini's release does
        if rec["id"] == 7:
            rec["id"] = 2
    return data, hx.write_ovo_results(tmp_path / "results" / "ModelX", "ModelX", results), results


def test_ovobench_results_score_as_score_py_with_the_twin_repaired(capsys, tmp_path, ovo):
    data, folder, results = ovo
    out = tmp_path / "run"
    rc, _, err = run_cli(capsys, "score", "--data", data, "--predictions", folder, "--out", out)
    assert rc == 0, err
    (repair,) = [line for line in err.splitlines() if "paired with" in line]
    assert "filed under 2" in repair and "paired with 7" in repair and "'D'" in repair
    official = ref.ovo_score(json.loads(json.dumps(results)))
    got = headline(capsys, out, "official")
    assert got == pytest.approx(official)  # every task, every Avg. and the Total
    records = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert records["7"].raw_output == "D" and records["7"].score == 1.0
    assert records["3"].raw_output == "" and records["3"].extra["imported"]["null_reply"]
    assert records["4_1"].raw_output == "three" and records["5_0"].t_q == 2.0
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["model"] == "ModelX" and meta["imported"]["from"] == "ovobench"
    assert meta["imported"]["model_named_by"] == "the files"
    assert len(meta["imported"]["files"]) == 3
    assert all(len(f["sha256"]) == 64 for f in meta["imported"]["files"])
    assert meta["imported"]["repairs"] == [repair] and meta["imported"]["missing"] == []
    paper = headline(capsys, out, "paper")
    # The paper reads "three" as 3 and "Not sure" as no answer, where score.py reads no digits
    # and a "No" inside "Not sure".
    assert paper["REC"] == 1.0 and official["REC"] == 0.5
    assert paper["CRR"] == 0.0 and official["CRR"] == 0.5


def test_paired_by_id_alone_the_twin_would_be_lost(ovo) -> None:
    """Without the repair, item 2's second record would be a duplicate and 7 unanswered: the
    reference scorer's numbers hold only because it reads each record's own ground truth."""
    from streamspatial.bench.registry import check_benchmark
    from streamspatial.eval.replies import Release, Reply, pair

    data, _, _ = ovo
    adapter, loaded = check_benchmark(data)
    release = Release(data, adapter, loaded.items, loaded.locations)
    own = Reply("f", "backward[2]", "C", record="2", truth="C")
    filed = Reply("f", "backward[3]", "D", record="2", truth="D")
    paired = pair(release, [own, filed])
    assert paired.replies[("2", 0)] is own and paired.replies[("7", 0)] is filed
    assert ("7", 0) not in paired.missing and len(paired.repairs) == 1
    with pytest.raises(Exception, match="a second time"):  # no twin with that ground truth
        pair(release, [own, Reply("f", "backward[4]", "B", record="2", truth="B")])


def test_a_missing_probe_is_left_out_officially_and_wrong_in_the_paper(capsys, tmp_path, ovo):
    data, folder, results = ovo
    forward = folder / "ModelX_CRR_REC_SSR_offline.json"
    part = json.loads(forward.read_text())
    rec = next(r for r in part["forward"] if r["task"] == "REC")
    rec["test_info"] = rec["test_info"][:1]  # the 8 s probe has no reply
    forward.write_text(json.dumps(part))
    out = tmp_path / "run"
    rc, _, err = run_cli(
        capsys, "score", "--data", data, "--predictions", folder, "--out", out, "--model-name", "X"
    )
    assert rc == 0, err
    assert "1 query point(s) without a reply" in err and "4_1#0" in err
    results["forward"] = part["forward"]
    assert headline(capsys, out, "official")["REC"] == ref.ovo_score(results)["REC"] == 1.0
    assert headline(capsys, out, "paper")["REC"] == 0.5  # counted wrong
    meta = json.loads((out / "run.json").read_text())
    assert meta["imported"]["missing"] == ["4_1#0"] and meta["config"]["model"] == "X"
    assert meta["imported"]["model_named_by"] == "--model-name"


def test_report_compare_and_html_read_an_imported_run(capsys, tmp_path, ovo):
    data, folder, _ = ovo
    for name in ("a", "b"):
        rc, _, err = run_cli(
            capsys,
            "score",
            "--data",
            data,
            "--predictions",
            folder,
            "--out",
            tmp_path / name,
            "--model-name",
            name,
        )
        assert rc == 0, err
    rc, out, err = run_cli(capsys, "compare", tmp_path / "a", tmp_path / "b")
    assert rc == 0, err
    assert "Total Avg." in out and "| a" in out.replace("|  a", "| a")
    pytest.importorskip("matplotlib")
    rc, _, err = run_cli(capsys, "report", tmp_path / "a", "--html")
    assert rc == 0, err
    assert "OVO-Bench" in (tmp_path / "a" / "report.html").read_text()


def test_rescoring_the_same_files_replaces_the_folder_in_place(capsys, tmp_path, ovo):
    data, folder, _ = ovo
    out = tmp_path / "run"
    args = ("score", "--data", data, "--predictions", folder, "--out", out)
    assert run_cli(capsys, *args)[0] == 0
    assert run_cli(capsys, *args)[0] == 0  # the same import: done again
    rc, _, err = run_cli(capsys, *args, "--model-name", "other")
    assert rc == 2 and "holds another run" in err and "--force" in err
    assert run_cli(capsys, *args, "--model-name", "other", "--force")[0] == 0
    assert json.loads((out / "run.json").read_text())["config"]["model"] == "other"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["ovo_bench_new.json", "results", "run"]
    )  # nothing left beside it


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda r: r["backward"][0].pop("response"), ":backward[0]: item 2: field 'response'"),
        (lambda r: r["backward"][0].update(id=99), "field 'id': expected the id of a question"),
        (lambda r: r["backward"][0].update(question="?"), "field 'question': expected the rel"),
        (lambda r: r["forward"][0]["test_info"][0].update(realtime=1.5), "field 'realtime'"),
        (lambda r: r["forward"][0].update(test_info="x"), "field 'test_info'"),
    ],
)
def test_a_malformed_record_is_one_line_and_no_folder(capsys, tmp_path, ovo, mutate, expected):
    data, _folder, results = ovo
    mutate(results)
    bad = tmp_path / "bad" / "ModelX"
    hx.write_ovo_results(bad, "ModelX", results)
    out = tmp_path / "run"
    rc, _stdout, err = run_cli(capsys, "score", "--data", data, "--predictions", bad, "--out", out)
    assert rc == 2 and expected in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_files_of_no_known_layout_and_wrong_flags_are_one_line(capsys, tmp_path, ovo):
    data, folder, _ = ovo
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    cases = [
        (("--predictions", junk), "not a predictions file"),
        (("--predictions", tmp_path / "nowhere"), "not found"),
        (("--predictions", folder, "--from", "excel"), "--from 'excel': expected one of"),
        (("--predictions", folder, "--from", "jsonl"), "holds no predictions file"),
    ]
    for extra, expected in cases:
        rc, _, err = run_cli(capsys, "score", "--data", data, "--out", tmp_path / "r", *extra)
        assert rc == 2 and expected in err, err
        assert not (tmp_path / "r").exists()


# --- the plain JSONL ---------------------------------------------------------------------------


def write_plain(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_plain_jsonl_scores_streamingbench_as_count_py(capsys, tmp_path) -> None:
    data = fx.write_json(tmp_path / "questions_real.json", fx.streamingbench_real())
    replies = {"0-0": "A", "0-1": " B", "1-0": "C. a key.", "1-1": "b", "1-2": "A"}
    path = write_plain(
        tmp_path / "replies.jsonl",
        [{"item_id": k, "query_index": 0, "reply": v} for k, v in replies.items()],
    )
    out = tmp_path / "run"
    rc, _, err = run_cli(capsys, "score", "--data", data, "--predictions", path, "--out", out)
    assert rc == 2 and "--model-name" in err  # the plain layout names no model
    rc, _, err = run_cli(
        capsys, "score", "--data", data, "--predictions", path, "--out", out, "--model-name", "m"
    )
    assert rc == 0, err
    questions = fx.streamingbench_real()
    for n, entry in enumerate(questions):
        for k, q in enumerate(entry["questions"]):
            q["m"] = replies[f"{n}-{k}"]
    official = ref.count_py(questions, "real", "m")
    got = headline(capsys, out, "official")
    assert got["real total"] == official["total"]["accuracy"] == 0.6
    assert got["Spatial Understanding"] == official["Spatial Understanding"]["accuracy"]


def test_plain_jsonl_proactive_dialogues_by_query_time(capsys, tmp_path) -> None:
    data = fx.write_json(tmp_path / "questions_proactive.json", fx.streamingbench_proactive())

    def dialog(t: float, content: str) -> str:
        history = [
            {"role": "user", "content": "probe", "time": t},
            {"role": "assistant", "content": content, "time": t},
        ]
        return json.dumps({"answered": t, "dialog_history": history})

    lines = [
        {"item_id": "0-0", "t_q": 9.0, "reply": dialog(5.0, "The ball is red")},
        {"item_id": "1-0", "reply": dialog(8.0, "the door is open")},
    ]
    out = tmp_path / "run"
    rc, _, err = run_cli(
        capsys,
        "score",
        "--data",
        data,
        "--out",
        out,
        "--model-name",
        "m",
        "--predictions",
        write_plain(tmp_path / "p.jsonl", lines),
    )
    assert rc == 0, err
    questions = fx.streamingbench_proactive()
    for n, entry in enumerate(questions):
        entry["questions"][0]["m"] = json.loads(lines[n]["reply"])
    official = ref.count_py(questions, "proactive", "m")["Proactive Output"]
    got = headline(capsys, out, "official")
    assert got["Proactive Output"] == official["answer_accuracy"] == 0.5
    assert got["Proactive Output time_accuracy"] == official["time_accuracy"] == 0.5


def test_plain_jsonl_bad_lines_are_named(capsys, tmp_path) -> None:
    data = fx.write_json(tmp_path / "questions_real.json", fx.streamingbench_real())
    cases = [
        ({"item_id": "9-9", "reply": "A"}, ":1: item 9-9: field 'item_id'"),
        ({"item_id": "0-0", "reply": 3}, ":1: item 0-0: field 'reply': expected text or null"),
        ({"item_id": "0-0", "t_q": "x", "reply": "A"}, "field 't_q'"),
        ({"item_id": "0-0", "query_index": 2, "reply": "A"}, "field 'query_index'"),
    ]
    for line, expected in cases:
        path = write_plain(tmp_path / "p.jsonl", [line])
        rc, _, err = run_cli(
            capsys,
            "score",
            "--data",
            data,
            "--predictions",
            path,
            "--out",
            tmp_path / "r",
            "--model-name",
            "m",
            "--from",
            "jsonl",
        )
        assert rc == 2 and expected in err, err
        assert not (tmp_path / "r").exists()
