"""``streamspatial score`` on the files lmms-eval and VLMEvalKit write, in their documented
layouts (``harness_fixtures``): each imports, pairs with the release, and scores as the
transcribed official code scores the same replies."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import harness_fixtures as hx
import official_reference as oref
import stream_fixtures as fx
import stream_reference as ref
from harness_fixtures import run_cli
from streamspatial.eval.results import PREDICTIONS, read_records


def scored(capsys, *args: object) -> Path:
    out = Path(str(args[args.index("--out") + 1]))
    rc, _, err = run_cli(capsys, "score", *args)
    assert rc == 0, err
    return out


def scores(capsys, run: Path, scorer: str) -> dict:
    rc, _, err = run_cli(capsys, "report", run, "--scorer", scorer)
    assert rc == 0, err
    return json.loads((run / "scores.json").read_text())


# --- VSI-Bench ----------------------------------------------------------------------------------

VSI_ROWS = [
    {
        "id": 10,
        "dataset": "arkitscenes",
        "scene_name": "41069025",
        "question_type": "object_counting",
        "question": "How many chair(s) are in this room?",
        "options": None,
        "ground_truth": "4",
    },
    {
        "id": 11,
        "dataset": "scannet",
        "scene_name": "scene0011_00",
        "question_type": "object_rel_direction_easy",
        "question": "Standing by the sofa facing the tv, is the lamp to my left or right?",
        "options": ["A. left", "B. right"],
        "ground_truth": "B",
    },
    {
        "id": 12,
        "dataset": "scannet",
        "scene_name": "scene0011_00",
        "question_type": "room_size_estimation",
        "question": "What is the size of this room (in square meters)?",
        "options": None,
        "ground_truth": "21.5",
    },
    {
        "id": 13,
        "dataset": "scannet",
        "scene_name": "scene0011_00",
        "question_type": "object_rel_distance",
        "question": "Which is closest to the sofa?",
        "options": ["A. tv", "B. lamp", "C. desk", "D. bed"],
        "ground_truth": "C",
    },
]
VSI_REPLIES = {10: "4 chairs", 11: "B.", 12: "20", 13: "The desk"}


@pytest.fixture
def vsi(tmp_path) -> Path:
    columns = {k: [r[k] for r in VSI_ROWS] for k in VSI_ROWS[0]}
    path = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(pa.table(columns), path)
    return path


def vsi_official(replies: dict[int, str]) -> float:
    """``vsibench_process_results`` then ``vsibench_aggregate_results`` (transcribed)."""
    per_type = {}
    for row in VSI_ROWS:
        pred = replies[row["id"]]
        if row["options"] is None:
            per_type[row["question_type"]] = oref.vsi_na_score(pred, row["ground_truth"])
        else:
            got = oref.vsi_exact_match(oref.vsi_fuzzy_matching(pred), row["ground_truth"])
            per_type[row["question_type"]] = got
    return oref.vsi_aggregate(per_type)["overall"]


def vsi_doc_metric(row: dict) -> dict:
    doc = {**row, "prediction": VSI_REPLIES[row["id"]]}
    return {"vsibench_score": doc}


@pytest.mark.parametrize("old_layout", [False, True])
def test_lmms_eval_vsibench_samples(capsys, tmp_path, vsi, old_layout) -> None:
    lines = [
        hx.lmms_sample(
            n,
            row,
            VSI_REPLIES[row["id"]],
            row["ground_truth"],
            vsi_doc_metric(row),
            old_layout=old_layout,
        )
        for n, row in enumerate(VSI_ROWS)
    ]
    folder = tmp_path / "logs" / "qwen2_vl__7b"
    hx.write_lmms_samples(folder, "vsibench", lines)
    out = scored(capsys, "--data", vsi, "--predictions", tmp_path / "logs", "--out", tmp_path / "r")
    got = scores(capsys, out, "official")
    assert got["headline"]["Overall"] == pytest.approx(vsi_official(VSI_REPLIES))
    assert got["model"] == "qwen2_vl__7b"  # lmms-eval's model folder
    records = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert records["10"].raw_output == "4 chairs" and records["12"].score == pytest.approx(0.9)


def test_lmms_eval_sample_without_its_doc_is_one_line(capsys, tmp_path, vsi) -> None:
    line = hx.lmms_sample(0, VSI_ROWS[0], "4", "4", {"vsibench_score": 1.0})
    path = hx.write_lmms_samples(tmp_path / "m", "vsibench_debiased", [line])
    rc, _, err = run_cli(
        capsys, "score", "--data", vsi, "--predictions", path, "--out", tmp_path / "r"
    )
    assert rc == 2 and ":1: field 'doc': expected the sample's doc" in err
    other = hx.write_lmms_samples(tmp_path / "n", "mvbench", [line])
    rc, _, err = run_cli(
        capsys, "score", "--data", vsi, "--predictions", other, "--out", tmp_path / "r"
    )
    assert rc == 2 and "task 'mvbench': expected one of vsibench" in err


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv"])
def test_vlmevalkit_vsibench_predictions(capsys, tmp_path, vsi, suffix) -> None:
    if suffix == ".xlsx":
        pytest.importorskip("openpyxl")
    header = ["index", "video", "question", "question_type", "candidates", "answer", "prediction"]
    rows = [
        [
            r["id"],
            f"{r['dataset']}/{r['scene_name']}.mp4",
            r["question"],
            r["question_type"],
            json.dumps(r["options"]),
            r["ground_truth"],
            VSI_REPLIES[r["id"]],
        ]
        for r in VSI_ROWS
    ]
    path = hx.write_vlmevalkit(
        tmp_path / "preds" / f"Qwen2.5-VL-7B_VSI-Bench{suffix}", header, rows
    )
    out = scored(capsys, "--data", vsi, "--predictions", path, "--out", tmp_path / "r")
    got = scores(capsys, out, "official")
    assert got["headline"]["Overall"] == pytest.approx(vsi_official(VSI_REPLIES))
    assert got["model"] == "Qwen2.5-VL-7B"
    rows[1][2] = "Is the lamp left of the tv?"  # not this release's question
    bad = hx.write_vlmevalkit(tmp_path / "bad" / f"M_VSI-Bench{suffix}", header, rows)
    rc, _, err = run_cli(
        capsys, "score", "--data", vsi, "--predictions", bad, "--out", tmp_path / "b"
    )
    assert rc == 2 and ":3: item 11: field 'question'" in err and not (tmp_path / "b").exists()


# --- OVO-Bench through lmms-eval ----------------------------------------------------------------


def test_lmms_eval_ovobench_tasks(capsys, tmp_path) -> None:
    rows = fx.ovobench_rows()
    data = fx.write_json(tmp_path / "ovo_bench_new.json", rows)

    def reply(row: dict, probe: dict | None) -> str:
        return "A" if probe is None else ("2" if row["task"] == "REC" else "Yes")

    results = hx.ovo_results(rows, reply)
    folder = tmp_path / "logs" / "model"
    for task, mode, metric in (
        ("ovo_backward", "backward", "back_real_acc"),
        ("ovo_realtime", "realtime", "back_real_acc"),
        ("ovo_forward", "forward", "forward_acc"),
    ):
        lines = []
        for n, rec in enumerate(results[mode]):
            doc = next(r for r in rows if r["id"] == rec["id"])
            text = [p["response"] for p in rec["test_info"]] if mode == "forward" else "A"
            lines.append(hx.lmms_sample(n, doc, text, "", {metric: rec}))
        hx.write_lmms_samples(folder, task, lines)
    out = scored(capsys, "--data", data, "--predictions", folder, "--out", tmp_path / "r")
    assert scores(capsys, out, "official")["headline"] == pytest.approx(ref.ovo_score(results))


# --- VSI-SUPER through Cambrian-S's tasks -------------------------------------------------------


def test_lmms_eval_cambrians_tasks_recall_count_and_streaming(capsys, tmp_path) -> None:
    recall = fx.write_json(tmp_path / "recall.json", fx.vsisuper_recall())
    folder = tmp_path / "logs" / "cambrians"
    docs = fx.vsisuper_recall()
    lines = [
        hx.lmms_sample(n, d, r, d["answer"], {"score": {**d, "prediction": r}})
        for n, (d, r) in enumerate(zip(docs, ["B. Bed, Sofa", "A"], strict=True))
    ]
    hx.write_lmms_samples(folder, "cambrians_vsr_10mins", lines)
    out = scored(capsys, "--data", recall, "--predictions", folder, "--out", tmp_path / "r")
    got = scores(capsys, out, "official")["headline"]
    assert got == {
        "10mins": ref.vsr_process_results(docs[0], ["B. Bed, Sofa"]),
        "30mins": ref.vsr_process_results(docs[1], ["A"]),
    }

    count = fx.write_json(tmp_path / "count.json", fx.vsisuper_count())
    stream = next(d for d in fx.vsisuper_count() if "query_times" in d)
    line = hx.lmms_sample(0, stream, "[1, 3, 4]", stream["answers"], {"score": stream})
    samples = hx.write_lmms_samples(tmp_path / "s" / "m", "cambrians_vsc_streaming_10mins", [line])
    out = scored(capsys, "--data", count, "--predictions", samples, "--out", tmp_path / "c")
    records = sorted(
        (r for r in read_records(out / PREDICTIONS) if r.item_id == "10mins_streaming-2"),
        key=lambda r: r.query_index,
    )
    official = ref.vsc_streaming_process_results(stream, ["[1, 3, 4]"])
    assert [r.raw_output for r in records] == ["1", "3", "4"]
    assert [r.score for r in records] == pytest.approx([float(a.mean()) for a in official])
    assert len(read_records(out / PREDICTIONS)) == 5  # the two counts have no reply
    line = hx.lmms_sample(0, stream, "3 chairs", stream["answers"], {"score": stream})
    bad = hx.write_lmms_samples(tmp_path / "b" / "m", "cambrians_vsc_streaming_10mins", [line])
    rc, _, err = run_cli(
        capsys, "score", "--data", count, "--predictions", bad, "--out", tmp_path / "x"
    )
    assert rc == 2 and "field 'filtered_resps': expected a JSON list of one count per" in err


# --- OST-Bench through VLMEvalKit ---------------------------------------------------------------


def test_vlmevalkit_ost_predictions_by_turn(capsys, tmp_path) -> None:
    rows = fx.ost_rows()
    data = fx.write_json(tmp_path / "OST_bench.json", rows)

    def prediction(row: dict) -> str:
        if row["option"]:
            return '{"answer": "Right", "reason": "it is"}'
        return '{"answer": "2", "reason": "counted"}'

    header = ["index", "question", "image_path", "type", "answer", "option", "prediction"]
    sheet = [
        [
            n,
            "<ImageHere>" * len(r["new_observations"]) + r["user_message"],
            json.dumps(r["new_observations"]),
            r["type"],
            r["answer"],
            json.dumps(r["option"]),
            prediction(r),
        ]
        for n, r in enumerate(rows)
    ]
    path = hx.write_vlmevalkit(tmp_path / "GPT4o_OST.tsv", header, sheet)
    out = scored(capsys, "--data", data, "--predictions", path, "--out", tmp_path / "r")
    _, overall = ref.ost_evaluate([{**r, "response": prediction(r)} for r in rows])
    got = scores(capsys, out, "official")["headline"]
    assert got == pytest.approx(overall)
    sheet[4][4] = '"Front-left"'  # a stored answer this release does not have
    sheet[5][4] = "7.5"
    bad = hx.write_vlmevalkit(tmp_path / "bad" / "GPT4o_OST.tsv", header, sheet)
    rc, _, err = run_cli(
        capsys, "score", "--data", data, "--predictions", bad, "--out", tmp_path / "b"
    )
    assert rc == 0, err  # two of 21: named, scored against the release
    assert err.count("differs from the release's") == 2
