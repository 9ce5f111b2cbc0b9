"""SpatialCaptionAgent (UCS-Bench D.3.1 / E.2): causality over real HTTP, frame–caption
interleaving, the 64-frame buffer, and captions made once per frame."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_helpers import decide
from memory_agent_fixtures import (
    CAPTION_RE,
    EchoBackend,
    FakeStore,
    http_backend,
    is_answer,
    run_agent,
    scripted,
    write_bench,
)
from streamspatial.agents import AgentOptions, MemoryCallError, agent_names, make_agent
from streamspatial.agents.spatial_caption import SpatialCaptionAgent
from streamspatial.models.types import ImagePart, ModelResponse, TextPart
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.prefix import PrefixView

FPS = 4.0


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("caption")
    return write_bench(
        root, {"a.mp4": 12.0, "b.mp4": 8.0}, [("a.mp4", [3.3, 11.5]), ("b.mp4", [6.0])], FPS
    )


def test_causality_canary_and_each_frame_captioned_once(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(scripted, fps=FPS) as server:
        records = run_agent(
            data,
            videos,
            tmp_path / "run",
            lambda: SpatialCaptionAgent(buffer=8),
            http_backend(server),
        )
    assert len(records) == 3 and all(r.error is None and r.valid for r in records)
    captions = [r for r in server.requests if "Write a spatial caption" in r.text]
    answers = [r for r in server.requests if is_answer(r)]
    assert len(captions) + len(answers) == len(server.requests)
    for req in server.requests:
        assert req.query_time is not None and None not in req.frame_indices
        assert not req.violates_causality()
    for req in captions:  # one frame, asked at that frame's time
        (i,) = req.frame_indices
        assert req.query_time == pytest.approx(i / FPS)
    # a: frames 0..3 s at t=3.3, then the 1 fps grid up to 11 s (buffer 8: 4..11 s), the ones
    # captioned already are not asked again; b: 0..6 s.
    made = sorted(r.frame_indices[0] for r in captions)
    a_frames = [4 * s for s in range(0, 12)]
    b_frames = [4 * s for s in range(0, 7)]
    assert made == sorted(a_frames + b_frames)
    for req in answers:
        # Every frame is followed by its own caption, and nothing is from after t_q.
        pairs = re.findall(
            r"Frame at ([0-9.]+) s:\nSpatial caption: CAPTION of frame (\d+)", req.text
        )
        assert len(pairs) == len(req.frame_indices) <= 8
        for (t, i), shown in zip(pairs, req.frame_indices, strict=True):
            assert int(i) == shown and float(t) == pytest.approx(shown / FPS)
            assert shown / FPS <= req.query_time
        assert all(int(i) / FPS <= req.query_time for i in CAPTION_RE.findall(req.text))


def test_buffer_keeps_the_64_most_recent_frames() -> None:
    agent = SpatialCaptionAgent()
    assert agent.buffer == 64
    backend = EchoBackend(lambda r: f"caption {r.query_time:g}")
    item, query, adapter = _item(99.5)
    view = PrefixView(FakeStore(120.0), 99.5)
    decision = decide(agent, view, item, query, adapter, backend)
    req = decision.request
    assert req.frame_times == [float(t) for t in range(36, 100)]
    kinds = "".join("I" if isinstance(p, ImagePart) else "T" for p in req.parts)
    assert kinds == "TIT" * 64 + "T"
    assert req.parts[2] == TextPart("Spatial caption: caption 36")
    assert len(backend.requests) == 64
    # The next query captions only the frames that entered the buffer.
    item2, query2, _ = _item(104.0)
    view2 = PrefixView(FakeStore(120.0), 104.0)
    decide(agent, view2, item2, query2, adapter, backend)
    assert [r.query_time for r in backend.requests[64:]] == [100.0, 101.0, 102.0, 103.0, 104.0]
    assert decision.diagnostics.as_dict()["captioned"] == 64


def test_failed_caption_is_an_error_and_asked_again() -> None:
    calls: list[float] = []

    class Flaky(EchoBackend):
        async def generate(self, request):
            calls.append(request.query_time)
            if request.query_time == 2.0 and calls.count(2.0) == 1:
                return ModelResponse(text="", error="HTTP 503")
            return ModelResponse(text=f"caption {request.query_time:g}")

    agent = SpatialCaptionAgent(buffer=4)
    backend = Flaky()
    item, query, adapter = _item(3.0)
    view = PrefixView(FakeStore(10.0), 3.0)
    # the failure is the query's error (recorded by the runner), not a silent "(unavailable)"
    with pytest.raises(MemoryCallError, match="caption of the frame at 2 s failed: HTTP 503"):
        decide(agent, view, item, query, adapter, backend)
    assert agent.state.errors == 1
    req = decide(agent, view, item, query, adapter, backend).request
    assert TextPart("Spatial caption: caption 2") in req.parts
    assert calls.count(2.0) == 2 and calls.count(1.0) == 1


def test_registered_under_its_name() -> None:
    agent = make_agent("spatial-caption", AgentOptions(policy="uniform-8"))
    assert isinstance(agent, SpatialCaptionAgent) and "spatial-caption" in agent_names()
    assert agent.label == "spatial-caption[64@1fps]" and not agent.offline


def _item(t_q: float):
    item = SimpleNamespace(
        id=f"q{t_q:g}",
        video="v.mp4",
        letters="ABCD",
        benchmark="ovos",
        task=SimpleNamespace(task="t"),
    )
    query = SimpleNamespace(time=t_q, evidence=(), index=0)
    adapter = SimpleNamespace(prompt=lambda *a, **k: "Q?", system_prompt=lambda it: None)
    return item, query, adapter
