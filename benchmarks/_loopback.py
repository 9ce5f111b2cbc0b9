"""What the request-path benchmarks share: a synthetic OVO-S file and a loopback server.

``run_memory.py`` and ``throughput.py`` both drive ``streamspatial run`` against
:class:`~streamspatial.testing.FakeOpenAIServer` over synthetic timestamp videos; the file
they evaluate and the server they call are the same shape in both, so they live here.  The
server runs in a spawned process so that its event loop never competes with the measured
process for the GIL.
"""

from __future__ import annotations

import json
import multiprocessing as mp
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def write_single_query_bench(
    path: Path, points: int, *, videos: int, seconds: float, first: float, tail: float
) -> None:
    """``points`` single-query OVO-S items spread evenly over ``videos`` videos.

    Query times run from ``first`` to ``seconds - tail`` on each video, so every query has a
    prefix to decode and none falls past the video's end.
    """
    per_video = -(-points // videos)
    step = (seconds - first - tail) / max(1, per_video - 1)
    with path.open("w") as fh:
        for k in range(points):
            v, j = k % videos, k // videos
            row = {
                "id": k,
                "category_index": f"1.1.1_{k}",
                "source_dataset": "synthetic",
                "video_id": f"v{v}",
                "video_path": f"v{v}.mp4",
                "level": 1,
                "task_main_category": "1.1",
                "task_subcategory": "1.1.1",
                "task_type_name": "Distance",
                "question": f"Question {k}: which object is closer to the camera?",
                "options": {c: f"option {c}" for c in "ABCD"},
                "query_times": [round(first + j * step, 3)],
                "evidence_times": [[0.5, 1.5]],
                "answers": ["A"],
            }
            fh.write(json.dumps(row) + "\n")


def _serve(ports, stop, latency: float) -> None:
    from streamspatial.testing import FakeOpenAIServer

    with FakeOpenAIServer("A", latency=latency, decode_frames=False) as server:
        ports.put(server.port)
        stop.wait()


@contextmanager
def loopback_server(latency: float) -> Iterator[str]:
    """The base URL of a fake OpenAI-compatible server answering "A" after ``latency`` s."""
    ctx = mp.get_context("spawn")
    ports, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=_serve, args=(ports, stop, latency), daemon=True)
    server.start()
    try:
        yield f"http://127.0.0.1:{ports.get(timeout=60)}/v1"
    finally:
        stop.set()
        server.join(timeout=10)
