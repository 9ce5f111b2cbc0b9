"""The runner end to end, in process, against the real loopback OpenAI-compatible server.

Generated timestamp videos + an OVO-S JSONL in the published layout; the server decodes the
frame index drawn in every image it receives, so causality is checked on what actually went
over HTTP, for every policy.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from runner_fixtures import FPS, answer_from_frames, make_videos, write_ovos
from streamspatial.agents import Ask, Diagnostics, PolicyAgent, StreamingAgent
from streamspatial.bench.registry import load_benchmark
from streamspatial.core.errors import CausalityError
from streamspatial.eval.results import PREDICTIONS, PredictionWriter, read_records
from streamspatial.eval.runner import Runner
from streamspatial.eval.video_tools import VideoTools
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.models.types import GenerationParams
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.policies import parse_policy

POLICIES = [
    "single@query",
    "nearest-16f@4fps",
    "uniform-8",
    "uniform-128",
    "log-decay-16",
    "oracle-evidence-8",
    "window-4@2fps/3s",
]


class CountingVideo(VideoTools):
    """Real sources and JPEG preparation, counting opens and decoding passes per video."""

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        self.opens: dict[str, int] = {}
        self.reads: dict[str, int] = {}

    def open(self, path: Path) -> Any:
        self.opens[path.name] = self.opens.get(path.name, 0) + 1
        source = super().open(path)
        for name in ("read", "read_video_frames"):
            inner = getattr(source, name, None)
            if inner is not None:
                setattr(source, name, self._counted(path.name, inner))
        return source

    def _counted(self, name: str, inner: Any) -> Any:
        def read(indices):
            self.reads[name] = self.reads.get(name, 0) + 1
            return inner(indices)

        return read


def run_once(
    data: Path,
    videos: Path,
    out: Path,
    server: FakeOpenAIServer,
    policy: str,
    *,
    video: CountingVideo | None = None,
    items_filter=None,
    adapter=None,
    items=None,
    timeout: float = 10.0,
    max_retries: int = 3,
) -> Runner:
    if adapter is None:
        adapter, items = load_benchmark(data, videos=videos)
    if items_filter is not None:
        items = items_filter(items)
    backend = OpenAIChatBackend(
        "m",
        base_url=server.base_url,
        api_key="",
        concurrency=4,
        trace_headers=True,
        timeout=timeout,
        max_retries=max_retries,
        backoff_base=0.01,
        backoff_max=0.05,
    )
    out.mkdir(parents=True, exist_ok=True)

    async def go(runner: Runner) -> None:
        try:
            await runner.run()
        finally:
            await backend.aclose()

    with PredictionWriter(out / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=backend,
            agent=partial(PolicyAgent, policy),
            writer=writer,
            videos=videos,
            model="m",
            concurrency=4,
            frame_size=112,
            progress=False,
            video=video or CountingVideo(frame_size=112),
        )
        asyncio.run(go(runner))
    return runner


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


@pytest.mark.parametrize("policy", POLICIES)
def test_causality_canary_and_one_decode_per_video(bench, tmp_path: Path, policy: str) -> None:
    data, videos = bench
    video = CountingVideo(frame_size=112)
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        runner = run_once(data, videos, tmp_path / "run", server, policy, video=video)
    assert len(server.requests) == 11  # every query point asked once
    for req in server.requests:
        assert req.query_time is not None and req.n_images > 0
        assert None not in req.frame_indices  # every image decoded to its drawn index
        assert not req.violates_causality(), (policy, req.query_time, req.frame_times)
    assert video.opens == {"a.mp4": 1, "b.mp4": 1, "c.mp4": 1}
    assert video.reads == {"a.mp4": 1, "b.mp4": 1, "c.mp4": 1}
    assert runner.stats.decodes == 3
    records = read_records(tmp_path / "run" / PREDICTIONS)
    assert len(records) == 11
    for r in records:
        assert r.policy == str(parse_policy(policy))
        assert r.offline == policy.startswith("oracle")
        assert all(t <= r.t_q + 1e-9 for t in r.frame_times)
    by_time = sorted(server.requests, key=lambda q: (q.query_time, q.number))
    assert all(q.max_frame_time <= q.query_time + 1e-9 for q in by_time)


def test_text_only_sends_no_image_and_decodes_nothing(bench, tmp_path: Path) -> None:
    data, videos = bench
    video = CountingVideo(frame_size=112)
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        runner = run_once(data, videos, tmp_path / "run", server, "none", video=video)
    assert len(server.requests) == 11
    assert all(req.n_images == 0 for req in server.requests)
    assert video.opens == {} and runner.stats.decodes == 0
    records = read_records(tmp_path / "run" / PREDICTIONS)
    assert {r.policy for r in records} == {"none"} and all(r.frame_times == [] for r in records)
    assert all(r.extracted == "A" for r in records)


def test_scores_follow_the_model_answers(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        run_once(data, videos, tmp_path / "run", server, "single@query")
    records = {r.key: r for r in read_records(tmp_path / "run" / PREDICTIONS)}
    for r in records.values():
        n_q = int(r.t_q * FPS + 1e-9)
        assert r.frame_times == [n_q / FPS]
        assert r.extracted == "ABCD"[n_q % 4]
        assert r.score == (1.0 if r.extracted == r.answer else 0.0)
        assert r.valid and r.error is None
    # Revisit counting: three query points of one item, each its own record.
    assert [records[("2", i)].t_q for i in range(3)] == [1.0, 3.0, 5.5]


def test_resume_after_a_partial_file_gives_the_same_records(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        run_once(data, videos, tmp_path / "full", server, "uniform-8")
        path = tmp_path / "full" / PREDICTIONS
        reference = {r.key: (r.extracted, r.score) for r in read_records(path)}
        lines = path.read_bytes().split(b"\n")
        cut = tmp_path / "cut"
        cut.mkdir()
        (cut / PREDICTIONS).write_bytes(b"\n".join(lines[:4]) + b"\n" + lines[4][:25])
        n_before = len(server.requests)
        runner = run_once(data, videos, cut, server, "uniform-8")
        assert len(server.requests) - n_before == 11 - 4  # only the missing ones asked
        assert runner.stats.skipped == 4
    after = read_records(cut / PREDICTIONS)
    assert len(after) == 11
    assert {r.key: (r.extracted, r.score) for r in after} == reference
    assert len((cut / PREDICTIONS).read_text().splitlines()) == 11  # nothing duplicated


def test_second_run_with_a_frame_cache_decodes_nothing(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        first = run_once(
            data,
            videos,
            tmp_path / "r1",
            server,
            "uniform-8",
            video=CountingVideo(frame_size=112, cache_dir=tmp_path / "cache"),
        )
        second = run_once(
            data,
            videos,
            tmp_path / "r2",
            server,
            "uniform-8",
            video=CountingVideo(frame_size=112, cache_dir=tmp_path / "cache"),
        )
    assert first.stats.decodes == 3 and second.stats.decodes == 0
    a = {r.key: r.extracted for r in read_records(tmp_path / "r1" / PREDICTIONS)}
    b = {r.key: r.extracted for r in read_records(tmp_path / "r2" / PREDICTIONS)}
    assert a == b


def test_faults_never_lose_a_query_point(bench, tmp_path: Path) -> None:
    data, videos = bench
    rates = {"500": 0.15, "503": 0.1, "429": 0.1, "malformed": 0.1, "empty": 0.1, "hang": 0.05}
    with FakeOpenAIServer(
        answer_from_frames, fps=FPS, fault_rates=rates, seed=3, hang_seconds=2.0
    ) as server:
        run_once(data, videos, tmp_path / "run", server, "uniform-8", timeout=0.5, max_retries=1)
    records = read_records(tmp_path / "run" / PREDICTIONS)
    assert sorted(r.key for r in records) == sorted(
        [(str(i), 0) for i in range(9) if i != 2] + [("2", 0), ("2", 1), ("2", 2)]
    )
    failed = [r for r in records if r.error]
    assert failed, "the fault schedule should exhaust some retries"
    for r in failed:
        assert r.score == 0.0 and not r.valid and r.extracted is None and r.raw_output == ""


def test_multi_turn_prompt_carries_the_models_own_answer(tmp_path: Path) -> None:
    videos = make_videos(tmp_path, ["h.mp4"])
    data = tmp_path / "s3.jsonl"
    rows = [
        {
            "id": "q1",
            "video": "src/h.mp4",
            "task": "identification_closest",
            "format": "mc",
            "question": "Which object is closest to the camera?",
            "options": ["the red chair", "the blue lamp", "the green sofa", "the oak table"],
            "query_time": 2.0,
            "answer": "A",
        },
        {
            "id": "q2",
            "video": "src/h.mp4",
            "task": "tem_spatial_distance_ref",
            "format": "num",
            "question": "How far is {prev_answer} from the door, in metres?",
            "query_time": 4.0,
            "answer": 2.5,
            "depends_on": "q1",
        },
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def model(req) -> str:  # answers "C" to the choice turn, a distance to the numeric one
        return "C" if "Options:" in req.text else "3.0 metres"

    with FakeOpenAIServer(model, fps=FPS) as server:
        run_once(data, videos, tmp_path / "run", server, "single@query")
        second = [r for r in server.requests if "from the door" in r.text]
        assert len(second) == 1
        assert "the green sofa from the door" in second[0].text  # the model's own answer
        assert "the red chair" not in second[0].text  # never the ground truth
        assert second[0].system is not None  # S3's system prompt goes along

    records = {r.item_id: r for r in read_records(tmp_path / "run" / PREDICTIONS)}
    assert records["q1"].extracted == "C" and records["q1"].score == 0.0
    assert records["q2"].extracted == 3.0
    assert records["q2"].score == pytest.approx(0.7)  # MRA of 3.0 vs 2.5: θ ≤ 0.8 pass

    # Resume with only the dependant missing: its prompt still uses the stored answer.
    path = tmp_path / "run" / PREDICTIONS
    keep = [ln for ln in path.read_text().splitlines() if '"item_id":"q1"' in ln]
    path.write_text(keep[0] + "\n")
    with FakeOpenAIServer(model, fps=FPS) as server:
        run_once(data, videos, tmp_path / "run", server, "single@query")
        assert len(server.requests) == 1
        assert "the green sofa from the door" in server.requests[0].text


def test_agent_asking_for_a_later_frame_is_a_causality_error(bench, tmp_path: Path) -> None:
    data, videos = bench

    class Cheat(PolicyAgent):
        def frames_needed(self, item, query, stream):
            return [min(stream.n_frames - 1, int(query.time * stream.fps) + 3)]

    adapter, items = load_benchmark(data, videos=videos)
    backend = OpenAIChatBackend("m", base_url="http://127.0.0.1:9/v1", api_key="")
    with PredictionWriter(tmp_path / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=backend,
            agent=partial(Cheat, "uniform-8"),
            writer=writer,
            videos=videos,
            model="m",
            progress=False,
            video=CountingVideo(frame_size=112),
        )
        with pytest.raises(CausalityError):
            asyncio.run(runner.run())
        asyncio.run(backend.aclose())
    assert read_records(tmp_path / PREDICTIONS) == []


class RecordingStreamingAgent(StreamingAgent):
    """A streaming agent: 2 fps observation, answers with the frames of its last 2 seconds.
    Its instances (one per video) write into one shared log."""

    name = "recording"

    def __init__(self, log: list[tuple[str, Any]]) -> None:
        self.log = log
        self.memory: list[Any] = []

    def frames_needed(self, item, query, stream):
        n_q = min(int(query.time * stream.fps + 1e-9), stream.n_frames - 1)
        return list(range(0, n_q + 1, int(stream.fps // 2)))

    def reset(self, stream) -> None:
        self.log.append(("reset", stream.video))
        self.memory = []

    def observe(self, frame: Any) -> None:
        self.log.append(("ingest", frame.index))
        self.memory.append(frame)

    async def decide(self, ctx):
        from streamspatial.models.types import ImagePart, TextPart

        recent = [f for f in self.memory if f.time >= ctx.query.time - 2.0]
        parts = [p for f in recent for p in (TextPart(f"t={f.time}"), ImagePart(f.jpeg, f.time))]
        self.log.append(("ask", ctx.query.time))
        request = ctx.request([*parts, TextPart(ctx.prompt())], params=GenerationParams())
        kept = [f.time for f in recent]
        return Ask(request, Diagnostics.of_times(kept, ctx.query, memory_frames=len(self.memory)))


def test_streaming_agent_ingests_each_frame_once_in_time_order(bench, tmp_path: Path) -> None:
    data, videos = bench
    adapter, items = load_benchmark(data, videos=videos)
    log: list[tuple[str, Any]] = []
    video = CountingVideo(frame_size=112)
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        backend = OpenAIChatBackend("m", base_url=server.base_url, api_key="", trace_headers=True)
        with PredictionWriter(tmp_path / PREDICTIONS) as writer:
            runner = Runner(
                adapter=adapter,
                items=items,
                backend=backend,
                agent=partial(RecordingStreamingAgent, log),
                writer=writer,
                videos=videos,
                model="m",
                concurrency=1,
                progress=False,
                video=video,
            )

            async def go() -> None:
                await runner.run()
                await backend.aclose()

            asyncio.run(go())
        assert not any(r.violates_causality() for r in server.requests)
    assert video.reads == {"a.mp4": 1, "b.mp4": 1, "c.mp4": 1}
    # concurrency 1: videos one after another, so the log splits cleanly per video
    per_video: dict[str, list[tuple[str, Any]]] = {}
    current = None
    for kind, value in log:
        if kind == "reset":
            current = value
            assert current not in per_video  # reset once per video
            per_video[current] = []
        else:
            per_video[current].append((kind, value))
    assert set(per_video) == {"src/a.mp4", "src/b.mp4", "src/c.mp4"}
    for events in per_video.values():
        fed = [v for k, v in events if k == "ingest"]
        assert fed == sorted(set(fed))  # each frame once, in time order
        seen = -1
        for kind, value in events:
            if kind == "ingest":
                seen = value
            else:  # asked at t: everything up to t's last 2 fps frame is in, nothing later
                assert seen == max(i for i in range(0, int(value * FPS + 1e-9) + 1, 5))
    records = read_records(tmp_path / PREDICTIONS)
    assert len(records) == 11 and all(r.diagnostics["memory_frames"] > 0 for r in records)


def test_each_video_file_is_probed_hashed_and_decoded_once_and_a_cached_rerun_reads_none(
    bench, tmp_path: Path, monkeypatch
) -> None:
    """Validation probes a video, the run reuses that probe, hashes the file once and opens it
    once to decode; a re-run in a new process (memos cleared) with the cache reads the file for
    nothing but validation's probe."""
    import av

    from streamspatial.video import sources

    data, videos = bench
    opened: list[str] = []
    hashed: list[str] = []
    real_open, real_hash = av.open, sources.file_content_id

    def counting_open(path, *args, **kwargs):
        opened.append(Path(str(path)).name)
        return real_open(path, *args, **kwargs)

    def counting_hash(path):
        hashed.append(Path(path).name)
        return real_hash(path)

    monkeypatch.setattr(av, "open", counting_open)
    monkeypatch.setattr(sources, "file_content_id", counting_hash)
    for attempt in ("cold", "cached"):
        sources._content_ids.clear()  # a new process
        sources._probes.clear()
        opened.clear()
        hashed.clear()
        with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
            run_once(
                data,
                videos,
                tmp_path / attempt,
                server,
                "uniform-8",
                video=CountingVideo(frame_size=112, cache_dir=tmp_path / "cache"),
            )
        names = ["a.mp4", "b.mp4", "c.mp4"]
        if attempt == "cold":
            assert sorted(opened) == sorted(names * 2)  # validation's probe, the decoding pass
            assert sorted(hashed) == names
        else:
            assert sorted(opened) == names  # validation's probe only
            assert hashed == []
