"""MMSI-Video-Bench's ``data/mmsivideo.json`` as released: reading, validating, the official
sampling, placeholder filling and reader rule by rule, and a run end to end over HTTP.

The fixture is written from the schema ``dataset.py`` and ``evaluation.py`` read; its frames
and reference images are generated stills, each drawing its index in the item's stream (the
clips' frames in listed order, then the reference images), so the loopback server reads which
image each request carried and in which order.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from PIL import Image

import mmsi_reference as ref
from streamspatial.agents.clips import slots
from streamspatial.bench import check_benchmark, load_benchmark
from streamspatial.bench.base import Clips
from streamspatial.bench.mmsivideo.score import mmsi_answer, mmsivideo_table
from streamspatial.bench.registry import detect_format
from streamspatial.cli import main
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.scoring.scorers import score_all
from streamspatial.testing.openai_server import FakeOpenAIServer, RecordedRequest
from streamspatial.video.synthetic import draw_frame

SYSTEM = "You are an expert in spatial reasoning over videos."
FORMAT = "\nAnswer with the option's letter, in the form \\boxed{X}."
OPTIONS = "\nA. the sofa\nB. the lamp\nC. the door\nD. the bed"


def record(qid: str, qtype: str, sizes: list[int], refs: int, user: str, truth: str) -> dict:
    frames = [[f"scene{qid}/clip{c}/{k:05d}.jpg" for k in range(n)] for c, n in enumerate(sizes)]
    return {
        "id": qid, "type": qtype, "ori_question": user.replace("<video>", ""),
        "ref_images": [f"scene{qid}/ref{r}.png" for r in range(refs)],
        "video_list": [{"path": f"scene{qid}/clip{c}.mp4", "start": 10.0 * c,
                        "end": 10.0 * c + n / 2, "base_fps": 2.0} for c, n in enumerate(sizes)],
        "frames_list": frames, "system_prompt": SYSTEM, "task_prompt": "Task: spatial. ",
        "user_prompt": user, "format_prompt": FORMAT, "ground_truth": truth,
    }  # fmt: skip


def mmsi_rows() -> list[dict]:
    return [
        record("question_0000", "(Cross-Video) Memoery Update", [40, 30], 1,
               "First <video> then <video>. The target <image> moved where?" + OPTIONS, "B"),
        record("question_0001", "Planning", [10], 1,
               "The target is <image>. In <video>, where should I go?" + OPTIONS, "C"),
        record("question_0002", "Prediction", [5], 0,
               "Watch <video>. What comes next?" + OPTIONS, "A"),
    ]  # fmt: skip


def write_release(root: Path, rows: list[dict] | None = None) -> tuple[Path, Path]:
    rows = rows or mmsi_rows()
    data_root = root / "data"
    data_root.mkdir(parents=True)
    data = data_root / "mmsivideo.json"
    data.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    for rec in rows:
        files = [data_root / "frames" / f for clip in rec["frames_list"] for f in clip]
        files += [data_root / "ref_images" / r for r in rec["ref_images"]]
        for k, f in enumerate(files):
            f.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(draw_frame(k, (96, 64))).save(f, quality=95)
    return data, data_root


def test_reads_the_release(tmp_path) -> None:
    data, root = write_release(tmp_path)
    assert detect_format(data) == "mmsivideo"
    adapter, items = load_benchmark(data, videos=root)
    first = items[0]
    assert adapter.protocol == "offline" and first.meta["offline"]
    assert first.queries[0].time == 70.0  # 40 + 30 frames + 1 reference image, one a second
    assert [c["frames"] for c in first.meta["clips"]] == [[0, 39], [40, 69]]
    assert first.meta["clips"][1]["start"] == 10.0 and first.meta["clips"][1]["end"] == 25.0
    assert first.letters == "ABCD" and first.options[1].text == "the lamp"
    assert adapter.system_prompt(first) == SYSTEM
    assert adapter.prompt(first, first.queries[0]).startswith("Task: spatial. First <video>")
    assert len(adapter.frame_files(first, root)) == 71
    assert adapter.generation.max_tokens == 10000 and adapter.generation.temperature is None


def test_validate_reports_every_problem_one_line_each(tmp_path, capsys) -> None:
    rows = mmsi_rows()
    rows[0]["ground_truth"] = "G"
    rows[0]["video_list"][1]["end"] = 1.0
    rows[1]["ref_images"] = []
    rows[2]["frames_list"] = [[]]
    rows[2]["user_prompt"] = "No clip here." + OPTIONS
    data, _root = write_release(tmp_path, rows)
    _, result = check_benchmark(data)
    got = sorted((p.item_id, p.field) for p in result.problems)
    assert got == [
        ("question_0000", "ground_truth"),
        ("question_0000", "video_list[1].end"),
        ("question_0001", "ref_images"),
        ("question_0002", "frames_list[0]"),
    ]
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(data)])
    assert exc.value.code == 2
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "mmsivideo.json:" in ln]
    assert len(lines) == 4 and all(": item question_000" in ln for ln in lines)


def test_validate_reports_missing_images(tmp_path) -> None:
    data, root = write_release(tmp_path)
    (root / "ref_images" / "scenequestion_0001" / "ref0.png").unlink()
    _, result = check_benchmark(data, videos=root)
    assert [(p.item_id, p.field) for p in result.problems] == [("question_0001", "video")]


# --- official rules ------------------------------------------------------------------------


@pytest.mark.parametrize("sizes", [[40, 30], [1, 100], [60], [3, 3, 3], [120, 1, 1], [49, 2]])
def test_proportional_sampling(sizes: list[int]) -> None:
    got = Clips(sizes=tuple(sizes), refs=0).frames(50)
    offsets = [sum(sizes[:i]) for i in range(len(sizes))]
    frames = [[f"{c}:{k}" for k in range(n)] for c, n in enumerate(sizes)]
    want = ref.sampled_frames(frames, 50)
    assert [
        [f"{c}:{i - o}" for i in clip] for c, (o, clip) in enumerate(zip(offsets, got, strict=True))
    ] == want


def test_placeholders_fill_as_the_api_wrapper_fills_them() -> None:
    """Officially the placeholders take [every clip's frames…, references…] in text order, so
    a reference written before its clip gets the clip's first frame; the paper reading puts
    each image where its placeholder stands."""
    rec = mmsi_rows()[1]
    clips = Clips(sizes=(10,), refs=1)
    prompt = rec["task_prompt"] + rec["user_prompt"] + rec["format_prompt"]
    names = [f for clip in rec["frames_list"] for f in clip] + rec["ref_images"]
    official = [
        names[s] if isinstance(s, int) else s for s in slots(clips, 50, prompt, official=True)
    ]
    assert official == ref.api_content(rec)
    assert official[1] == names[0]  # the "<image>" of the reference shows frame 0
    paper = slots(clips, 50, prompt, official=False)
    assert paper[1] == 10 and paper[3:13] == list(range(10))


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is B.", "no answer", "\\boxed{C} but the answer is D",
        '{"answer": "D", "reason": "it is"}', "Answer: A. Because", "B. the lamp",
        "answer is A, then answer is C", "The answer is probably B", "I choose B",
        "<answer>C</answer>", "b", "The final Answer: e",
    ],
)  # fmt: skip
def test_extract_answer(reply: str) -> None:
    assert mmsi_answer(reply) == ref.extract_answer(reply)


def test_quirks_and_a_null_reply(tmp_path) -> None:
    data, _ = write_release(tmp_path)
    _, items = load_benchmark(data)
    item = items[0]
    assert mmsi_answer("The answer is probably B") == "probablyB"  # invalid officially
    v = score_all(item, item.queries[0], "The answer is probably B")
    assert (v["official"].score, v["official"].valid) == (0.0, False)
    assert v["paper"].extracted == "B" and v["paper"].score == 1.0  # the corrected reading
    v = score_all(item, item.queries[0], "B. I think")
    assert v["official"].score == v["paper"].score == 1.0
    v = score_all(item, item.queries[0], "B, I think")  # the text before "." is "B,Ithink"
    assert v["official"].valid is False and v["paper"].score == 1.0
    # A null reply: extract_answer raises inside evaluation.py's try, so it is a failure.
    v = score_all(item, item.queries[0], None)
    assert v["official"].valid is False and v["official"].score == 0.0


def test_table_is_the_printer(tmp_path) -> None:
    data, _ = write_release(tmp_path)
    _, items = load_benchmark(data)
    replies = ["\\boxed{B}", "The answer is A.", None]
    recs = []
    for it, reply in zip(items, replies, strict=True):
        v = score_all(it, it.queries[0], reply)["official"]
        recs.append({"item_id": it.id, "query_index": 0, "task": it.task.task, "score": v.score,
                     "valid": v.valid, "rule": v.rule})  # fmt: skip
    table = mmsivideo_table(recs)
    results = [dict(r, response=x) for r, x in zip(mmsi_rows(), replies, strict=True)]
    official = ref.evaluate([dict(r, response=r["response"] or "") for r in results])
    assert table.row(type="Overall")["accuracy"] == sum(official["Overall"]) / 3 == 1 / 3
    assert table.row(type="Planning")["accuracy"] == 0.0
    assert table.row(type="Planning")["n"] == len(official["Planning"])
    # Ten of the 13 types are absent: the official printer would raise on the first of them.
    assert table.row(type="(Cross-Video) Multi-View Integration")["accuracy"] is None
    assert any("KeyError" in n for n in table.notes)
    assert len(table.rows) == 14


# --- end to end ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def traced(monkeypatch) -> None:
    from streamspatial.models.openai_compat import OpenAIChatBackend

    defaults = {**OpenAIChatBackend.__init__.__kwdefaults__, "trace_headers": True}
    monkeypatch.setattr(OpenAIChatBackend.__init__, "__kwdefaults__", defaults)


def answer_for(req: RecordedRequest) -> str:
    if "moved where" in req.text:
        return "\\boxed{B}"
    return "The answer is C." if "should I go" in req.text else "The answer is probably A"


@pytest.mark.parametrize("scorer", ["official", "paper"])
def test_run_end_to_end(capsys, tmp_path, scorer: str) -> None:
    data, root = write_release(tmp_path)
    out = tmp_path / "run"
    capsys.readouterr()
    with FakeOpenAIServer(answer_for, fps=1.0) as server:
        try:
            main(["run", "--data", str(data), "--videos", str(root), "--model", "openai:fake",
                  "--base-url", server.base_url, "--out", str(out), "--no-progress",
                  "--scorer", scorer, "--policy", "uniform-20"])  # fmt: skip
        except SystemExit as exc:
            assert exc.code in (0, None), capsys.readouterr().err
        requests = sorted(server.requests, key=lambda r: r.query_time or 0)
    assert len(requests) == 3 and not [r for r in requests if r.violates_causality()]
    assert all(r.system == SYSTEM for r in requests)
    by_text = {("moved" in r.text, "go" in r.text): r for r in requests}
    two_clips = by_text[(True, False)]
    budget = 50 if scorer == "official" else 20
    want = [i for c in Clips((40, 30), 1).frames(budget) for i in c] + [70]
    if scorer == "official":
        assert two_clips.frame_indices == want and len(want) == 51
    else:
        assert two_clips.frame_indices == want and len(want) == 21
    planning = by_text[(False, True)]
    assert planning.frame_indices == ([0, *range(1, 10), 10] if scorer == "official"
                                      else [10, *range(10)])  # fmt: skip
    records = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert records["question_0000"].t_q == 70.0 and records["question_0002"].t_q == 4.0
    capsys.readouterr()
    with contextlib.suppress(SystemExit):
        main(["report", str(out)])
    got = json.loads((out / "scores.json").read_text())
    assert got["protocol"] == "offline" and got["scorer"] == scorer
    assert "protocol: `offline`" in (out / "report.md").read_text()
    replies = [answer_for(r) for r in (two_clips, planning, by_text[(False, False)])]
    official = ref.evaluate(
        [dict(r, response=x) for r, x in zip(mmsi_rows(), replies, strict=True)]
    )
    if scorer == "official":
        assert got["headline"]["Overall"] == sum(official["Overall"]) / 3 == 2 / 3
    else:
        assert got["headline"]["Overall"] == 1.0  # "probably A": the paper reads A
