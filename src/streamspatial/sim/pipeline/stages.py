"""Where a generation's time goes: wall-clock and CPU seconds per pipeline stage.

A benchmark's ``manifest.json`` records, under ``stages``, for each of

* ``plan`` — houses, walks and their events (:mod:`..house`, :mod:`..walk`, :mod:`..events`),
* ``render`` — frames, their ground truth and the video (:mod:`..render`; the render
  processes' own CPU included),
* ``ask`` — the questions (:mod:`..qa`),
* ``fill`` — families left short filled from other walks' spares (:mod:`streamspatial.qc.prune`),
* ``prune`` — Iterative Bias Pruning (:mod:`streamspatial.qc.prune`),
* ``export`` — the benchmark files,

``wall_s``, the wall-clock seconds spent in it *summed over the processes that ran it* (so
with several workers a stage's wall time can exceed the run's), and ``cpu_s``, the CPU seconds
of every process and thread that worked on it.  Stages that ran side by side in several
processes are comparable this way: ``ask.wall_s ≤ render.wall_s`` means asking costs no more
worker time than rendering, whatever the number of workers.  ``elapsed_s`` beside them is the
run's own wall-clock time, start to end.  Walks kept by ``--resume`` were planned and rendered
by an earlier run and count nothing here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

STAGES = ("plan", "render", "ask", "fill", "prune", "export")


@dataclass
class StageTimes:
    """Seconds per stage, added up from any number of processes."""

    wall: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def add(self, stage: str, wall: float, cpu: float) -> None:
        if stage not in self.wall:
            raise KeyError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
        self.wall[stage] += wall
        self.cpu[stage] += cpu

    def merge(self, other: StageTimes) -> None:
        for stage in STAGES:
            self.add(stage, other.wall[stage], other.cpu[stage])

    @contextmanager
    def stage(self, name: str, extra_cpu: list[float] | None = None) -> Iterator[None]:
        """Time the block as ``name`` in this process; CPU seconds appended to ``extra_cpu``
        inside the block (a child process's, which this process's clock does not see) are
        added to its CPU time."""
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            more = sum(extra_cpu) if extra_cpu else 0.0
            self.add(name, time.perf_counter() - t0, time.process_time() - c0 + more)

    def manifest(self, elapsed: float) -> dict:
        """The manifest's ``stages`` entry (seconds, to the millisecond)."""
        out: dict = {
            s: {"wall_s": round(self.wall[s], 3), "cpu_s": round(self.cpu[s], 3)} for s in STAGES
        }
        out["elapsed_s"] = round(elapsed, 3)
        return out
