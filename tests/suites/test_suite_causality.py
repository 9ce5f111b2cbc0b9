"""Causality at scale: the timestamp canary over every policy and agent, ≥ 1,000 query points.

Every frame of the test videos shows its own index in the pixels.  A canary backend decodes
the barcode of every image each request carries — after H.264, single-pass decoding, resizing
and JPEG — and the text it is sent: its side-call answers (fold summaries, captions) name the
newest frame they were made from, so a memory entry that came from the future would show up
as a frame number past the request's time.  Query points are drawn at random (seeded) over
three videos, several per item, so streams are read in every order the planner produces.

Agents that need simulator perception run here with the classical provider on the timestamp
videos; their ground-truth mode has its own canary on simulator videos.
"""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from memory_agent_fixtures import run_agent, write_bench
from streamspatial.agents import AgentOptions, agent_entry, agent_factory, agent_names
from streamspatial.models.types import GenerationParams, ImagePart, ModelResponse
from streamspatial.video.synthetic import read_frame_index_jpeg

FPS = 4.0
VIDEOS = {"a.mp4": 90.0, "b.mp4": 60.0, "c.mp4": 120.0}
SEEN_RE = re.compile(r"seen frame (\d+)")

POLICIES = [
    "single@query",
    "nearest-16f@4fps",
    "uniform-16",
    "log-decay-16",
    "oracle-evidence-8",
    "window-4@2fps/3s",
    "none",
]
# Agents other than the frame-policy one, with the options they need on a non-simulator video.
AGENT_OPTIONS: dict[str, dict[str, Any]] = {
    "folding": {"fold_every": 7.0},
    "spatial-caption": {},
    "scene-graph": {"perception": "classical"},
    "scene-graph-rules": {"perception": "classical"},
}


@dataclass
class CanaryBackend:
    """Reads what every request really carries and counts any content from after its time."""

    fps: float
    requests: int = 0
    images: int = 0
    answers: int = 0
    leaks: list[str] = field(default_factory=list)

    async def generate(self, request: Any) -> ModelResponse:
        self.requests += 1
        limit = request.query_time + 1e-6
        newest = -1
        for part in request.all_parts:  # a dialogue's history included
            if isinstance(part, ImagePart):
                index = read_frame_index_jpeg(part.jpeg)
                self.images += 1
                newest = max(newest, index)
                if index / self.fps > limit or part.time > limit:
                    self.leaks.append(f"frame {index} in a request at t={request.query_time}")
            else:
                for m in SEEN_RE.finditer(part.text):
                    if int(m.group(1)) / self.fps > limit:
                        self.leaks.append(f"memory of frame {m.group(1)} at t={request.query_time}")
        if request.item_id and request.choices:
            self.answers += 1
        return ModelResponse(text=f"A (seen frame {newest})" if newest >= 0 else "A")

    async def aclose(self) -> None:
        return None


def random_queries(n_points: int, seed: int) -> list[tuple[str, list[float]]]:
    """Items of 1–4 query points at random times (to the millisecond) over the videos."""
    rng = random.Random(seed)
    out: list[tuple[str, list[float]]] = []
    total = 0
    while total < n_points:
        video = rng.choice(sorted(VIDEOS))
        k = min(rng.randint(1, 4), n_points - total)
        times = sorted(round(rng.uniform(0.0, VIDEOS[video] - 0.5), 3) for _ in range(k))
        out.append((video, times))
        total += k
    return out


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("canary")
    write_bench(root, VIDEOS, [("a.mp4", [1.0])], FPS)
    return root / "videos"


def canary_run(videos: Path, tmp: Path, name: str, policy: str, n: int, seed: int) -> CanaryBackend:
    data, _ = write_bench(tmp, {}, random_queries(n, seed), FPS)
    options = AgentOptions(policy=policy, params=GenerationParams(), **AGENT_OPTIONS.get(name, {}))
    backend = CanaryBackend(FPS)
    records = run_agent(data, videos, tmp / "run", agent_factory(name, options), backend)
    assert len(records) == n and not any(r.error for r in records)
    for r in records:
        assert all(t <= r.t_q + 1e-6 for t in r.frame_times), (name, policy, r.key)
    return backend


def cases() -> list[tuple[str, str]]:
    out = [("policy", p) for p in POLICIES]
    out += [(name, "uniform-8") for name in agent_names() if name != "policy"]
    return out


def test_every_registered_agent_is_covered() -> None:
    assert set(agent_names()) - {"policy"} <= set(AGENT_OPTIONS), "add new agents to the canary"


# 7 policies + 4 agents at 100 query points each: 1,100 random query points in the default run.
@pytest.mark.parametrize(("name", "policy"), cases())
def test_timestamp_canary_zero_leaks(videos, tmp_path, name: str, policy: str) -> None:
    backend = canary_run(
        videos, tmp_path, name, policy, n=100, seed=zlib.crc32(f"{name}{policy}".encode())
    )
    assert backend.leaks == [], backend.leaks[:5]
    # An agent that answers itself (rules) sends no request: nothing can leak through one.
    assert backend.answers == (100 if agent_entry(name).answers_as is None else 0)
    # Scene-graph agents show keyframes of detected objects only; on barcode videos the
    # classical provider detects none, so for them the canary reads the memory text alone.
    if policy != "none" and not name.startswith("scene-graph"):
        assert backend.images > 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "policy"), cases())
def test_timestamp_canary_zero_leaks_1000_each(videos, tmp_path, name: str, policy: str) -> None:
    backend = canary_run(videos, tmp_path, name, policy, n=1000, seed=7)
    assert backend.leaks == [], backend.leaks[:5]
    # An agent that answers itself (rules) sends no request: nothing can leak through one.
    assert backend.answers == (1000 if agent_entry(name).answers_as is None else 0)
