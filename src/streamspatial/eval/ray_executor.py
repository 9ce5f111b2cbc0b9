"""Run the streaming evaluation across a Ray cluster: videos sharded over actors, one store.

Why this shape:

* **One stream per video, as locally.**  The unit of work is a whole video: an actor runs the
  very same :class:`~streamspatial.eval.runner.Runner` over that video's query points, so the
  single decoding pass, the time order, the multi-turn chains and the causality checks are
  the local code, not a re-implementation.
* **Each actor owns its model client.**  Backends hold connection pools or GPU weights that do
  not travel; each actor builds its own from a factory (an ``hf:`` model on the GPU Ray gives
  it, an OpenAI-compatible client pointing at the node's vLLM server).
* **The driver is the only writer.**  Actors *stream* each finished record back (a Ray
  streaming generator) and the driver appends it to the run's ``predictions.jsonl`` through
  the same :class:`~streamspatial.eval.results.PredictionWriter` a local run uses, so resume,
  the crash guarantees and the scores are identical to the local executor's.
* **A dead worker costs only its unfinished queries.**  When an actor dies (node lost, OOM,
  ``ray.kill``), its video goes back on the queue with the records already received marked
  done, and a fresh actor takes over.  After ``max_attempts`` the video's remaining query
  points are recorded with the error rather than dropped, so the exit status says so and
  ``--retry-errors`` asks them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from streamspatial.core.cluster import check_address, join
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.planner import VideoPlan
from streamspatial.eval.results import PredictionWriter, Record
from streamspatial.eval.runner import Runner, make_record, run_all
from streamspatial.models.types import ModelResponse, placement

__all__ = ["RayOptions", "VideoWorker", "check_address", "run_on_ray"]


@dataclass(frozen=True)
class RayOptions:
    """How to reach the cluster and how many workers to start.

    ``address``: ``None`` starts a local Ray instance (or uses the one already initialised in
    this process); ``"auto"`` or ``"ray://host:10001"`` joins a cluster.  ``workers``: actors
    to start (default: one per video, capped by the cluster's CPUs, or GPUs for ``hf:``).
    ``gpus_per_worker``: GPUs each actor asks Ray for (default 1 for ``hf:`` models on a
    cluster that has GPUs, else 0).  ``max_attempts``: how often a video is handed to a fresh
    actor after its worker died.
    """

    address: str | None = None
    workers: int | None = None
    gpus_per_worker: float | None = None
    max_attempts: int = 3


class _MemoryWriter(PredictionWriter):
    """The actor-side store: holds the records the driver already has (so resumed query points
    are skipped and multi-turn dependants read their dependency's stored answer) and hands
    every new record to ``sink`` instead of writing a file (the driver writes)."""

    def __init__(self, records: list[dict[str, Any]], sink: Callable[[Record], None]):
        self.path = Path(os.devnull)
        self.repaired_bytes = 0
        self._records = {}
        for raw in records:
            rec = Record.from_dict(raw)
            self._records[rec.key] = rec
        self._sink = sink

    def append(self, record: Record) -> None:
        old = self._records.get(record.key)
        if old is not None and old.error is None:
            raise RuntimeError(f"duplicate record for {record.key}")  # a runner bug
        self._records[record.key] = record
        self._sink(record)

    def close(self) -> None:
        return None


_END = object()


class VideoWorker:
    """A Ray actor (made remote in :func:`run_on_ray`) answering whole videos, one at a time.

    It keeps one backend for its lifetime (one connection pool, or one model in GPU memory)
    and one event loop (Ray's, for async actors), so the backend's client is never used
    across loops.
    """

    def __init__(self, parts: dict[str, Any]):
        """``parts``: adapter, agent (the run's agent factory), items, make_backend and
        runner_options (put in Ray's object store once by the driver, shared by every actor
        it starts)."""
        self.adapter = parts["adapter"]
        self.agent = parts["agent"]
        self.items = parts["items"]
        self.options = parts["runner_options"]
        make_backend = parts["make_backend"]
        import ray

        # An actor granted a GPU by Ray loads a local model there (Ray sets CUDA_VISIBLE_DEVICES).
        self.backend = make_backend(device="cuda" if ray.get_gpu_ids() else None)

    def pid(self) -> int:
        return os.getpid()

    async def run_video(self, video: str, done: list[dict[str, Any]]):
        """Yield each new record of ``video`` as a dict the moment it is made, then one
        ``{"stats": ...}`` dict with the decoding counters."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        writer = _MemoryWriter(done, queue.put_nowait)
        runner = Runner(
            adapter=self.adapter,
            items=[it for it in self.items if it.video == video],
            backend=self.backend,
            agent=self.agent,
            writer=writer,
            progress=False,
            **self.options,
        )

        async def drive() -> None:
            try:
                await runner.run()
            finally:
                queue.put_nowait(_END)

        task = asyncio.create_task(drive())
        while (item := await queue.get()) is not _END:
            yield asdict(item)
        await task  # re-raises what went wrong in the runner
        yield {
            "stats": {"decodes": runner.stats.decodes, "frames": runner.stats.frames_decoded},
            "placement": placement(self.backend),
        }

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.backend.aclose()


def _absolute(path: Any) -> Any:
    """A path as every node sees it: an actor's working directory is not the driver's, so a
    relative ``--videos`` or ``--cache-dir`` is resolved here first."""
    return None if path is None else Path(path).resolve()


def _runner_options(runner: Runner) -> dict[str, Any]:
    """The keyword arguments that make an actor's runner behave like the driver's."""
    return {
        "videos": _absolute(runner.videos),
        "model": runner.model,
        "concurrency": runner.concurrency,
        "frame_size": runner.frame_size,
        "max_pixels": runner.max_pixels,
        "cache_dir": _absolute(runner.cache_dir),
        "retry_errors": runner.retry_errors,
        "scorer": runner.scorer,
        "clips": runner.clips,
        "history": runner.history,
        "explorer": runner.explorer,
    }


def _resources(ray: Any, model: str, options: RayOptions, n_videos: int) -> tuple[int, float]:
    """(number of actors, GPUs per actor) for this cluster and model."""
    total = ray.cluster_resources()
    gpus = options.gpus_per_worker
    if gpus is None:
        gpus = 1.0 if model.startswith("hf:") and total.get("GPU", 0) >= 1 else 0.0
    if options.workers is not None:
        workers = options.workers
    elif gpus > 0:
        workers = int(total.get("GPU", 0) // gpus)
    else:
        workers = int(total.get("CPU", 1))
    return max(1, min(workers, n_videos)), gpus


def _reason(exc: BaseException) -> str:
    """The last line of a remote traceback (``Type: message``), project error types unprefixed."""
    text = getattr(exc, "error_msg", None) or str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    last = lines[-1] if lines else type(exc).__name__
    return last.removeprefix("streamspatial.core.errors.").split(": ", 1)[-1]


def _failed_records(runner: Runner, vp: VideoPlan, reason: str) -> list[Record]:
    """Error records for the query points of a video no worker could finish."""
    out = []
    for pq in vp.queries:
        if runner.writer.done(pq.key, retry_errors=runner.retry_errors):
            continue
        response = ModelResponse(text="", error=reason)
        record = make_record(
            pq, runner.adapter, runner.agent, runner.model, None, response, runner.scorer
        )
        out.append(record)
    return out


async def _execute(
    ray: Any,
    runner: Runner,
    make_backend: Callable[..., Any],
    options: RayOptions,
    on_record: Callable[[Any, Record], None] | None,
    placements: list[dict[str, Any]],
) -> None:
    stats = runner.stats
    todo: deque[tuple[VideoPlan, int]] = deque()
    for vp in runner.plans:
        pending = [pq for pq in vp.queries if not runner._done(pq)]
        done_now = len(vp.queries) - len(pending)
        stats.skipped += done_now
        stats.queries_done += done_now
        if pending:
            todo.append((vp, 1))
        else:
            stats.videos_done += 1
    runner._tick()
    if not todo:
        return
    n_workers, gpus = _resources(ray, runner.model, options, len(todo))
    shared = ray.put(
        {
            "adapter": runner.adapter,
            "agent": runner.make_agent,
            "items": runner.items,
            "make_backend": make_backend,
            "runner_options": _runner_options(runner),
        }
    )
    remote = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=0)(VideoWorker)

    async def spawn() -> Any:
        actor = remote.remote(shared)  # Ray resolves the reference in the actor
        try:
            await actor.pid.remote()
        except ray.exceptions.RayActorError as exc:
            # A worker that cannot even start (bad model path, missing extra) fails the same
            # way on every retry: stop with its reason instead of recording every query failed.
            if getattr(exc, "actor_init_failed", False):
                raise StreamspatialError(f"a Ray worker failed to start: {_reason(exc)}") from None
            raise
        return actor

    async def answer(actor: Any, vp: VideoPlan) -> None:
        keys = {pq.key for pq in vp.queries}
        done = [asdict(r) for k, r in runner.writer.records.items() if k in keys]
        stream = actor.run_video.options(num_returns="streaming").remote(vp.video, done)
        async for ref in stream:
            payload = await ref
            if "stats" in payload:
                stats.decodes += payload["stats"]["decodes"]
                stats.frames_decoded += payload["stats"]["frames"]
                where = payload.get("placement")
                if where is not None and where not in placements:
                    placements.append(where)
                continue
            record = Record.from_dict(payload)
            runner.writer.append(record)
            stats.queries_done += 1
            stats.errors += record.error is not None
            stats.invalid += not record.valid
            runner._tick()
            if on_record is not None:
                on_record(actor, record)

    async def worker() -> None:
        actor = await spawn()
        try:
            while todo:
                vp, attempt = todo.popleft()
                try:
                    await answer(actor, vp)
                except ray.exceptions.RayActorError as exc:
                    reason = f"worker died: {type(exc).__name__}"
                    if attempt < options.max_attempts:
                        todo.append((vp, attempt + 1))
                    else:
                        for record in _failed_records(runner, vp, reason):
                            runner.writer.append(record)
                            stats.queries_done += 1
                            stats.errors += 1
                            stats.invalid += 1
                        stats.videos_done += 1
                    with contextlib.suppress(Exception):
                        ray.kill(actor, no_restart=True)
                    actor = await spawn()
                    continue
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                    raise cause from None
                stats.videos_done += 1
                runner._tick()
        finally:
            with contextlib.suppress(Exception):
                await actor.close.remote()
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)

    await run_all([asyncio.create_task(worker()) for _ in range(n_workers)])


def run_on_ray(
    runner: Runner,
    make_backend: Callable[..., Any],
    options: RayOptions | None = None,
    *,
    on_record: Callable[[Any, Record], None] | None = None,
) -> list[dict[str, Any]]:
    """Answer every pending query point of ``runner``'s plan on Ray actors; returns the
    distinct placements (device, dtype) the actors' local models reported.

    ``runner`` is the driver's: its plan, writer (the run's ``predictions.jsonl``), stats and
    progress bar are used; its own backend is not (pass ``backend=None``).  ``make_backend``
    is called once in each actor, with ``device="cuda"`` in an actor Ray gave a GPU (else
    ``device=None``: the run's ``--device``).  ``on_record(actor, record)`` runs in the driver
    after each record is stored (tests use it to kill a worker mid-video).
    """
    options = options or RayOptions()
    check_address(options.address)
    import ray

    runner.check_videos()
    started = join(options.address)
    placements: list[dict[str, Any]] = []
    try:
        with runner._progress_bar():
            asyncio.run(_execute(ray, runner, make_backend, options, on_record, placements))
    finally:
        runner.video.close()
        if started:
            ray.shutdown()
    return placements
