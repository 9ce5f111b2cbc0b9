"""The structured folded memory: its layout, tolerant reading, bounding, and the folding agent
asking for it (--fold-memory json) and reading it back."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from agent_helpers import decide
from memory_agent_fixtures import EchoBackend, FakeStore
from streamspatial.agents import AgentOptions, make_agent
from streamspatial.agents import fold_memory as fm
from streamspatial.agents.folding import FoldingAgent
from streamspatial.core.errors import InputError
from streamspatial.models.types import ImagePart, TextPart
from streamspatial.video.prefix import PrefixView


def _obj(i: int, last: float, **kw) -> fm.MemoryObject:
    base = dict(id=i, category="chair", color="red", room="kitchen", first_seen=1.0,
                last_seen=last, ahead=1.0, left=0.5)  # fmt: skip
    base.update(kw)
    return fm.MemoryObject(**base)


def _memory(t: float, n: int = 3) -> fm.FoldMemory:
    objects = [_obj(i, float(i), near=[(i % n + 1, 0.8, "left")]) for i in range(1, n + 1)]
    return fm.FoldMemory(
        time=t,
        room="kitchen",
        rooms=["hallway", "kitchen"],
        objects=objects,
        changes=fm.MemoryChanges(since=t - 10, new=[1, 2], entered=["kitchen"], camera_moved=2.5),
    )


def test_render_is_compact_json_and_reads_back_the_same() -> None:
    mem = _memory(20.0)
    text = fm.render(mem)
    assert " " not in text.replace("living room", "")  # compact separators
    data = json.loads(text)
    assert data["objects"][0] == {
        "id": 1, "category": "chair", "color": "red", "room": "kitchen", "first_seen": 1.0,
        "last_seen": 1.0, "ahead": 1.0, "left": 0.5,
        "near": [[2, 0.8, "left"]],
    }  # fmt: skip
    parsed = fm.parse_memory(text, 20.0)
    assert parsed.error is None and parsed.dropped == 0
    assert parsed.memory == mem


def test_reading_is_tolerant_of_what_models_write() -> None:
    reply = (
        "Here is the updated memory:\n```json\n"
        '{"memory": {"time": "20", "room": "kitchen", "extra": 1, "objects": ['
        '{"id": "1", "category": "sofa", "first_seen": 1, "last_seen": "4.5", "ahead": 2, '
        '"left": 0, "near": [[2, 1, "left"], ["x", 1, "left"], [3, 1, "above"]]},'
        '{"id": 2, "category": "lamp"},'  # no position: dropped, counted
        '{"id": 3, "category": "rug", "first_seen": 1, "last_seen": 2, "ahead": -1, '
        '"left": 0, "direction": "upwards"}]}}\n```\nDone.'
    )
    parsed = fm.parse_memory(reply, 20.0)
    assert parsed.error is None and parsed.dropped == 1
    mem = parsed.memory
    assert mem is not None and mem.time == 20.0 and mem.room == "kitchen"
    assert [o.id for o in mem.objects] == [1, 3]
    assert mem.objects[0].last_seen == 4.5 and mem.objects[0].near == [(2, 1.0, "left")]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("The room has a red sofa and a lamp.", "no JSON object"),
        ('{"objects": [1, 2', "invalid JSON"),
        ('{"time": 3, "things": []}', "'objects' list"),
        ("[1, 2, 3]", "no JSON object"),
        ("", "no JSON object"),
    ],
)
def test_a_reply_with_no_memory_is_malformed(reply: str, why: str) -> None:
    parsed = fm.parse_memory(reply, 10.0)
    assert parsed.memory is None and why in (parsed.error or "")


def test_a_header_the_model_garbled_keeps_the_objects_and_the_fold_time() -> None:
    parsed = fm.parse_memory('{"time": "soon", "objects": [], "rooms": 5}', 30.0)
    assert parsed.memory is not None and parsed.memory.time == 30.0 and parsed.dropped == 1


def test_fit_drops_the_objects_seen_longest_ago_and_their_references() -> None:
    mem = _memory(50.0, n=12)
    full = len(fm.render(mem))
    fitted = fm.fit(mem, full - 150)
    kept = [o.id for o in fitted.objects]
    assert len(fm.render(fitted)) <= full - 150
    assert kept == list(range(12 - len(kept) + 1, 13))  # the most recently seen stay
    gone = set(range(1, 13)) - set(kept)
    assert all(n[0] not in gone for o in fitted.objects for n in o.near)
    assert not gone & set(fitted.changes.new)
    assert fm.fit(mem, full) == mem  # already within: unchanged
    assert fm.fit(mem, 10).objects == []  # never cut mid-JSON, even when nothing fits


def test_sides_as_the_camera_sees_them() -> None:
    assert fm.side_of(0.2, 1.0) == "left" and fm.side_of(0.2, -1.0) == "right"
    assert fm.side_of(2.0, 0.5) == "farther" and fm.side_of(-2.0, 0.5) == "nearer"


# -- the agent -------------------------------------------------------------------------------


def _item(t_q: float):
    item = SimpleNamespace(id=f"q{t_q:g}", video="v.mp4", letters="ABCD", benchmark="ovos",
                           task=SimpleNamespace(task="t"), answer_type=None)  # fmt: skip
    query = SimpleNamespace(time=t_q, evidence=((1.0, 2.0),), index=0)
    adapter = SimpleNamespace(prompt=lambda *a, **k: "Q?", system_prompt=lambda it: "SYS")
    return item, query, adapter


def test_the_agent_asks_for_json_and_shows_what_it_read_back() -> None:
    def reply(req):  # a model that wraps its memory in prose and a code fence
        return f"Sure.\n```json\n{fm.render(_memory(req.query_time))}\n```"

    agent = make_agent("folding", AgentOptions(fold_memory="json"))
    assert isinstance(agent, FoldingAgent) and "memory=json" in agent.label
    backend = EchoBackend(reply)
    item, query, adapter = _item(25.0)
    decision = decide(agent, PrefixView(FakeStore(30.0), 25.0), item, query, adapter, backend)
    first, second = backend.requests[:2]
    # a fold request: the window's frames first, then the previous memory and the layout
    kinds = "".join("I" if isinstance(p, ImagePart) else "T" for p in first.parts)
    assert kinds == "TI" * 10 + "T"
    assert first.parts[-1].text == fm.fold_instruction(10.0, None)
    assert second.parts[-1].text == fm.fold_instruction(20.0, fm.render(_memory(10.0)))
    texts = [p.text for p in decision.request.parts if isinstance(p, TextPart)]
    assert f"Memory at 20 s: {fm.render(_memory(20.0))}" in texts  # canonical, no fence
    diag = decision.diagnostics.as_dict()
    assert diag["fold_malformed"] == 0 and diag["fold_errors"] == 0


def test_a_malformed_memory_keeps_the_previous_one_and_is_counted() -> None:
    def reply(req):
        return fm.render(_memory(10.0)) if req.query_time == 10.0 else "I saw a sofa."

    agent = FoldingAgent(memory_format="json")
    backend = EchoBackend(reply)
    item, query, adapter = _item(35.0)
    decision = decide(agent, PrefixView(FakeStore(40.0), 35.0), item, query, adapter, backend)
    diag = decision.diagnostics.as_dict()
    assert diag["folds"] == 3 and diag["fold_malformed"] == 2 and diag["fold_errors"] == 2
    texts = [p.text for p in decision.request.parts if isinstance(p, TextPart)]
    kept = fm.render(_memory(10.0))
    assert [t for t in texts if t.startswith("Memory at")] == [
        f"Memory at {t} s: {kept}" for t in (10, 20, 30)
    ]
    # the folds after the malformed one still ask with the last good memory
    assert backend.requests[2].parts[-1].text == fm.fold_instruction(30.0, kept)


def test_a_json_memory_is_bounded_without_cutting_it() -> None:
    big = _memory(10.0, n=80)
    agent = FoldingAgent(memory_format="json", memory_chars=2000)
    backend = EchoBackend(lambda req: fm.render(big))
    item, query, adapter = _item(12.0)
    decide(agent, PrefixView(FakeStore(20.0), 12.0), item, query, adapter, backend)
    assert len(agent.state.memory) <= 2000
    assert fm.parse_memory(agent.state.memory, 10.0).memory == fm.fit(big, 2000)


def test_prose_stays_the_default_and_a_bad_format_is_refused() -> None:
    assert FoldingAgent().memory_format == "prose" and FoldingAgent().memory_chars == 1500
    assert FoldingAgent(memory_format="json").memory_chars == fm.JSON_MEMORY_CHARS
    # a run's token cap leaves a JSON fold room for the whole bounded memory
    assert FoldingAgent().fold_tokens == 384
    assert FoldingAgent(memory_format="json").fold_tokens == fm.JSON_FOLD_TOKENS >= 2000
    with pytest.raises(InputError, match="--fold-memory"):
        FoldingAgent(memory_format="yaml")


def test_the_flag_reaches_the_agent_and_prose_runs_keep_their_hash(tmp_path) -> None:
    from streamspatial.eval.config import build_config
    from streamspatial.eval.execute import agent_options
    from streamspatial.models.types import GenerationParams

    given = {"data": tmp_path / "d.jsonl", "videos": tmp_path, "model": "random",
             "out": tmp_path / "run", "agent": "folding"}  # fmt: skip
    prose = build_config(given)
    json_cfg = build_config({**given, "fold_memory": "json"})
    options = agent_options(json_cfg, GenerationParams(), "paper")
    assert make_agent("folding", options).memory_format == "json"
    assert "fold_memory" not in prose.result_fields()  # runs made before the flag resume
    assert json_cfg.config_hash() != prose.config_hash()
    with pytest.raises(Exception, match="fold_memory"):
        build_config({**given, "fold_memory": "yaml"})
