"""UCS-Bench as released with 1 fps frame folders (App. C), end to end over HTTP.

The other runner tests stream H.264 files; UCS-Bench ships pre-extracted frames.  Here the
runner reads a numbered-JPEG folder whose pictures carry their own index, and the loopback
server decodes what each request carried: the streaming window is exactly the most recent K
frames within W seconds of t_q, uniform-N spans the prefix, nothing is later than t_q, and the
folder is read in one pass.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest

from runner_fixtures import answer_from_frames
from streamspatial.agents import PolicyAgent
from streamspatial.bench.registry import load_benchmark
from streamspatial.eval.results import PREDICTIONS, PredictionWriter, read_records
from streamspatial.eval.runner import Runner
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.policies import select_frames
from streamspatial.video.synthetic import write_frame_folder

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ucs") / "videos"
    write_frame_folder(root / "P02_office", seconds=12, size=(160, 120))
    return root


def run(videos: Path, out: Path, policy: str) -> tuple[Runner, list, FakeOpenAIServer]:
    adapter, items = load_benchmark(FIXTURES / "ucs_questions.jsonl", videos=videos)
    with FakeOpenAIServer(answer_from_frames, fps=1.0) as server:
        backend = OpenAIChatBackend(
            "m", base_url=server.base_url, api_key="", concurrency=2, trace_headers=True
        )

        async def go(runner: Runner) -> None:
            try:
                await runner.run()
            finally:
                await backend.aclose()

        out.mkdir()
        with PredictionWriter(out / PREDICTIONS) as writer:
            runner = Runner(
                adapter=adapter,
                items=items,
                backend=backend,
                agent=partial(PolicyAgent, policy),
                writer=writer,
                videos=videos,
                model="m",
                concurrency=2,
                frame_size=112,
                progress=False,
            )
            asyncio.run(go(runner))
    return runner, read_records(out / PREDICTIONS), server


@pytest.mark.parametrize("policy", ["window-4@1fps/5s", "uniform-8", "single@query"])
def test_frame_folder_stream_sends_exactly_the_policy_frames(videos, tmp_path, policy) -> None:
    runner, records, server = run(videos, tmp_path / "run", policy)
    assert runner.stats.decodes == 1 and runner.stats.errors == 0
    by_time = {r.query_time: r for r in server.requests}
    assert sorted(by_time) == [6.0, 9.5]
    for t_q, req in by_time.items():
        expected = select_frames(policy, int(t_q), 1.0)  # 1 fps: frame i is at i s
        assert req.frame_indices == expected, (t_q, req.frame_indices)
        assert not req.violates_causality()
    assert {(r.item_id, r.t_q): r.frame_times for r in records} == {
        ("P02_office#1", 6.0): [float(i) for i in select_frames(policy, 6, 1.0)],
        ("q-17", 9.5): [float(i) for i in select_frames(policy, 9, 1.0)],
    }


def test_window_is_the_most_recent_frames_and_scores_follow(videos, tmp_path) -> None:
    _, records, server = run(videos, tmp_path / "run", "window-4@1fps/5s")
    assert {r.query_time: r.frame_indices for r in server.requests} == {
        6.0: [3, 4, 5, 6],
        9.5: [6, 7, 8, 9],
    }
    # The "model" answers with the letter of its latest frame: frame 6 -> C (the truth of
    # P02_office#1), frame 9 -> B (q-17's truth is A).
    assert {r.item_id: (r.extracted, r.score) for r in records} == {
        "P02_office#1": ("C", 1.0),
        "q-17": ("B", 0.0),
    }
