"""Running a generation's units of work (:mod:`.jobs`) here or in worker processes.

:func:`run_local` renders the walks not already rendered and asks every group once its walks
are there: in this process (one worker: the small benchmarks of tests and the demo), or in a
pool of worker processes, rendering walks side by side and asking each group as soon as its
last walk is in.  :mod:`.ray_actors` does the same on Ray actors.  Every unit is a function
of its arguments, so the files are the same whichever way they run.

How many processes (:func:`process_plan`): without a GPU, as before, one worker per core from
``PARALLEL_FROM_FRAMES`` frames of video (software GL already spreads a frame over the cores,
so smaller jobs render in this process); where EGL finds a GPU (:mod:`..render.gpu`), one
rendering process per core, however few the walks: a walk's frames are then spread over
several render processes (:class:`~streamspatial.sim.render.process.RenderProcesses`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamspatial.sim.pipeline.jobs import (
    Asked,
    Group,
    Job,
    Planned,
    Rendered,
    WalkPlan,
    Work,
    ask_group,
    episode_name,
    plan_walk,
    render_walk,
)
from streamspatial.sim.pipeline.stages import StageTimes

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.sim.pipeline.config import GenerateConfig


@dataclass(frozen=True)
class Generation:
    """One generation's units of work as an executor (:mod:`streamspatial.core.runtime`)
    takes them: what to render and ask, and where each unit reports its progress and time."""

    work: Work
    progress: StageProgress
    times: StageTimes


PARALLEL_FROM_FRAMES = 3000  # --workers 0 renders in several processes from this many frames
Report = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class StageProgress:
    """What each stage has done, reported as ``report(stage, done, total)``: walks planned,
    frames rendered, walks asked."""

    report: Report | None
    walks: int  # walks to plan and render in this run
    frames: int  # frames to render in this run
    asks: int  # walks to ask
    planned: set[str] = field(default_factory=set)
    rendered: dict[str, int] = field(default_factory=dict)
    asked: int = 0

    def start(self) -> None:
        self._emit("plan", len(self.planned), self.walks)
        self._emit("render", sum(self.rendered.values()), self.frames)
        self._emit("ask", self.asked, self.asks)

    def frame(self, name: str, done: int) -> None:
        """``done`` frames of walk ``name`` rendered (0: its planning is over)."""
        if name not in self.planned:
            self.planned.add(name)
            self._emit("plan", len(self.planned), self.walks)
        self.rendered[name] = done
        self._emit("render", sum(self.rendered.values()), self.frames)

    def ask(self) -> None:
        self.asked += 1
        self._emit("ask", self.asked, self.asks)

    def _emit(self, stage: str, done: int, total: int) -> None:
        if self.report is not None and total:
            self.report(stage, done, total)


def process_plan(cfg: GenerateConfig, walks: int, frames: int) -> tuple[int, int]:
    """(worker processes, render processes per walk) for ``walks`` walks of ``frames`` frames
    in all on this machine."""
    from streamspatial.sim.render.gpu import gpu_devices

    cores = os.cpu_count() or 1
    if walks == 0:  # every walk kept by --resume: only groups to ask
        return max(1, cfg.workers), 1
    if gpu_devices():
        workers = max(1, min(cfg.workers or cores, walks))
        return workers, max(1, cores // workers)
    auto = cores if frames >= PARALLEL_FROM_FRAMES else 1
    return max(1, min(cfg.workers or auto, walks)), 1


def plan_all(
    cfg: GenerateConfig, todo: list[Job], frames: int, progress: StageProgress, times: StageTimes
) -> dict[Job, WalkPlan]:
    """Plan every walk of ``todo`` (in worker processes when rendering would use them), here,
    before anything is rendered, whichever executor renders: the forecast reads the plans
    first, and the renderers take them as they are."""
    workers, _ = process_plan(cfg, len(todo), frames)
    workers = min(workers, len(todo))
    progress.start()
    plans: dict[Job, WalkPlan] = {}

    def keep(job: Job, planned: Planned) -> None:
        plans[job] = planned.plan
        times.merge(planned.times)
        progress.frame(episode_name(*job), 0)

    if workers <= 1:
        for job in todo:
            keep(job, plan_walk(cfg, job))
        return plans
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("spawn")  # no GL state or threads inherited from this process
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        for job, planned in zip(todo, pool.map(plan_walk, [cfg] * len(todo), todo), strict=True):
            keep(job, planned)
    return plans


def run_here(generation: Generation) -> list[Asked]:
    """A generation on this machine (the local executor's work)."""
    return run_local(generation.work, generation.progress, generation.times)


def run_local(work: Work, progress: StageProgress, times: StageTimes) -> list[Asked]:
    """Render ``work.todo``, then ask every group; returns what each group asked, in group
    order, and adds the time every unit took to ``times``."""
    cfg = work.cfg
    workers, processes = process_plan(cfg, len(work.todo), sum(map(work.frames_of, work.todo)))
    workers = min(workers, max(len(work.todo), len(work.groups)))
    progress.start()
    if workers > 1:
        return _pool(work, progress, times, workers, processes)
    for job in work.todo:
        name = episode_name(*job)
        done = render_walk(
            cfg,
            job,
            work.frames_dir,
            lambda i, n, name=name: progress.frame(name, i),
            processes,
            work.plans.pop(job, None),
        )
        times.merge(done.times)
    out = []
    for group in work.groups:
        asked = ask_group(cfg, group, work.frames_dir, tick=progress.ask)
        times.merge(asked.times)
        out.append(asked)
    return out


def _pool(
    work: Work, progress: StageProgress, times: StageTimes, workers: int, processes: int
) -> list[Asked]:
    import multiprocessing as mp
    import queue as queue_mod
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    cfg, groups, frames_dir = work.cfg, work.groups, work.frames_dir
    missing = {group.index: set(group.jobs) & set(work.todo) for group in groups}
    out: dict[int, Asked] = {}
    ctx = mp.get_context("spawn")  # no GL state or threads inherited from this process
    with ctx.Manager() as manager, ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        ticks = manager.Queue()
        running: dict[Future, tuple[str, Any]] = {}

        def ask(group: Group) -> None:
            running[pool.submit(_ask_in_worker, cfg, group, frames_dir, ticks)] = ("ask", group)

        for job in work.todo:
            plan = work.plans.pop(job, None)
            fut = pool.submit(_render_in_worker, cfg, job, frames_dir, ticks, processes, plan)
            running[fut] = ("render", job)
        for group in groups:
            if not missing[group.index]:
                ask(group)
        while running:
            done, _ = wait(list(running), timeout=0.25, return_when=FIRST_COMPLETED)
            _drain(ticks, progress, queue_mod.Empty)
            for fut in done:
                what, unit = running.pop(fut)
                if what == "render":
                    times.merge(fut.result().times)
                    for group in groups:
                        if unit in missing[group.index]:
                            missing[group.index].discard(unit)
                            if not missing[group.index]:
                                ask(group)
                else:
                    asked = fut.result()
                    times.merge(asked.times)
                    out[unit.index] = asked
        _drain(ticks, progress, queue_mod.Empty)
    return [out[group.index] for group in groups]


def _drain(ticks: Any, progress: StageProgress, empty: type[Exception]) -> None:
    while True:
        try:
            what, *args = ticks.get_nowait()
        except empty:
            return
        if what == "frame":
            progress.frame(*args)
        else:
            progress.ask()


def _render_in_worker(
    cfg: GenerateConfig,
    job: Job,
    frames_dir: Path,
    ticks: Any,
    processes: int,
    plan: WalkPlan | None,
) -> Rendered:
    name = episode_name(*job)

    def tick(i: int, n: int) -> None:
        if i % 10 == 0 or i == n:
            ticks.put(("frame", name, i))

    return render_walk(cfg, job, frames_dir, tick, processes, plan)


def _ask_in_worker(cfg: GenerateConfig, group: Group, frames_dir: Path, ticks: Any) -> Asked:
    return ask_group(cfg, group, frames_dir, tick=lambda: ticks.put(("ask",)))
