"""``streamspatial run`` on release-shaped OVO-Bench, StreamingBench, OST-Bench and VSI-SUPER
files, end to end over HTTP against the loopback server answering from a script.

For each: every reply is recorded verbatim with its query time; no request carries a frame
after its query time (the server reads the frame index drawn into every image, and the
runner's request check refuses any); ``scores.json`` names each aggregate as the official code
prints it and, under ``--scorer official``, equals the transcribed official code on the same
replies; ``report --scorer paper`` rescores the same records without touching frames.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import stream_fixtures as fx
import stream_reference as ref
from streamspatial.cli import main
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.testing.openai_server import FakeOpenAIServer, RecordedRequest


@pytest.fixture(autouse=True)
def traced(monkeypatch) -> None:
    """Every request names its item and query time in a header, so the server can check it
    against the frames it decodes (``RecordedRequest.violates_causality``)."""
    from streamspatial.models.openai_compat import OpenAIChatBackend

    defaults = {**OpenAIChatBackend.__init__.__kwdefaults__, "trace_headers": True}
    monkeypatch.setattr(OpenAIChatBackend.__init__, "__kwdefaults__", defaults)


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def run(capsys, server, data: Path, videos: Path, out: Path, *extra: object):
    return run_cli(
        capsys,
        "run",
        "--data",
        data,
        "--videos",
        videos,
        "--model",
        "openai:fake-vlm",
        "--base-url",
        server.base_url,
        "--out",
        out,
        "--no-progress",
        *extra,
    )


def scores(capsys, out: Path, *extra: str) -> dict:
    rc, _, err = run_cli(capsys, "report", out, *extra)
    assert rc == 0, err
    return json.loads((out / "scores.json").read_text())


def latest(req: RecordedRequest) -> int:
    return max((i for i in req.frame_indices if i is not None), default=-1)


def assert_causal(requests: list[RecordedRequest], out: Path) -> list:
    """Nothing after a query time went over HTTP, and every record keeps its reply verbatim."""
    assert requests and all(r.query_time is not None for r in requests)
    assert not [r for r in requests if r.violates_causality()]
    records = list(read_records(out / PREDICTIONS))
    for r in records:
        assert all(t <= r.t_q + 1e-9 for t in r.frame_times), r
    return records


# --- OVO-Bench -----------------------------------------------------------------------------


def ovo_answer(req: RecordedRequest) -> str:
    text = req.text
    if "single number" in text:
        return "2 or 3" if latest(req) < 60 else "3"
    if "tutorial video" in text or "latest frames" in text:
        return "Not sure" if latest(req) < 40 else "Yes"
    return "B, not A" if "sign" in text else "C"


@pytest.fixture(scope="module")
def ovo_release(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ovo")
    data = fx.write_json(root / "ovo_bench_new.json", fx.ovobench_rows())
    return data, fx.write_videos(root / "videos", fx.OVO_VIDEOS)


def test_ovobench_official_run(capsys, tmp_path, ovo_release) -> None:
    data, videos = ovo_release
    out = tmp_path / "run"
    with FakeOpenAIServer(ovo_answer, fps=fx.FPS) as server:
        rc, _, err = run(capsys, server, data, videos, out, "--policy", "uniform-8")
        records = assert_causal(list(server.requests), out)
    assert rc == 0, err
    by_id = {r.item_id: r for r in records}
    assert sorted(by_id) == ["0", "1", "2", "3", "4_0", "4_1", "5_0", "5_1", "6_0", "6_1"]
    assert by_id["4_0"].t_q == 4.3 and by_id["4_0"].raw_output == "2 or 3"
    assert max(by_id["4_0"].frame_times) <= 4.3
    # The official numbers of the same replies, as OVOBenchScore.py prints them.
    results: dict[str, list] = {"backward": [], "realtime": [], "forward": []}
    mode = {"EPM": "backward", "ASI": "backward", "STU": "realtime", "OCR": "realtime"}
    for row in fx.ovobench_rows():
        if "test_info" in row:
            info = [
                dict(t, response=by_id[f"{row['id']}_{i}"].raw_output)
                for i, t in enumerate(row["test_info"])
            ]
            results["forward"].append({**row, "test_info": info})
        else:
            results[mode[row["task"]]].append(
                {
                    "task": row["task"],
                    "ground_truth": chr(65 + row["gt"]),
                    "response": by_id[str(row["id"])].raw_output,
                }
            )
    official = ref.ovo_score(results)
    got = scores(capsys, out)
    assert got["scorer"] == "official" and got["clips"] == "prefix" and got["history"] == "own"
    assert got["headline"] == pytest.approx(official)
    assert set(got["headline"]) >= {"Backward Avg.", "Realtime Avg.", "Forward Avg.", "Total Avg."}
    # The paper reading differs exactly on the quirks: REC's first number, SSR/CRR's yes/no,
    # OCR's leading letter.
    paper = scores(capsys, out, "--scorer", "paper")["headline"]
    assert (official["REC"], paper["REC"]) == (0.5, 1.0)  # "2 or 3" reads 23 officially
    assert (official["SSR"], paper["SSR"]) == (1.0, 0.5)  # "Not sure" is a No officially
    assert (official["OCR"], paper["OCR"]) == (1.0, 1.0)
    assert paper["Total Avg."] != official["Total Avg."]
    report = (out / "report.md").read_text()
    assert "Rows where they differ:" in report and "| Forward | SSR |" in report


def test_ovobench_official_clips_only_on_request(capsys, tmp_path, ovo_release) -> None:
    """``--clips official`` shows the forward probe at 4.3 s its clip up to ⌈4.3⌉ = 5 s, and
    the report says so; the same records rescore under either scorer."""
    data, videos = ovo_release
    out = tmp_path / "run"
    with FakeOpenAIServer(ovo_answer, fps=fx.FPS) as server:
        rc, _, err = run(
            capsys,
            server,
            data,
            videos,
            out,
            "--policy",
            "uniform-8",
            "--clips",
            "official",
            "--limit",
            "5",
        )
        seen = {round(latest(r) / fx.FPS, 2) for r in server.requests}
    assert rc == 0, err
    (rec,) = [r for r in read_records(out / PREDICTIONS) if r.item_id == "4_0"]
    assert rec.t_q == 4.3 and max(rec.frame_times) == 5.0
    assert rec.extra["shown_until"] == 5.0 and 5.0 in seen
    got = scores(capsys, out)
    assert got["clips"] == "official"
    assert "clips: `official`" in (out / "report.md").read_text()
    assert scores(capsys, out, "--scorer", "paper")["clips"] == "official"


# --- StreamingBench ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sb_release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sb")
    fx.write_json(root / "questions_real.json", fx.streamingbench_real())
    fx.write_json(root / "questions_sqa.json", fx.streamingbench_sqa())
    fx.write_json(root / "questions_proactive.json", fx.streamingbench_proactive())
    fx.write_videos(root, fx.STREAMING_VIDEOS)
    return root


def sb_answer(req: RecordedRequest) -> str:
    text = req.text
    if "right time to output" in text:
        return "Yes, now." if latest(req) >= 50 else "no"
    if "carefully confirm whether" in text:
        return "The ball is red" if "ball" in text else "the door is open"
    if "right now" in text:
        return " B" if "hand" in text else "A"
    return "C. a key." if "Which object" in text else "B"


def test_streamingbench_real_and_sqa(capsys, tmp_path, sb_release) -> None:
    with FakeOpenAIServer(sb_answer, fps=fx.FPS) as server:
        rc, _, err = run(
            capsys,
            server,
            sb_release / "questions_real.json",
            sb_release,
            tmp_path / "real",
            "--policy",
            "uniform-4",
        )
        assert rc == 0, err
        records = assert_causal(list(server.requests), tmp_path / "real")
        assert {r.item_id: r.t_q for r in records}["0-1"] == 5.0  # "00:05"
        data = fx.streamingbench_real()
        replies = {r.item_id: r.raw_output for r in records}
        for n, entry in enumerate(data):
            for k, q in enumerate(entry["questions"]):
                q["m"] = replies[f"{n}-{k}"]
        official = ref.count_py(data, "real", "m")
        got = scores(capsys, tmp_path / "real")["headline"]
        named = {("real total" if k == "total" else k): v["accuracy"] for k, v in official.items()}
        assert got == named and "real total" in got
        server.requests.clear()
        rc, _, err = run(
            capsys,
            server,
            sb_release / "questions_sqa.json",
            sb_release,
            tmp_path / "sqa",
            "--policy",
            "uniform-4",
        )
        assert rc == 0, err
        sqa = sorted(server.requests, key=lambda r: r.query_time)
        assert_causal(sqa, tmp_path / "sqa")
    # Each question recounts the earlier ones with the *model's* letters, never the truth.
    assert "Options: A. red, B. green, C. blue, D. white; Answer: B;" in sqa[1].text
    assert "At timestamp 00:00:02" in sqa[2].text and "Answer: A;" not in sqa[2].text
    assert "contextual information" not in sqa[0].text


def test_streamingbench_omni_file_is_counted_as_one_file(capsys, tmp_path) -> None:
    """``questions_omni.json`` holds omni-source and contextual tasks; count.py run on it
    prints one total over the whole file, and so does the official table."""
    root = tmp_path / "src"
    fx.write_videos(root, fx.STREAMING_VIDEOS)
    data = fx.write_json(root / "questions_omni.json", fx.streamingbench_omni())

    def omni_answer(req: RecordedRequest) -> str:  # right on the omni tasks only
        return "A" if "feel" in req.text else "C" if "speaking" in req.text else "A"

    with FakeOpenAIServer(omni_answer, fps=fx.FPS) as server:
        rc, _, err = run(capsys, server, data, root, tmp_path / "omni", "--policy", "uniform-4")
    assert rc == 0, err
    questions = fx.streamingbench_omni()
    replies = {r.item_id: r.raw_output for r in read_records(tmp_path / "omni" / PREDICTIONS)}
    for n, entry in enumerate(questions):
        for k, q in enumerate(entry["questions"]):
            q["m"] = replies[f"{n}-{k}"]
    official = ref.count_py(questions, "omni", "m")
    report = scores(capsys, tmp_path / "omni")
    got = report["headline"]
    assert got["omni total"] == official["total"]["accuracy"] == 0.5
    assert "total" not in got and "real total" not in got
    assert {r["file"] for r in report["table"]["rows"]} == {"omni"}
    paper = scores(capsys, tmp_path / "omni", "--scorer", "paper")["headline"]
    assert paper["Omni-Source Understanding"] == 1.0 and paper["Contextual Understanding"] == 0.0


def test_streamingbench_sqa_official_history_only_on_request(capsys, tmp_path, sb_release):
    """``--history official`` recounts the earlier questions as StreamingBenchSQA.py does, with
    their ground-truth letters (A, then B), where the default shows the model's own (B, B);
    the run is marked in scores.json, report.md and its label."""
    with FakeOpenAIServer(sb_answer, fps=fx.FPS) as server:
        rc, _, err = run(
            capsys,
            server,
            sb_release / "questions_sqa.json",
            sb_release,
            tmp_path / "sqa",
            "--policy",
            "uniform-4",
            "--history",
            "official",
        )
        assert rc == 0, err
        sqa = sorted(server.requests, key=lambda r: r.query_time)
        assert_causal(sqa, tmp_path / "sqa")  # frames stay in the prefix all the same
    assert "Options: A. red, B. green, C. blue, D. white; Answer: A;" in sqa[1].text
    assert "Answer: B;" not in sqa[1].text
    assert sqa[2].text.count("Answer: A;") == 1 and sqa[2].text.count("Answer: B;") == 1
    got = scores(capsys, tmp_path / "sqa")
    assert got["history"] == "official" and got["clips"] == "prefix"
    assert "history: `official`" in (tmp_path / "sqa" / "report.md").read_text()
    assert scores(capsys, tmp_path / "sqa", "--scorer", "paper")["history"] == "official"


def test_streamingbench_proactive_polls_every_second(capsys, tmp_path, sb_release) -> None:
    """The benchmark selects its polling protocol: no flag; an agent that cannot poll is
    refused with one line and no run folder."""
    data = sb_release / "questions_proactive.json"
    with FakeOpenAIServer(sb_answer, fps=fx.FPS) as server:
        rc, _, err = run(capsys, server, data, sb_release, tmp_path / "f", "--agent", "folding")
        assert rc == 2 and "--agent folding cannot do" in err and len(err.splitlines()) == 1
        assert not (tmp_path / "f").exists() and not server.requests
        rc, _, err = run(capsys, server, data, sb_release, tmp_path / "p")
        requests = list(server.requests)
    assert rc == 0, err
    records = assert_causal(requests, tmp_path / "p")
    polls = sorted(r.query_time for r in requests if "right time" in r.text and "ball" in r.text)
    assert polls == [3.0, 4.0, 5.0]  # from time_stamp + 1 until the first "yes"
    for r in requests:  # each poll shows [time_stamp, t] only
        assert latest(r) / fx.FPS <= r.query_time
    by_id = {r.item_id: r for r in records}
    dialog = json.loads(by_id["0-0"].raw_output)
    assert dialog["answered"] == 5.0
    assert [m["time"] for m in dialog["dialog_history"]] == [3.0, 3.0, 4.0, 4.0, 5.0, 5.0, 5.0, 5.0]
    assert dialog["dialog_history"][-1]["content"] == "The ball is red"
    questions = fx.streamingbench_proactive()
    for n, entry in enumerate(questions):
        entry["questions"][0]["m"] = json.loads(by_id[f"{n}-0"].raw_output)
    official = ref.count_py(questions, "proactive", "m")["Proactive Output"]
    got = scores(capsys, tmp_path / "p")["headline"]
    assert got["Proactive Output"] == official["answer_accuracy"] == 0.5  # "the door" ≠ "The door"
    assert got["Proactive Output time_accuracy"] == official["time_accuracy"] == 1.0
    paper = scores(capsys, tmp_path / "p", "--scorer", "paper")["headline"]
    assert paper["Overall"] == 1.0  # the paper reads the expected text in any case


# --- OST-Bench -----------------------------------------------------------------------------


def ost_answer(req: RecordedRequest) -> str:
    turn = int(req.text.rsplit("Turn ", 1)[1].split(":")[0])
    replies = [
        '{"answer": "Right", "reason": "x"}',
        "{'answer': 'Left', 'reason': 'y'}",
        '{"answer": 2.2, "reason": "z"}',
        '{"answer": "none", "reason": "n"}',
        "3",
        "often",
    ]
    return replies[turn % len(replies)]


def test_ostbench_dialogue_with_the_models_own_replies(capsys, tmp_path) -> None:
    rows = fx.ost_rows()
    data = fx.write_json(tmp_path / "OST_bench.json", rows)
    images = fx.write_ost_images(tmp_path / "images", rows)
    out = tmp_path / "run"
    with FakeOpenAIServer(ost_answer, fps=1.0) as server:
        rc, _, err = run(capsys, server, data, images, out)
        requests = list(server.requests)
    assert rc == 0, err
    records = assert_causal(requests, out)
    assert len(records) == 21
    turn3 = next(r for r in requests if "Turn 3:" in r.body["messages"][-1]["content"][-1]["text"])
    roles = [m["role"] for m in turn3.body["messages"]]
    assert roles == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert turn3.body["messages"][0]["content"] == fx.OST_SYSTEM
    assert [m["content"] for m in turn3.body["messages"] if m["role"] == "assistant"] == [
        ost_answer_for(k) for k in range(3)
    ]  # the model's own replies, verbatim
    assert turn3.frame_indices == [0, 1, 2, 3, 4, 5]  # turns 0–3 show 1, 2, 1, 2 images
    samples = []
    by_id = {r.item_id: r for r in records}
    counts: dict[str, int] = {}
    for row in rows:
        k = counts.get(row["scan_id"], 0)
        counts[row["scan_id"]] = k + 1
        samples.append({**row, "response": by_id[f"{row['scan_id']}#{k}"].raw_output})
    full, overall = ref.ost_evaluate(samples)
    got = scores(capsys, out)
    assert got["headline"] == pytest.approx(overall)
    types = {r["name"]: r["score"] for r in got["table"]["rows"] if r["group"] == "type"}
    assert {k: types[k] for k in full} == pytest.approx(full)
    paper = scores(capsys, out, "--scorer", "paper")["headline"]
    assert paper["Counting"] != overall["Counting"] or paper["Overall"] != overall["Overall"]


def ost_answer_for(turn: int) -> str:
    class _Req:
        text = f"Turn {turn}: x"

    return ost_answer(_Req())  # type: ignore[arg-type]


# --- VSI-SUPER -----------------------------------------------------------------------------


def vsi_answer(req: RecordedRequest) -> str:
    if "option's letter" in req.text:
        return " B" if latest(req) < 70 else "c."
    return {-1: "0"}.get(latest(req), "8" if latest(req) >= 95 else "5 chairs")


def test_vsisuper_recall_and_count(capsys, tmp_path) -> None:
    videos = fx.write_videos(tmp_path / "videos", fx.VSI_SUPER_VIDEOS)
    recall = fx.write_json(tmp_path / "recall.json", fx.vsisuper_recall())
    count = fx.write_json(tmp_path / "count.json", fx.vsisuper_count())
    with FakeOpenAIServer(vsi_answer, fps=fx.FPS) as server:
        rc, _, err = run(capsys, server, recall, videos, tmp_path / "r", "--policy", "uniform-4")
        assert rc == 0, err
        rc, _, err = run(capsys, server, count, videos, tmp_path / "c", "--policy", "uniform-4")
        assert rc == 0, err
        requests = list(server.requests)
    assert_causal(requests, tmp_path / "r")
    records = assert_causal(requests, tmp_path / "c")
    assert sorted(r.t_q for r in records) == [3.0, 6.0, 6.0, 9.0, 10.0]  # end of video, times
    replies = {(r.item_id, r.query_index): r.raw_output for r in records}
    got_r = scores(capsys, tmp_path / "r")["headline"]
    recall_rows = fx.vsisuper_recall()
    expected = {}
    for n, row in enumerate(recall_rows):
        reply = next(
            r.raw_output
            for r in read_records(tmp_path / "r" / PREDICTIONS)
            if r.item_id == f"{row['type']}-{n}"
        )
        expected[row["type"]] = ref.vsr_process_results(row, [reply])
    assert got_r == expected == {"10mins": 0.0, "30mins": 1.0}
    assert scores(capsys, tmp_path / "r", "--scorer", "paper")["headline"]["10mins"] == 1.0
    got_c = scores(capsys, tmp_path / "c")["headline"]
    rows = fx.vsisuper_count()
    singles = []
    for n, row in enumerate(rows[:2]):
        try:
            singles.append(ref.vsc_process_results(row, [replies[(f"10mins-{n}", 0)]]))
        except ValueError:  # the task raises on "5 chairs": recorded invalid, scored 0
            singles.append(0.0)
    assert got_c["10mins"] == pytest.approx(sum(singles) / 2)
    stream = rows[2]
    # The streaming reply list as the task would parse it: numbers, and the text it cannot.
    said = [replies[("10mins_streaming-2", k)] for k in range(3)]
    outputs = [json.loads(r) if r.strip().isdigit() else r for r in said]
    assert "5 chairs" in outputs  # an error the task scores a perfect 1.0
    accs = ref.vsc_streaming_process_results(stream, [json.dumps(outputs)])
    assert got_c["10mins_streaming"] == pytest.approx(sum(a.mean() for a in accs) / 3)
