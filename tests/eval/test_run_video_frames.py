"""``--frames video``: the policy's frames as one ``video_url`` per query point, to a real HTTP
server on the loopback.

Each request carries exactly the frames the policy picked from the prefix (none after t_q), as
vLLM's ``data:video/jpeg;base64,<frame>,<frame>,…``, their times in the prompt and in
``media_io_kwargs``; image options stay images; ``auto`` picks video for the Qwen-VL family
only, and a video that cannot be sent is refused in one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from release_fixtures import ovos_release_rows, write_ovos_json, write_ovos_videos
from runner_fixtures import FPS, answer_from_frames, write_ovos
from streamspatial.api import evaluate, load_benchmark
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.results import RUN_JSON
from streamspatial.models.body import build_body, streamed_body
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    TextPart,
    VideoPart,
)
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.video.policies import select_frames
from streamspatial.video.prefix import query_frame_index
from streamspatial.video.sources import open_source


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def expected_frames(data: Path, videos: Path, policy: str) -> dict[tuple[str, float], list[int]]:
    """(item id, t_q) → the frame indices the policy picks from the prefix."""
    b = load_benchmark(data, videos=videos)
    out = {}
    for item in b.items:
        source = open_source(videos / item.video)
        for q in item.queries:
            n_q = query_frame_index(q.time, source.fps, source.n_frames)
            out[(item.id, q.time)] = sorted(set(select_frames(policy, n_q, source.fps)))
    return out


def run_video(bench, tmp_path, **options):
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        result = evaluate(data, videos, base_url=server.base_url, out=tmp_path / "run",
                          frame_size=64, trace_headers=None, **options)  # fmt: skip
    return result, server


def test_video_mode_sends_one_video_of_exactly_the_picked_frames(bench, tmp_path):
    data, videos = bench
    result, server = run_video(bench, tmp_path, model="openai:test-model", policy="uniform-4",
                               frames="video", scorer="paper")  # fmt: skip
    assert result.counts["errors_total"] == 0 and len(server.requests) == 11
    want = expected_frames(data, videos, "uniform-4")
    by_record = {(r.item_id, r.t_q): r for r in result.records}
    for req in server.requests:
        assert req.n_images == 0 and len(req.videos) == 1
        seen = [i for i in req.frame_indices if i is not None]
        times = [t for t in req.frame_times if t is not None]
        rec = next(r for r in by_record.values() if r.frame_times == times)
        assert seen == want[(rec.item_id, rec.t_q)] and req.videos == [len(seen)]
        assert max(times) <= rec.t_q + 1e-9  # nothing after the query time
        # the times in the prompt, as one line; no per-frame captions
        assert "Frame at" not in req.text and req.text.startswith("Video: ")
        io = req.body["media_io_kwargs"]["video"]
        assert io["fps"] == FPS and io["frames_indices"] == seen and io["num_frames"] == -1
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["inputs"]["frames"] == "video" and meta["inputs"]["video_metadata"] is True


def test_auto_sends_video_to_the_qwen_vl_family_and_images_to_others(bench, tmp_path):
    _, server = run_video(bench, tmp_path / "q", model="openai:Qwen/Qwen2.5-VL-7B-Instruct",
                          policy="uniform-4")  # fmt: skip
    assert all(len(r.videos) == 1 and r.n_images == 0 for r in server.requests)
    meta = json.loads((tmp_path / "q" / "run" / RUN_JSON).read_text())
    assert meta["inputs"] == {"frames": "video", "frame_size": 64, "max_pixels": None,
                              "recipe": "qwen2.5-vl", "video_metadata": True}  # fmt: skip
    _, server = run_video(bench, tmp_path / "o", model="openai:test-model", policy="uniform-4")
    assert all(not r.videos and r.n_images >= 1 for r in server.requests)
    # an uneven policy keeps images under auto, even for the family
    _, server = run_video(bench, tmp_path / "l", model="openai:Qwen/Qwen2.5-VL-7B-Instruct",
                          policy="log-decay-8")  # fmt: skip
    assert all(not r.videos for r in server.requests)


def test_no_video_metadata_leaves_the_times_to_the_prompt(bench, tmp_path):
    _, server = run_video(bench, tmp_path, model="openai:test-model", policy="uniform-4",
                          frames="video", video_metadata=False)  # fmt: skip
    assert all("media_io_kwargs" not in r.body and len(r.videos) == 1 for r in server.requests)


def test_option_images_stay_images_beside_the_video(tmp_path):
    data = write_ovos_json(tmp_path / "ovos.json", ovos_release_rows())
    videos = write_ovos_videos(tmp_path)
    with FakeOpenAIServer("B", fps=FPS) as server:
        evaluate(data, videos, model="openai:test-model", policy="uniform-4", frames="video",
                 base_url=server.base_url, frame_size=64)  # fmt: skip
    maps = [r for r in server.requests if "Which map matches" in r.text]
    assert maps and all(r.n_images == 3 and len(r.videos) == 1 for r in maps)


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"policy": "log-decay-8"}, "--policy log-decay-8 picks unevenly spaced frames"),
        ({"policy": "uniform-4", "agent": "folding"}, "--agent folding interleaves its own text"),
    ],
)
def test_a_video_that_cannot_be_sent_is_refused_in_one_line(bench, tmp_path, options, reason):
    data, videos = bench
    with pytest.raises(StreamspatialError, match=reason):
        evaluate(data, videos, model="openai:test-model", frames="video",
                 base_url="http://127.0.0.1:9", out=tmp_path / "run", **options)  # fmt: skip
    assert not (tmp_path / "run").exists()
    done = subprocess.run(
        [sys.executable, "-m", "streamspatial", "run", "--data", str(data), "--videos",
         str(videos), "--model", "openai:m", "--frames", "video", "--out", str(tmp_path / "c"),
         "--base-url", "http://127.0.0.1:9",
         *[a for k, v in options.items() for a in (f"--{k}", v)]],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and reason in done.stderr


def test_frames_mode_is_part_of_the_configuration_hash(bench, tmp_path):
    data, videos = bench
    common = {"model": "openai:test-model", "policy": "uniform-4", "limit": 1, "frame_size": 64}
    with FakeOpenAIServer("A", fps=FPS) as server:
        evaluate(data, videos, base_url=server.base_url, out=tmp_path / "r", **common)
        with pytest.raises(StreamspatialError, match="different configuration"):
            evaluate(data, videos, base_url=server.base_url, out=tmp_path / "r", frames="video",
                     **common)  # fmt: skip


def test_the_streamed_video_body_is_the_json_of_build_body():
    frames = tuple(ImagePart(bytes([k]) * (50 + k), time=k * 0.5) for k in range(5))
    video = VideoPart(frames=frames, indices=(0, 5, 10, 15, 20), fps=10.0)
    request = ModelRequest(
        parts=(TextPart("Video: 5 frames"), video, TextPart("Q?")), query_time=2.0,
        params=GenerationParams(temperature=0.0, max_tokens=16),
    )  # fmt: skip
    for meta in (True, False):
        body = build_body("m", request, GenerationParams(), video_metadata=meta)
        streamed = streamed_body("m", request, GenerationParams(), video_metadata=meta)
        assert streamed.to_bytes() == json.dumps(body).encode()
        assert streamed.length == len(streamed.to_bytes())
    part = body["messages"][0]["content"][1]
    assert part["type"] == "video_url"
    assert part["video_url"]["url"].startswith("data:video/jpeg;base64,")
    assert part["video_url"]["url"].count(",") == 5  # the prefix's, then one between frames
    meta = video.metadata()
    assert meta == {"fps": 10.0, "frames_indices": [0, 5, 10, 15, 20], "total_num_frames": 25}
    # the frames' rate, len / total · fps, is one per 0.5 s
    assert len(frames) / meta["total_num_frames"] * meta["fps"] == pytest.approx(2.0)
