"""Agent code off the event loop: one thread, with an event loop of its own, runs every agent.

Perception in ``observe``, reading frames from the cache and building requests in ``decide``
are CPU and disk work; on the run's event loop they would stall the HTTP calls in flight.  So
the runner hands each agent call to this thread.  One thread means an agent's code never runs
on two threads at once (agents need no locks), and its own loop means ``decide`` stays a
coroutine: while one agent awaits a side call (a fold summary, a caption), others proceed.
Side calls go back to the run's loop through :meth:`AgentThread.backend`, where the HTTP
client lives.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from streamspatial.models.types import Backend, ModelRequest, ModelResponse

T = TypeVar("T")


class AgentThread:
    """A thread running its own event loop; :meth:`run` and :meth:`call` are awaited from the
    run's loop and execute here.  Cancelling the awaiting task cancels the agent's task."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="streamspatial-agent", daemon=True
        )
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` (an agent's ``decide``) on the agent thread."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Call ``fn(*args)`` (an agent's ``reset`` or ``observe``) on the agent thread."""

        async def sync() -> T:
            return fn(*args)

        return await self.run(sync())

    def backend(self, backend: Backend) -> Backend:
        """``backend`` as agent code sees it: each call made on the caller's (the run's) loop."""
        return _OnLoop(backend, asyncio.get_running_loop())

    def close(self) -> None:
        """Cancel what agent code is still running, then stop the thread."""

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(cancel_all(), self._loop).result()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
        self._loop.close()


class _OnLoop:
    """A backend proxy for agent code: ``generate`` runs on the loop that owns the backend."""

    def __init__(self, backend: Backend, loop: asyncio.AbstractEventLoop):
        self._backend = backend
        self._loop = loop

    @property
    def name(self) -> str:
        return self._backend.name

    async def generate(self, request: ModelRequest) -> ModelResponse:
        call = asyncio.run_coroutine_threadsafe(self._backend.generate(request), self._loop)
        return await asyncio.wrap_future(call)

    async def aclose(self) -> None:
        """The run owns the backend and closes it; an agent cannot."""
