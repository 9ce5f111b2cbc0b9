"""FoldingAgent (AMF-VLM memory folding): causality over real HTTP, request layout, fold
schedule, bounded prompt as the stream grows, and the --fold-every flag."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_helpers import decide
from memory_agent_fixtures import (
    FOLD_RE,
    EchoBackend,
    FakeStore,
    http_backend,
    is_answer,
    run_agent,
    scripted,
    write_bench,
)
from streamspatial.agents import AgentOptions, agent_names, make_agent
from streamspatial.agents.folding import FoldingAgent
from streamspatial.core.errors import InputError
from streamspatial.models.types import ImagePart, TextPart
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.prefix import PrefixView

FPS = 4.0


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fold")
    return write_bench(
        root,
        {"a.mp4": 32.0, "b.mp4": 26.0},
        [("a.mp4", [12.5, 31.0]), ("a.mp4", [20.0]), ("b.mp4", [9.0]), ("b.mp4", [24.9])],
        FPS,
    )


def test_causality_canary_no_frame_or_summary_after_t_q(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(scripted, fps=FPS) as server:
        records = run_agent(data, videos, tmp_path / "run", FoldingAgent, http_backend(server))
    assert len(records) == 5 and all(r.error is None for r in records)
    assert all(r.agent == "folding" for r in records)
    folds = [r for r in server.requests if "Memory folding at" in r.text]
    answers = [r for r in server.requests if is_answer(r)]
    assert len(folds) + len(answers) == len(server.requests)
    for req in server.requests:
        assert req.query_time is not None and None not in req.frame_indices
        assert not req.violates_causality()
    # Each video folds once per K = 10 s up to its last query, whatever the number of queries.
    assert sorted(r.query_time for r in folds) == [10.0, 10.0, 20.0, 20.0, 30.0]
    for req in folds:  # the dense window (t − 10, t] at 1 fps, nothing after the fold time
        t = req.query_time
        assert all(i % 4 == 0 and t - 10 < i / FPS <= t for i in req.frame_indices)
        assert len(req.frame_indices) == 10
    assert len(answers) == 5
    for req in answers:
        t_q = req.query_time
        shown = [(float(x), int(n)) for x, n in FOLD_RE.findall(req.text)]
        # Exactly the folds made at or before t_q, each built from frames ≤ its fold time.
        assert [x for x, _ in shown] == [10.0 * j for j in range(1, math.floor(t_q / 10) + 1)]
        assert all(n / FPS <= x <= t_q for x, n in shown)
        # Dense frames: the 1 fps grid in (t_q − 10, t_q]; fold frames: one per fold.
        assert len(req.frame_indices) == len(shown) + len(
            [i for i in range(0, math.floor(t_q * FPS) + 1, 4) if i / FPS > t_q - 10]
        )


def test_request_layout_system_folds_dense_question() -> None:
    agent = FoldingAgent(fold_every=10, max_folds=8)
    backend = EchoBackend(lambda r: f"memory up to {r.query_time:g}")
    item, query, adapter = _item(25.0)
    view = PrefixView(FakeStore(60.0), 25.0)
    decision = decide(agent, view, item, query, adapter, backend)
    req = decision.request
    kinds = ["I" if isinstance(p, ImagePart) else "T" for p in req.parts]
    # [header, (caption, frame, memory) × 2 folds, "recent", (caption, frame) × 10, question]
    assert "".join(kinds) == "T" + "TIT" * 2 + "T" + "TI" * 10 + "T"
    texts = [p.text for p in req.parts if isinstance(p, TextPart)]
    assert "Memory at 10 s: memory up to 10" in texts
    assert "Memory at 20 s: memory up to 20" in texts
    assert req.frame_times == [10.0, 20.0, *range(16, 26)]
    assert texts[-1] == "Q?" and req.system == "SYS"
    # The second fold merges the first one's memory: it is in the fold request.
    second = backend.requests[1]
    assert "Previous memory: memory up to 10" in second.parts[0].text
    assert second.query_time == 20.0 and second.item_id == "" and second.task_key == ""


def test_earlier_query_after_a_later_one_refolds_instead_of_leaking() -> None:
    agent = FoldingAgent()
    backend = EchoBackend(lambda r: f"memory up to {r.query_time:g}")
    late, early = _item(45.0), _item(15.0)
    for item, query, adapter in (late, early):
        view = PrefixView(FakeStore(60.0), query.time)
        decision = decide(agent, view, item, query, adapter, backend)
        req = decision.request
        assert max(req.frame_times) <= query.time
        text = " ".join(p.text for p in req.parts if isinstance(p, TextPart))
        assert f"memory up to {10 * math.floor(query.time / 10)}" in text
        assert all(float(t) <= query.time for t in _memory_times(text))


def test_prompt_size_is_bounded_as_the_stream_grows() -> None:
    """Minute 1 to hour 1: same number of images, text capped, even for a verbose model."""
    agent = FoldingAgent(max_folds=4, memory_chars=800)
    backend = EchoBackend(lambda r: "very long memory " * 2000)  # 34,000 characters
    sizes = {}
    for t_q in (60.0, 600.0, 3600.0):
        item, query, adapter = _item(t_q)
        view = PrefixView(FakeStore(3601.0), t_q)
        decision = decide(agent, view, item, query, adapter, backend)
        req = decision.request
        text = sum(len(p.text) for p in req.parts if isinstance(p, TextPart))
        sizes[t_q] = (len(req.images), text)
        assert decision.diagnostics.as_dict()["folds"] == math.floor(t_q / 10)
    assert sizes[60.0][0] == sizes[600.0][0] == sizes[3600.0][0]
    # Only the digits of the timestamps grow ("Frame at 3595 s" vs "Frame at 55 s").
    assert sizes[3600.0][1] - sizes[60.0][1] < 100
    assert sizes[3600.0][0] == 4 + 10  # kept fold frames + the dense window
    assert sizes[3600.0][1] < 4 * 800 + 1000
    # Every fold request is bounded too: previous memory (capped) + the 10 s window.
    assert max(len(r.images) for r in backend.requests) == 10
    assert max(len(r.parts[0].text) for r in backend.requests) <= 800 + len("Previous memory: ")


def test_fold_every_sets_the_schedule_and_the_flag_reaches_the_agent() -> None:
    agent = make_agent("folding", AgentOptions(fold_every=4.0, policy="uniform-8"))
    assert isinstance(agent, FoldingAgent) and agent.fold_every == 4.0
    assert agent.fold_times(13.0) == [4.0, 8.0, 12.0]
    assert "folding" in agent_names() and "K=4s" in agent.label
    with pytest.raises(InputError, match="--fold-every"):
        FoldingAgent(fold_every=0)


def test_a_failed_fold_is_an_error_for_its_query_and_is_made_again_next_time() -> None:
    from streamspatial.agents import MemoryCallError
    from streamspatial.models.types import ModelResponse

    class Flaky(EchoBackend):
        fail = True

        async def generate(self, request):
            self.requests.append(request)
            if request.query_time == 20.0 and self.fail:
                return ModelResponse(text="", error="HTTP 500")
            return ModelResponse(text=f"memory up to {request.query_time:g}")

    agent = FoldingAgent()
    item, query, adapter = _item(25.0)
    view = PrefixView(FakeStore(30.0), 25.0)
    backend = Flaky()
    with pytest.raises(MemoryCallError, match="memory fold at 20 s failed: HTTP 500"):
        decide(agent, view, item, query, adapter, backend)
    st = agent.state
    assert [f.time for f in st.folds] == [10.0] and st.memory == "memory up to 10"
    assert st.errors == 1
    # the next query (or --retry-errors) makes the failed fold again, then answers from it
    backend.fail = False
    decision = decide(agent, view, item, query, adapter, backend)
    req = decision.request
    texts = [p.text for p in req.parts if isinstance(p, TextPart)]
    assert "Memory at 20 s: memory up to 20" in texts
    assert [r.query_time for r in backend.requests] == [10.0, 20.0, 20.0]
    assert decision.diagnostics.as_dict()["fold_errors"] == 1


# -- helpers -----------------------------------------------------------------------------------


def _item(t_q: float):
    item = SimpleNamespace(
        id=f"q{t_q:g}",
        video="v.mp4",
        letters="ABCD",
        benchmark="ovos",
        task=SimpleNamespace(task="t"),
        answer_type=None,
    )
    query = SimpleNamespace(time=t_q, evidence=((1.0, 2.0),), index=0)
    adapter = SimpleNamespace(
        prompt=lambda *a, **k: "Q?",
        system_prompt=lambda it: "SYS",
    )
    return item, query, adapter


def _memory_times(text: str) -> list[str]:
    import re

    return re.findall(r"memory up to ([0-9.]+)", text)


def test_cli_agent_folding_with_fold_every(bench, tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    data, videos = bench
    out = tmp_path / "cli"
    with FakeOpenAIServer(scripted, fps=FPS) as server:
        proc = subprocess.run(
            [sys.executable, "-m", "streamspatial", "run", "--data", str(data), "--videos",
             str(videos), "--model", "openai:m", "--base-url", server.base_url, "--agent",
             "folding", "--fold-every", "5", "--out", str(out), "--frame-size", "112",
             "--no-progress"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["agent"] == "folding" and run["config"]["fold_every"] == 5.0
    folds = [r for r in server.requests if "Memory folding at" in r.text]
    made = sorted(float(re.search(r"folding at ([0-9.]+) s", r.text)[1]) for r in folds)
    assert made == [5.0, 5.0, 10.0, 10.0, 15.0, 15.0, 20.0, 20.0, 25.0, 30.0]
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 5
    assert all(r["policy"].startswith("folding[K=5s") for r in records)
    assert all(r["diagnostics"]["folds"] == math.floor(r["t_q"] / 5) for r in records)


@pytest.mark.parametrize("fails", [False, True])
def test_compression_ratio_counts_only_what_reached_the_model(fails: bool) -> None:
    from streamspatial.models.types import ModelResponse
    from streamspatial.video.coverage import compression_ratio

    class Model(EchoBackend):
        async def generate(self, request):
            if fails:  # the model answers with nothing: the fold adds nothing to the memory
                return ModelResponse(text="")
            return ModelResponse(text=f"memory up to {request.query_time:g}")

    agent = FoldingAgent()
    item, query, adapter = _item(25.0)
    view = PrefixView(FakeStore(30.0), 25.0)
    decision = decide(agent, view, item, query, adapter, Model())
    req = decision.request
    shown = {10.0, 20.0} | set(range(16, 26))  # fold frames + the dense window
    # Successful folds summarised the windows (0, 10] and (10, 20]; empty ones added nothing.
    kept = shown if fails else shown | set(range(1, 21))
    assert decision.diagnostics.as_dict()["compression_ratio"] == compression_ratio(kept, 25.0)
    if fails:
        assert TextPart("Memory at 20 s: (none)") in req.parts


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=120.0), min_size=1, max_size=6))
def test_no_fold_after_t_q_whatever_the_order_of_queries(times: list[float]) -> None:
    agent = FoldingAgent(max_folds=3)
    backend = EchoBackend(lambda r: f"memory up to {r.query_time:g}")
    for t_q in times:
        item, query, adapter = _item(t_q)
        view = PrefixView(FakeStore(121.0), t_q)
        decision = decide(agent, view, item, query, adapter, backend)
        req = decision.request
        # (within the 1e-9 s tolerance of PrefixView and the runner's 1e-6 s check)
        assert all(t <= t_q + 1e-6 for t in req.frame_times)
        text = " ".join(p.text for p in req.parts if isinstance(p, TextPart))
        assert all(float(x) <= t_q + 1e-6 for x in _memory_times(text))
        assert text.count("Memory at") == min(3, math.floor(t_q / 10 + 1e-9))
    for fold in backend.requests:  # each summary saw frames up to its fold time only
        assert fold.frame_times and max(fold.frame_times) <= fold.query_time + 1e-6


def test_folds_go_through_the_response_cache(bench, tmp_path: Path) -> None:
    """A second run over the same videos with the same cache makes no model call at all."""
    from streamspatial.models.cache import CachedBackend, ResponseCache

    data, videos = bench
    with FakeOpenAIServer(scripted, fps=FPS) as server:
        for k in range(2):
            cache = ResponseCache(tmp_path / "responses.sqlite")
            backend = CachedBackend(http_backend(server), cache)
            records = run_agent(data, videos, tmp_path / f"run{k}", FoldingAgent, backend)
            if k == 0:
                first = len(server.requests)
    # 5 answers + 3 fold calls: the folds at 10 s and 20 s of the two videos show the same
    # frames (timestamp videos draw the same index) and the same memory, so they are one call.
    assert first == 8 and len(server.requests) == first
    assert all(r.cached for r in records)


def _reference_diagnostics(agent, st_, folds, dense, query):
    """CR / ER by enumerating every folded second (the definition, at O(stream) cost)."""
    from streamspatial.video.coverage import compression_ratio, evidence_recall

    t_q = float(query.time)
    kept = {f.time for f in dense} | {f.frame_time for f in folds}
    if folds:
        k, w, step = agent.fold_every, agent.window_s, 1.0 / agent.dense_fps
        j_last = math.floor(folds[-1].time / k + 1e-9)
        for first, final in st_.merged:
            for j in range(first, min(final, j_last) + 1):
                lo = math.floor((j * k - w) / step + 1e-9) + 1
                hi = math.floor(j * k / step + 1e-9)
                kept.update(n * step for n in range(max(0, lo), hi + 1))
    kept = {t for t in kept if 0 <= t <= t_q}
    return compression_ratio(kept, t_q), evidence_recall(kept, query.evidence, t_q)


@settings(max_examples=150, deadline=None)
@given(
    k=st.sampled_from([2.0, 5.0, 10.0, 7.5]),
    w=st.sampled_from([2.0, 5.0, 10.0, 12.0]),
    dense_fps=st.sampled_from([1.0, 2.0, 0.5, 3.0]),
    ok=st.lists(st.booleans(), min_size=1, max_size=30),
    extra=st.floats(0, 9.9),
    evidence=st.lists(st.tuples(st.floats(0, 400), st.floats(0, 60)), max_size=3),
)
def test_property_interval_counting_equals_the_per_second_definition(
    k, w, dense_fps, ok, extra, evidence
):
    from streamspatial.agents.folding import Fold, FoldState

    agent = FoldingAgent(fold_every=k, window_s=w, dense_fps=dense_fps)
    state = FoldState()
    for j, success in enumerate(ok, start=1):  # successes form runs, failures gaps
        state.done = j
        if success:
            if state.merged and state.merged[-1][1] == j - 1:
                state.merged[-1][1] = j
            else:
                state.merged.append([j, j])
    t_q = len(ok) * k + extra
    folds = [Fold(j * k, j * k, b"", "m") for j in range(max(1, len(ok) - 3), len(ok) + 1)]
    dense = [SimpleNamespace(time=max(0.0, t_q - i / dense_fps)) for i in range(3)]
    query = SimpleNamespace(time=t_q, evidence=[(s, s + d) for s, d in evidence])
    got = agent._diagnostics(state, folds, dense, query)
    cr, er = _reference_diagnostics(agent, state, folds, dense, query)
    assert got.compression_ratio == pytest.approx(cr, abs=1e-12)
    assert (got.evidence_recall is None) == (er is None)
    if er is not None:
        assert got.evidence_recall == pytest.approx(er, abs=1e-12)
