"""Agent code runs in the agent thread, off the run's event loop, and its side calls reach the
run's backend on that loop."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import ClassVar

import pytest

from memory_agent_fixtures import run_agent, write_bench
from streamspatial.agents import Ask, StreamingAgent
from streamspatial.eval.agent_thread import AgentThread
from streamspatial.models.types import GenerationParams, ModelRequest, ModelResponse, TextPart

FPS = 4.0


class LocalBackend:
    """Answers "A"; notes the thread and loop each call ran on."""

    name = "local"

    def __init__(self) -> None:
        self.calls: list[tuple[str, asyncio.AbstractEventLoop, str]] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        kind = "side" if request.item_id == "side" else "answer"
        self.calls.append((threading.current_thread().name, asyncio.get_running_loop(), kind))
        return ModelResponse(text="A")

    async def aclose(self) -> None:
        pass


class ThreadNoting(StreamingAgent):
    """Notes where its own code runs, and makes one side call per query."""

    name = "thread-noting"
    seen: ClassVar[list[tuple[str, str]]] = []

    def frames_needed(self, item, query, stream):
        return [min(int(query.time * stream.fps), stream.n_frames - 1)]

    def reset(self, stream):
        self.seen.append(("reset", threading.current_thread().name))

    def observe(self, frame):
        self.seen.append(("observe", threading.current_thread().name))

    async def decide(self, ctx):
        self.seen.append(("decide", threading.current_thread().name))
        side = ModelRequest(parts=(TextPart("side"),), query_time=ctx.query.time, item_id="side")
        assert ctx.backend is not None
        assert (await ctx.backend.generate(side)).text == "A"
        return Ask(ctx.request([TextPart(ctx.prompt(text_only=True))], params=GenerationParams()))


def test_agent_code_runs_in_the_agent_thread_and_side_calls_on_the_run_loop(
    tmp_path: Path,
) -> None:
    data, videos = write_bench(tmp_path, {"a.mp4": 6.0}, [("a.mp4", [2.0, 4.0])], FPS)
    backend = LocalBackend()
    ThreadNoting.seen = []
    records = run_agent(data, videos, tmp_path / "run", ThreadNoting, backend)
    assert len(records) == 2 and all(r.error is None for r in records)
    steps = [k for k, _ in ThreadNoting.seen]
    assert steps == ["reset", "observe", "decide", "observe", "decide"]
    assert {t for _, t in ThreadNoting.seen} == {"streamspatial-agent"}
    # Side calls and answers alike ran on the run's own loop, in the main thread.
    assert {kind for _, _, kind in backend.calls} == {"side", "answer"}
    assert {t for t, _, _ in backend.calls} == {threading.main_thread().name}
    assert len({id(loop) for _, loop, _ in backend.calls}) == 1


def test_an_agent_error_surfaces_and_cancelling_the_caller_cancels_the_agent() -> None:
    agents = AgentThread()
    started, cancelled = threading.Event(), threading.Event()

    async def fails() -> None:
        raise ValueError("agent bug")

    async def waits() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def main() -> None:
        with pytest.raises(ValueError, match="agent bug"):
            await agents.run(fails())
        task = asyncio.ensure_future(agents.run(waits()))
        await asyncio.to_thread(started.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(main())
        assert cancelled.wait(5)
    finally:
        agents.close()
