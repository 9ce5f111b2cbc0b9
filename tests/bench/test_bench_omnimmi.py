"""OmniMMI: the six released lists read, validated and prompted; one test per official rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omnimmi_fixtures import files, write_release
from stream_fixtures import write_json
from streamspatial.bench import check_benchmark, detect_format, load_benchmark
from streamspatial.bench.omnimmi.reader import JUDGE_SYSTEM, OmniMMIAdapter
from streamspatial.bench.omnimmi.score import (
    NOT_JUDGED,
    alert_times,
    official_verdict,
    pa_metrics,
    paper_verdict,
)
from streamspatial.scoring.scorers import score_all
from streamspatial.scoring.tables import headline, results_table


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("omnimmi"))


def _load(release: Path, name: str):
    return load_benchmark(release / name, videos=release)


def test_every_release_file_is_read_with_its_task_and_times(release):
    times = {}
    for name in files():
        assert detect_format(release / name) == "omnimmi"
        adapter, items = _load(release, name)
        assert isinstance(adapter, OmniMMIAdapter)
        times.update({it.id: (it.task.task, it.queries[0].time, it.depends_on) for it in items})
    assert times == {
        "ap-0": ("AP", 10.0, None),  # no time: the video's end (10 s)
        "si-0": ("SI", 3.0, None),  # its timestamp
        "md-0-0": ("MD", 2.0, None),  # the middle of "0.0 -- 4.0"
        "md-0-1": ("MD", 5.0, "md-0-0"),
        "sg-0-0": ("SG", 1.0, None),
        "sg-0-1": ("SG", 5.0, "sg-0-0"),
        "pa-0": ("PA", 8.0, None),  # polled to the end of its 8 s video
        "pt-0": ("PT", 10.0, None),
    }


def test_a_file_of_another_name_is_told_by_its_records(tmp_path):
    rel = files()
    write_json(tmp_path / "dialogues.json", rel["multiturn_dependency_reasoning.json"])
    write_json(tmp_path / "grounding.json", rel["dynamic_state_grounding.json"])
    write_json(tmp_path / "alerts.json", rel["proactive_alerting.json"])
    tasks = {
        name: {it.task.task for it in load_benchmark(tmp_path / name)[1]}
        for name in ("dialogues.json", "grounding.json", "alerts.json")
    }
    assert tasks == {"dialogues.json": {"MD"}, "grounding.json": {"SG"}, "alerts.json": {"PA"}}


def test_validate_lists_every_problem_one_line_each(tmp_path):
    bad = [
        {"video": "a.mp4", "qa": [
            {"question": "What is the task?", "answer": "Cook", "timestamp": "4 - 6"},
            {"question": "", "answer": "x", "timestamp": "1.0 -- 2.0"},
            {"question": "Then?", "answer": "y", "timestamp": "9.0 -- 9.5"},
            "not a turn",
        ]},
        {"video": 3, "qa": []},
    ]  # fmt: skip
    write_json(tmp_path / "multiturn_dependency_reasoning.json", bad)
    _, result = check_benchmark(tmp_path / "multiturn_dependency_reasoning.json")
    lines = [str(p) for p in result.problems]
    assert len(lines) == 4, lines
    assert "md-0-0" in lines[0] and "timestamp" in lines[0] and "'4 - 6'" in lines[0]
    assert "md-0-1" in lines[1] and "question" in lines[1]
    assert "md-0-3" in lines[2] and "qa" in lines[2]
    assert "md-1" in lines[3] and "video" in lines[3]
    assert all("\n" not in line for line in lines)


def test_validate_names_bad_windows_vocab_and_conversations(tmp_path):
    write_json(tmp_path / "proactive_alerting.json",
               [{"video": "a.mp4", "question": "Alert me.", "answer": [5.0, 2.0]}])  # fmt: skip
    write_json(tmp_path / "action_prediction.json",
               [{"video": "a.mp4", "question": "Next?", "answer": "x", "vocab": []}])  # fmt: skip
    write_json(tmp_path / "proactive_turntaking.json",
               [{"video": "a.mp4", "conversation": ["hello"]}])  # fmt: skip
    found = {
        name: [f"{p.field}: {p.expected}" for p in check_benchmark(tmp_path / name)[1].problems]
        for name in ("proactive_alerting.json", "action_prediction.json",
                     "proactive_turntaking.json")
    }  # fmt: skip
    assert found == {
        "proactive_alerting.json": ["answer: expected start ≤ end, got [5, 2]"],
        "action_prediction.json": ["vocab: expected the vocabulary list of next steps"],
        "proactive_turntaking.json": ["conversation[0]: expected an object of speaker: utterance"],
    }


def test_prompts_substitute_the_models_answer_and_recount_the_history(release):
    adapter, md = _load(release, "multiturn_dependency_reasoning.json")
    second = md[1]
    text = adapter.prompt(second, second.queries[0], prior_answers={"md-0-0": "Bake bread"})
    assert text == "What's the first step of Bake bread?"  # the model's, never "Cook Omelet"
    _, sg = _load(release, "dynamic_state_grounding.json")
    text = adapter.prompt(sg[1], sg[1].queries[0], prior_answers={"sg-0-0": "a red mug"})
    assert "User: What is on the table?\nAssistant: a red mug" in text
    assert "a cup" not in text  # the reference answer never enters a prompt
    _, ap = _load(release, "action_prediction.json")
    assert adapter.prompt(ap[0], ap[0].queries[0]).endswith(
        "from the provided vocabulary list: ['crack eggs', 'pour milk', 'stir']."
    )


def test_speaker_identification_official_clip_is_the_whole_video(release):
    adapter, items = _load(release, "speaker_identification.json")
    assert adapter.clip_end(items[0], items[0].queries[0]) == 8.0  # b.mp4's end, past 3 s
    _, md = _load(release, "multiturn_dependency_reasoning.json")
    assert adapter.clip_end(md[0], md[0].queries[0]) == 2.0


def test_proactive_alerting_is_polled_every_second_counting_every_yes(release):
    adapter, items = _load(release, "proactive_alerting.json")
    poll = adapter.polling(items[0])
    assert poll is not None and not poll.stop_at_yes and poll.answer is None
    assert poll.times(items[0].queries[0].time) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]


def test_the_judge_is_asked_the_official_messages(release):
    adapter, items = _load(release, "speaker_identification.json")
    system, user = adapter.judge_prompt(items[0], items[0].queries[0], "the woman")
    assert system == JUDGE_SYSTEM
    assert "Question: Who is speaking now?\nCorrect Answer: the man in red\n" in user
    assert "Predicted Answer: the woman\n\n" in user
    assert user.endswith("{'pred': 'yes', 'score': 4.8}.")
    _, pt = _load(release, "proactive_turntaking.json")
    assert adapter.judge_prompt(pt[0], pt[0].queries[0], "") is None


# --- the official rules, one each ----------------------------------------------------------


def test_official_verdict_is_literal_eval_and_yes_anywhere():
    assert official_verdict("{'pred': 'yes', 'score': 4}") == (True, 4)
    assert official_verdict("{'pred': 'eyes', 'score': 4.8}") == (True, 4)  # substring; int()
    assert official_verdict('{"pred": "no", "score": 1}') == (False, 1)
    assert official_verdict("```{'pred': 'yes', 'score': 4}```") is None  # literal_eval raises
    assert paper_verdict("Sure: ```{'pred': 'yes', 'score': 4}```") == (True, 4.0)
    assert paper_verdict("{'pred': 'eyes', 'score': 4}") == (False, 4.0)


def test_judged_tasks_are_not_scored_without_a_judge(release):
    _, items = _load(release, "action_prediction.json")
    item = items[0]
    verdicts = score_all(item, item.queries[0], "crack eggs")
    assert {v.rule for v in verdicts.values()} == {NOT_JUDGED}
    assert all(v.score is None for v in verdicts.values())
    judged = score_all(item, item.queries[0], "crack eggs",
                       {"model": "openai:j", "reply": "{'pred': 'yes', 'score': 5}"})  # fmt: skip
    assert judged["official"].score == judged["paper"].score == 1.0


def _poll_reply(answers: dict[float, str]) -> str:
    history = []
    for t, said in answers.items():
        history += [{"role": "user", "content": "probe", "time": t},
                    {"role": "assistant", "content": said, "time": t}]  # fmt: skip
    return json.dumps({"answered": False, "dialog_history": history})


def test_proactive_alerting_accuracy_precision_iou_as_evaluate_py():
    reply = _poll_reply({1.0: "No.", 3.0: "Yes", 4.0: "no, yes", 7.0: "yes"})
    assert alert_times(reply, official=True) == [3.0, 4.0, 7.0]  # "yes" anywhere
    assert alert_times(reply, official=False) == [3.0, 7.0]  # the first word
    acc, prec, iou = pa_metrics([3.0, 4.0, 7.0], (3.0, 5.0), official=True)
    assert (acc, prec, iou) == (1.0, 2 / 3, 2 / 4)
    assert pa_metrics([], (3.0, 5.0), official=True) == (0.0, 0.0, 0.0)
    assert pa_metrics([4.0], (4.0, 4.0), official=True) is None  # ZeroDivisionError
    assert pa_metrics([4.0], (4.0, 4.0), official=False) == (1.0, 1.0, 1.0)


def test_proactive_turn_taking_is_right_when_silent(release):
    _, items = _load(release, "proactive_turntaking.json")
    item, q = items[0], items[0].queries[0]
    assert score_all(item, q, "")["official"].score == 1.0
    assert score_all(item, q, "<2> (no reply)")["official"].score == 1.0
    assert score_all(item, q, " <2>")["official"].score == 0.0  # as given: a space first
    assert score_all(item, q, " <2>")["paper"].score == 1.0
    assert score_all(item, q, "Sure, it was great!")["paper"].score == 0.0
    failed = score_all(item, q, None)
    assert (failed["official"].valid, failed["official"].score) == (False, None)
    assert failed["paper"].score == 0.0


def _records(items, replies, judges=None):
    out = []
    for item in items:
        q = item.queries[0]
        judge = (judges or {}).get(item.id)
        for name, v in score_all(item, q, replies[item.id], judge).items():
            out.append((name, {"item_id": item.id, "query_index": 0, "task": item.task.model_dump(),
                               "extracted": v.extracted, "score": v.score, "valid": v.valid,
                               "rule": v.rule, "answer": q.answer}))  # fmt: skip
    return out


def test_dialogue_tables_step_and_accumulated_accuracy(release):
    _, items = _load(release, "multiturn_dependency_reasoning.json")
    replies = {"md-0-0": "Cook Omelet", "md-0-1": "boil water"}
    verdict = {"md-0-0": "{'pred': 'yes', 'score': 5}", "md-0-1": "{'pred': 'no', 'score': 1}"}
    judges = {k: {"model": "openai:j", "reply": v} for k, v in verdict.items()}
    recs = [r for name, r in _records(items, replies, judges) if name == "official"]
    table = results_table("omnimmi", recs, "official")
    assert table.row(task="MD", metric="accuracy")["accuracy"] == 0.0
    assert table.row(task="MD", metric="accuracy")["judge score"] == 3.0
    assert table.row(task="MD", metric="step 0")["accuracy"] == 1.0
    assert table.row(task="MD", metric="accumulated step 1")["accuracy"] == 0.0
    # An unparseable verdict drops the turn officially: the dialogue is judged on the rest.
    judges["md-0-1"] = {"model": "openai:j", "reply": "no idea"}
    recs = [r for name, r in _records(items, replies, judges) if name == "official"]
    table = results_table("omnimmi", recs, "official")
    assert table.row(task="MD", metric="accuracy")["accuracy"] == 1.0
    paper = [r for name, r in _records(items, replies, judges) if name == "paper"]
    assert results_table("omnimmi", paper).row(task="MD", metric="accuracy")["accuracy"] == 0.0


def test_table_names_judged_tasks_not_scored_and_keeps_the_rest(release):
    items, replies = [], {}
    for name in files():
        items += _load(release, name)[1]
    replies = {it.id: "" for it in items}
    replies["pa-0"] = _poll_reply({3.0: "yes"})
    recs = [r for name, r in _records(items, replies) if name == "official"]
    table = results_table("omnimmi", recs, "official")
    assert table.row(task="AP", metric="not scored (no judge)")["accuracy"] is None
    assert table.row(task="PT", metric="accuracy")["accuracy"] == 1.0
    assert table.row(task="PA", metric="IoU")["accuracy"] == 0.0  # [3, 3] vs [3, 5]: no overlap
    head = headline(table)
    assert head["avg. w/o P"] is None and head["PA"] == 1.0
    assert any("not scored: SG, AP, MD, SI (judged" in n for n in table.notes)
