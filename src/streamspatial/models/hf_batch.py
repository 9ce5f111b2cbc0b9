"""Batching for the local backend: many requests in flight, one ``generate`` over them.

A GPU answering one request at a time idles most of the time.  The runner already keeps
``--concurrency`` requests in flight; the local backend prepares each one as it arrives (image
decoding, resizing and the processor, in a pool of preparation threads) and hands the prepared
inputs to :class:`MicroBatcher`, whose single thread calls ``generate``.  Whenever the model is
free, the batcher takes what is ready, up to ``batch_size``, and nothing waits on a timer: a
batch is what arrived while the last one ran, so with ``--concurrency`` at twice the batch size
one batch is being prepared while the other generates.

What the batch must not change (lmms-eval's batching lost 16 points of OCRBench to images
shared between samples, and Qwen-VL batches broke on right padding):

* :func:`collate` pads on the **left**, so every sample's last prompt token sits at the end
  and generation continues each prompt where it stopped;
* image tensors are concatenated in the order of the samples, so each sample's image tokens
  meet its own images and no one else's;
* each sample stops on its own (``generate`` pads finished rows; :func:`completion_length`
  counts a row's tokens up to its own end token), and keeps its own prompt length.

Only requests with the same decoding settings share a batch; a seeded sampled request runs
alone, so its seed still decides its answer.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

# Processor outputs that run along the prompt (one value per token): left-padded.  Anything
# else (pixel values, image grids and sizes) is per image and is concatenated.
TOKEN_KEYS = frozenset({"input_ids", "attention_mask", "token_type_ids", "mm_token_type_ids"})


def collate(samples: Sequence[dict[str, Any]], pad_id: int) -> dict[str, Any]:
    """One batch from per-sample processor outputs (each with a batch dimension of 1).

    Token tensors are left-padded to the longest prompt (``input_ids`` with ``pad_id``, masks
    with 0); every other tensor is concatenated along its first dimension in sample order.
    Raises (``ValueError``, or torch's ``RuntimeError``) when the outputs cannot be stacked, as
    for a processor whose image tensors differ in shape between samples: the batcher then
    answers those samples one at a time.
    """
    import torch

    keys: list[str] = []  # every key of any sample, in first-seen order
    for s in samples:
        keys += [k for k in s if k not in keys]
    if "input_ids" not in keys:
        raise ValueError("a sample without input_ids")
    width = max(int(s["input_ids"].shape[1]) for s in samples)
    out: dict[str, Any] = {}
    for key in keys:
        if key in TOKEN_KEYS:
            rows = []
            for s in samples:
                row = s.get(key)
                if row is None or row.dim() != 2 or row.shape[0] != 1:
                    raise ValueError(f"{key}: expected one row in every sample")
                pad = row.new_full((1, width - row.shape[1]), pad_id if key == "input_ids" else 0)
                rows.append(torch.cat([pad, row], dim=1))
            out[key] = torch.cat(rows, dim=0)
        else:  # per image; a sample without images has none to add
            out[key] = torch.cat([s[key] for s in samples if key in s], dim=0)
    return out


def completion_length(tokens: Sequence[int], eos_ids: set[int]) -> int:
    """Tokens a row generated: up to and including its first end token (after it, ``generate``
    only pads a finished row while others continue), else all of them."""
    for i, tok in enumerate(tokens):
        if int(tok) in eos_ids:
            return i + 1
    return len(tokens)


@dataclass
class Job:
    """One prepared request waiting for a batch; ``key`` groups jobs that may share one."""

    payload: Any
    key: Hashable
    alone: bool = False
    future: Future[Any] = field(default_factory=Future)


@dataclass
class BatchStats:
    """What the generate thread did, for benchmarks and tests: ``batches`` counts calls of
    ``run_batch`` (a failed batch's one-at-a-time retries included), ``requests`` the jobs
    they held."""

    batches: int = 0
    requests: int = 0
    largest: int = 0
    generate_s: float = 0.0

    @property
    def mean_size(self) -> float:
        return self.requests / self.batches if self.batches else 0.0


class MicroBatcher:
    """A thread running ``run_batch(payloads) -> results`` over up to ``batch_size`` jobs.

    ``submit`` returns a ``concurrent.futures.Future`` (awaitable from any event loop through
    ``asyncio.wrap_future``).  A batch that raises is retried one job at a time, so one bad
    sample (or a batch too large for the GPU's memory) costs only itself.  A job whose future
    was cancelled before its batch formed is dropped.
    """

    def __init__(
        self,
        run_batch: Callable[[list[Any]], list[Any]],
        batch_size: int,
        name: str = "streamspatial-generate",
    ):
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        self.stats = BatchStats()
        self._run_batch = run_batch
        self._queue: deque[Job] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    @property
    def pending(self) -> int:
        """Jobs waiting for the model (prepared, not yet in a batch)."""
        with self._ready:
            return len(self._queue)

    def submit(self, payload: Any, key: Hashable = None, *, alone: bool = False) -> Future[Any]:
        job = Job(payload, key, alone)
        with self._ready:
            if self._closed:
                raise RuntimeError("the batcher is closed")
            self._queue.append(job)
            self._ready.notify()
        return job.future

    def close(self) -> None:
        """Stop after the batch in progress; jobs still queued are cancelled."""
        with self._ready:
            self._closed = True
            self._ready.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _take(self) -> list[Job]:
        """The oldest job and, after it in arrival order, those that may join it."""
        first = self._queue.popleft()
        batch = [first]
        if first.alone:
            return batch
        kept: deque[Job] = deque()
        while self._queue and len(batch) < self.batch_size:
            job = self._queue.popleft()
            (batch if job.key == first.key and not job.alone else kept).append(job)
        kept.extend(self._queue)
        self._queue = kept
        return batch

    def _loop(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._ready.wait()
                if self._closed:
                    for job in self._queue:
                        job.future.cancel()
                    self._queue.clear()
                    return
                batch = [j for j in self._take() if j.future.set_running_or_notify_cancel()]
            if batch:
                self._answer(batch)

    def _answer(self, batch: list[Job]) -> None:
        try:
            results = self._timed([j.payload for j in batch])
        except Exception as exc:
            if len(batch) == 1:
                batch[0].future.set_exception(exc)
                return
            for job in batch:  # one at a time: only the job that fails gets the error
                try:
                    job.future.set_result(self._timed([job.payload])[0])
                except Exception as one:
                    job.future.set_exception(one)
            return
        for job, result in zip(batch, results, strict=True):
            job.future.set_result(result)

    def _timed(self, payloads: list[Any]) -> list[Any]:
        t0 = time.perf_counter()
        try:
            return self._run_batch(payloads)
        finally:
            s = self.stats
            s.generate_s += time.perf_counter() - t0
            s.batches += 1
            s.requests += len(payloads)
            s.largest = max(s.largest, len(payloads))


__all__ = ["BatchStats", "MicroBatcher", "collate", "completion_length"]
