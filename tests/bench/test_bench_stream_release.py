"""Reading OVO-Bench, StreamingBench, OST-Bench and VSI-SUPER as released: detection, one item
per query point, times as the official code reads them, media resolved as its loaders
resolve them, every problem one line, and the writers a generated benchmark exports with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import stream_fixtures as fx
from cli_run import cli
from streamspatial.agents.requests import check_prefix
from streamspatial.bench.ovobench.export import write_ovobench_json
from streamspatial.bench.ovobench.reader import OVOBenchAdapter
from streamspatial.bench.registry import check_benchmark, detect_format, get_adapter, load_benchmark
from streamspatial.bench.streamingbench.export import write_streamingbench_json
from streamspatial.bench.streamingbench.reader import official_seconds
from streamspatial.core.errors import CausalityError
from streamspatial.core.schema import Item
from streamspatial.models.types import ImagePart, ModelRequest, TextPart, Turn


def items_of(path: Path) -> dict[str, Item]:
    _, items = load_benchmark(path)
    return {it.id: it for it in items}


@pytest.mark.parametrize(
    ("name", "data", "fmt"),
    [
        ("ovo_bench_new.json", fx.ovobench_rows(), "ovobench"),
        ("questions_real.json", fx.streamingbench_real(), "streamingbench"),
        ("questions_sqa.json", fx.streamingbench_sqa(), "streamingbench"),
        ("questions_proactive.json", fx.streamingbench_proactive(), "streamingbench"),
        ("OST_bench.json", fx.ost_rows(), "ostbench"),
        ("recall.json", fx.vsisuper_recall(), "vsisuper"),
        ("count.json", fx.vsisuper_count(), "vsisuper"),
    ],
)
def test_each_release_is_detected(tmp_path, name, data, fmt) -> None:
    assert detect_format(fx.write_json(tmp_path / name, data)) == fmt


def test_ovobench_one_item_per_probe_and_its_official_clip(tmp_path) -> None:
    items = items_of(fx.write_json(tmp_path / "ovo.json", fx.ovobench_rows()))
    assert len(items) == 10  # four multiple-choice items, six forward probes
    epm = items["2"]
    assert (epm.queries[0].answer, epm.queries[0].time) == ("C", 7.25)  # gt 2, not "answer"
    assert items["4_0"].question == "How many times did they clap their hands?"
    assert items["4_0"].queries[0].answer == 2.0
    # SSR / CRR probes: type 1 is "Yes" (A), type 0 "No" (B).
    assert [items[k].queries[0].answer for k in ("5_0", "5_1", "6_0", "6_1")] == list("BABA")
    adapter = OVOBenchAdapter()
    assert adapter.clip_end(items["4_0"], items["4_0"].queries[0]) == 5.0  # ⌈4.3⌉
    assert adapter.clip_end(items["1"], items["1"].queries[0]) == 5.5  # a real-time clip
    prompt = adapter.prompt(epm, epm.queries[0])
    assert (
        "Options:\nA. on the sofa; B. in the drawer; C. on the shelf; D. by the door;\n" in prompt
    )


def test_streamingbench_times_as_the_official_code_reads_them(tmp_path) -> None:
    assert [official_seconds(t) for t in ("00:24", "00:12450", "0:00:12", "01:02:03")] == [
        24,
        12450,
        12,
        3723,
    ]
    assert official_seconds("00:1a") is None
    real = fx.streamingbench_real()
    real[1]["questions"][0]["time_stamp"] = "00:12450"
    path = fx.write_json(tmp_path / "questions_real.json", real)
    fx.write_videos(tmp_path, fx.STREAMING_VIDEOS)
    _, result = check_benchmark(path, videos=tmp_path)
    (problem,) = result.problems
    assert "expected a query time within the video (12 s), got 12450 s" in str(problem)
    sqa = items_of(fx.write_json(tmp_path / "questions_sqa.json", fx.streamingbench_sqa()))
    assert [it.depends_on for it in sqa.values()] == [None, "0-0-0", "0-1-0"]
    assert sqa["0-0-0"].meta["options"] == ["A. red", "B. green", "C. blue", "D. white"]
    proactive = items_of(
        fx.write_json(tmp_path / "questions_proactive.json", fx.streamingbench_proactive())
    )
    poll = get_adapter("streamingbench").polling(proactive["0-0"])
    assert (poll.start, poll.until) == (2.0, 9.0)  # the ground truth 5 s + 4 s
    assert 'Is it the right time to output "The ball is red"?' in poll.probe


def test_ostbench_turns_stream_the_scans_images_one_per_second(tmp_path) -> None:
    rows = fx.ost_rows()
    path = fx.write_json(tmp_path / "OST_bench.json", rows)
    images = fx.write_ost_images(tmp_path / "images", rows)
    adapter, result = check_benchmark(path, videos=images)
    assert not result.problems
    items = {it.id: it for it in result.items}
    turn = items["scene0001_00#3"]
    assert turn.queries[0].time == 5.0  # turns 0–3 add 1, 2, 1, 2 images: the 6th at 5 s
    assert turn.depends_on == "scene0001_00#2"
    files = adapter.frame_files(turn, images)
    assert [f.name for f in files[:3]] == ["00000.jpg", "00001.jpg", "00002.jpg"]
    dialogue = adapter.dialogue(turn)
    assert dialogue.start == 4.0 and [t.item_id for t in dialogue.earlier] == [
        "scene0001_00#0",
        "scene0001_00#1",
        "scene0001_00#2",
    ]
    assert items["scene0001_00#0"].options[1].text == "Right"
    assert items["scene0001_00#0"].queries[0].answer == "B"  # '"Right"' without its quotes
    assert items["scene0002_00#10"].meta["scored"] is False  # the evaluator's skip type
    (images / "scene0002_00" / "00003.jpg").unlink()
    _, result = check_benchmark(path, videos=images)
    assert any("scene0002_00/00003.jpg not found" in str(p) for p in result.problems)


def test_vsisuper_recall_count_and_streaming(tmp_path) -> None:
    recall = items_of(fx.write_json(tmp_path / "recall.json", fx.vsisuper_recall()))
    item = recall["10mins-0"]
    assert item.options[0].text == "Sofa, Bed, Desk, Sink"
    prompt = get_adapter("vsisuper").prompt(item, item.queries[0])
    assert prompt.endswith(
        "D. Sink, Desk, Bed, Sofa\nAnswer with the option's letter from the given choices directly."
    )
    count = items_of(fx.write_json(tmp_path / "count.json", fx.vsisuper_count()))
    stream = count["10mins_streaming-2"]
    assert [(q.time, q.answer) for q in stream.queries] == [(3, 1), (6, 2), (9, 4)]
    fx.write_videos(tmp_path / "v", fx.VSI_SUPER_VIDEOS)
    _, items = load_benchmark(tmp_path / "count.json", videos=tmp_path / "v")
    assert {it.id: it.queries[-1].time for it in items}["10mins-1"] == 6.0  # the video's end


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        (
            "ovo.json",
            [{**fx.ovobench_rows()[0], "gt": 7}],
            "item 0: field 'gt': expected an option index 0–3, got 7",
        ),
        (
            "ovo.json",
            [{**fx.ovobench_rows()[0], "task": "XYZ"}],
            "field 'task': expected one of OCR, ACR",
        ),
        (
            "questions_real.json",
            [
                {
                    **fx.streamingbench_real()[0],
                    "questions": [
                        {**fx.streamingbench_real()[0]["questions"][0], "time_stamp": "3m"}
                    ],
                }
            ],
            "field 'time_stamp': expected \"HH:MM:SS\" (whole numbers), got '3m'",
        ),
        (
            "OST_bench.json",
            [{**fx.ost_rows()[0], "answer": "Up"}],
            "field 'answer': expected one of the options ['Left', 'Right', 'Front-left'], got 'Up'",
        ),
        (
            "count.json",
            [{**fx.vsisuper_count()[2], "answers": [1, 2]}],
            "field 'answers': expected one answer per query time (3), got 2",
        ),
    ],
)
def test_bad_rows_are_one_clear_line_and_exit_2(capsys, tmp_path, name, data, line) -> None:
    rc, out = cli(capsys, "validate", fx.write_json(tmp_path / name, data))
    assert rc == 2
    assert line in out, out


def test_the_request_check_refuses_a_later_frame_in_the_history_too() -> None:
    frame = ImagePart(jpeg=b"x", time=3.0)
    request = ModelRequest(
        parts=(TextPart("q"),),
        query_time=2.0,
        history=(Turn("user", (frame, TextPart("earlier"))),),
    )
    with pytest.raises(CausalityError, match=r"holds a frame at t=3\.0"):
        check_prefix(request, "x", 2.0)
    check_prefix(request, "x", 3.0)


def test_writers_read_back_through_the_readers(tmp_path) -> None:
    ovo = items_of(fx.write_json(tmp_path / "ovo.json", fx.ovobench_rows()))
    mc = [ovo[k] for k in ("0", "1", "2", "3")]
    assert write_ovobench_json(mc, tmp_path / "again.json") == 4
    back = items_of(tmp_path / "again.json")
    for it in mc:
        got = back[it.id]
        assert (got.question, got.options, got.queries, got.task) == (
            it.question,
            it.options,
            it.queries,
            it.task,
        )
    assert write_streamingbench_json(mc, tmp_path / "questions_real.json") == 4
    entries = json.loads((tmp_path / "questions_real.json").read_text())
    assert entries[2]["questions"][0]["time_stamp"] == "00:00:07"  # 7.25 s, floored
    sb = list(items_of(tmp_path / "questions_real.json").values())
    assert [(i.question, i.queries[0].answer) for i in sb] == [
        (it.question, it.queries[0].answer) for it in mc
    ]
    assert all(i.queries[0].time <= it.queries[0].time for i, it in zip(sb, mc, strict=True))


def test_sim_export_writes_a_generated_benchmark_in_both_formats(capsys, tmp_path) -> None:
    ovo = items_of(fx.write_json(tmp_path / "ovo.json", fx.ovobench_rows()))
    generated = tmp_path / "bench"
    generated.mkdir()
    intent = {"task": "count", "instances": [], "params": {}}
    made = [it.model_copy(update={"benchmark": "ovos", "intent": intent}) for it in ovo.values()]
    with (generated / "items.jsonl").open("w") as f:
        for it in made:
            f.write(it.model_dump_json() + "\n")
    rc, out = cli(capsys, "sim", "export", generated, "--format", "streamingbench")
    assert rc == 0, out
    assert f"8 questions → {generated / 'questions_real.json'}" in out  # REC probes are numbers
    tasks = {
        q["task_type"]
        for e in json.loads((generated / "questions_real.json").read_text())
        for q in e["questions"]
    }
    assert tasks == {"Counting"}
    rc, out = cli(capsys, "sim", "export", generated, "--format", "ovobench")
    assert rc == 0, out
    assert detect_format(generated / "ovo_bench_new.json") == "ovobench"
    rc, out = cli(capsys, "sim", "export", tmp_path, "--format", "ovobench")
    assert rc == 2 and "items.jsonl: not found" in out


def test_polling_times_stop_at_the_ground_truth_and_the_query_time() -> None:
    from streamspatial.bench.base import Polling

    poll = Polling(start=2.0, until=9.0, probe="p", answer="a")
    assert poll.times(9.0) == [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert poll.times(6.5) == [3.0, 4.0, 5.0, 6.0]  # never past the query time
    assert poll.window_start == 2.0
    alerting = Polling(start=0.0, until=2.0, probe="p", every=0.5, shown_from=0.0)
    assert alerting.times(2.0) == [0.5, 1.0, 1.5, 2.0] and alerting.answer is None
