"""Shared set-up of the model-written-memory agent tests (folding, spatial captions).

Timestamp videos (each frame shows its index in the pixels) + an OVO-S file in the published
layout, run through the real runner; a scripted "model" answers side calls with text that
names the newest frame it was shown, so the tests can trace every summary and caption back to
the frames it was made from.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from streamspatial.bench.registry import load_benchmark
from streamspatial.eval.results import PREDICTIONS, PredictionWriter, read_records
from streamspatial.eval.runner import Runner
from streamspatial.eval.video_tools import VideoTools
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.video.synthetic import write_timestamp_video

SIZE = (160, 120)
FOLD_RE = re.compile(r"FOLD@([0-9.]+) newest=(\d+)")
CAPTION_RE = re.compile(r"CAPTION of frame (\d+)")


def write_bench(
    root: Path, videos: dict[str, float], queries: list[tuple[str, list[float]]], fps: float
) -> tuple[Path, Path]:
    """OVO-S JSONL with one item per ``(video, query times)``; returns (file, videos folder)."""
    vdir = root / "videos"
    (vdir / "src").mkdir(parents=True, exist_ok=True)
    for k, (name, seconds) in enumerate(videos.items()):
        write_timestamp_video(
            vdir / "src" / name, seconds=seconds + k / fps, fps=fps, size=SIZE, gop=12
        )
    path = root / "ovos.jsonl"
    with path.open("w") as fh:
        for iid, (video, times) in enumerate(queries):
            task = "Revisit Counting" if len(times) > 1 else "Relative Direction"
            row = {
                "id": iid,
                "category_index": f"2.1.2_{iid}",
                "source_dataset": "synthetic",
                "video_id": video.removesuffix(".mp4"),
                "video_path": f"src/{video}",
                "level": 2,
                "task_main_category": "2.1",
                "task_subcategory": "2.1.2",
                "task_type_name": task,
                "question": f"Question {iid}: where is the thing?",
                "options": {"ABCDE"[k]: f"option {k}" for k in range(5 if len(times) > 1 else 4)},
                "query_times": times,
                "evidence_times": [[] for _ in times],
                "answers": ["A" for _ in times],
            }
            fh.write(json.dumps(row) + "\n")
    return path, vdir


def scripted(req: Any) -> str:
    """A model whose side-call outputs name what they were made from; answers are "A"."""
    seen = [i for i in req.frame_indices if i is not None]
    fold = re.search(r"Memory folding at ([0-9.]+) s", req.text)
    if fold:  # the fold time as the instruction states it (the CLI sends no trace header)
        return f"FOLD@{fold.group(1)} newest={max(seen)}"
    if "Write a spatial caption" in req.text:
        return f"CAPTION of frame {seen[-1]}"
    return "A"


def run_agent(data: Path, videos: Path, out: Path, agent: Any, backend: Any) -> list[Any]:
    """Run ``agent`` through the runner with ``backend``; returns the records."""
    adapter, items = load_benchmark(data, videos=videos)
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
            agent=agent,
            writer=writer,
            videos=videos,
            model="m",
            concurrency=4,
            frame_size=112,
            progress=False,
            video=VideoTools(frame_size=112),
        )
        asyncio.run(go(runner))
    return read_records(out / PREDICTIONS)


def http_backend(server: Any) -> OpenAIChatBackend:
    return OpenAIChatBackend(
        "m",
        base_url=server.base_url,
        api_key="",
        concurrency=4,
        trace_headers=True,
        timeout=10.0,
        max_retries=2,
        backoff_base=0.01,
        backoff_max=0.05,
    )


def is_answer(req: Any) -> bool:
    return "Question" in req.text and "Memory folding at" not in req.text


class FakeStore:
    """A frame store of ``seconds`` at ``fps`` whose JPEG bytes just name the frame (fast)."""

    def __init__(self, seconds: float, fps: float = 1.0):
        self.fps = fps
        self.n_frames = round(seconds * fps)

    def jpeg_frames(self, indices: list[int]) -> list[bytes]:
        return [f"frame-{i}".encode() for i in indices]


class EchoBackend:
    """In-process backend: records requests; side calls answer with ``reply(request)``."""

    name = "echo"

    def __init__(self, reply: Any = None):
        self.requests: list[Any] = []
        self.reply = reply or (lambda req: "A")

    async def generate(self, request: Any) -> Any:
        from streamspatial.models.types import ModelResponse

        self.requests.append(request)
        return ModelResponse(text=self.reply(request))

    async def aclose(self) -> None:
        return None
