"""``sim generate --executor ray``: walks rendered and asked on Ray actors, the rest here.

Why this shape:

* **The units are the local ones.**  An actor runs :func:`~.jobs.render_walk` and
  :func:`~.jobs.ask_group`, the very functions a local run calls, so a seed gives the same
  files whichever executor runs it (on the same kind of hardware: a frame drawn by a GPU is
  not the one llvmpipe draws).  Walks are planned on the driver first, as locally
  (:func:`~.executors.plan_all`: a twentieth of a walk's CPU), so that the families the plans
  leave short are named before any rendering; each plan travels with its walk.  Pruning,
  filling and export need every item at once and run here, on the driver, as locally.
* **Nothing needs a shared filesystem.**  An actor renders into its own scratch folder and
  returns the walk's video and metadata as bytes (through Ray's object store); the driver
  writes them into ``--out``, the metadata last, since it marks a finished walk.  To ask a
  group, the driver sends its walks' metadata, all that asking reads.
* **``--resume`` works across the cluster** because the driver is the only writer: walks an
  interrupted run already wrote are found in ``--out`` and not sent again.
* **A dead actor costs its unit only.**  When an actor dies (node lost, OOM, ``ray.kill``),
  its walk or group goes back on the queue for a fresh actor, up to ``MAX_ATTEMPTS`` times.
* **One actor per CPU of the cluster** (``--workers`` caps it), each rendering with one render
  process: on a GPU node that is one rendering process per core, the way a GPU is kept busy
  (:mod:`..render.gpu`); a node with several GPUs spreads its actors over them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import Counter, deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamspatial.core.cluster import join
from streamspatial.core.errors import StreamspatialError
from streamspatial.scene.types import meta_path_for
from streamspatial.sim.pipeline.executors import Generation, StageProgress
from streamspatial.sim.pipeline.jobs import (
    Asked,
    Group,
    Job,
    WalkPlan,
    Work,
    ask_group,
    episode_name,
    render_walk,
)
from streamspatial.sim.pipeline.stages import StageTimes

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.sim.pipeline.config import GenerateConfig

MAX_ATTEMPTS = 3  # actors a walk or group is handed to before the run stops


class GenerationWorker:
    """A Ray actor (made remote in :func:`run_on_ray`) rendering walks and asking groups."""

    def __init__(self, cfg: GenerateConfig):
        from streamspatial.sim.render.gpu import gpu_devices

        self.cfg = cfg
        self.scratch = Path(tempfile.mkdtemp(prefix="streamspatial-generate-"))
        devices = gpu_devices()
        if len(devices) > 1 and "MUJOCO_EGL_DEVICE_ID" not in os.environ:
            # render processes inherit it: this node's actors share its GPUs out
            os.environ["MUJOCO_EGL_DEVICE_ID"] = str(devices[os.getpid() % len(devices)])

    def render(self, job: Job, plan: WalkPlan | None = None) -> dict[str, Any]:
        """Render one walk from its plan (planned here when None); its files as bytes and the
        time it took."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        try:
            done = render_walk(self.cfg, job, folder, plan=plan)
            video = folder / f"{done.name}.mp4"
            return {
                "name": done.name,
                "video": video.read_bytes(),
                "meta": meta_path_for(video).read_bytes(),
                "times": done.times,
            }
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def ask(self, group: Group, metas: dict[str, bytes]) -> Asked:
        """Ask a group from its walks' metadata (``name`` → the ``.meta.json.gz`` bytes)."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        try:
            for name, data in metas.items():
                meta_path_for(folder / f"{name}.mp4").write_bytes(data)
            return ask_group(self.cfg, group, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def _write(frames_dir: Path, done: dict[str, Any]) -> None:
    """A walk an actor rendered, into ``--out``: the video, then its metadata."""
    video = frames_dir / f"{done['name']}.mp4"
    for path, data in ((video, done["video"]), (meta_path_for(video), done["meta"])):
        tmp = path.with_name(path.name + ".part")
        tmp.write_bytes(data)
        tmp.replace(path)


def run_generation(generation: Generation) -> list[Asked]:
    """A generation on Ray actors (the Ray executor's work)."""
    return run_on_ray(generation.work, generation.progress, generation.times)


def run_on_ray(work: Work, progress: StageProgress, times: StageTimes) -> list[Asked]:
    """Render ``work.todo`` and ask every group on Ray actors (``cfg.address``: the cluster,
    None for a local Ray instance); returns what each group asked, in group order, and adds
    the time every unit took to ``times``."""
    cfg = work.cfg
    started = join(cfg.address)
    import ray

    remote = ray.remote(num_cpus=1, max_restarts=0)(GenerationWorker)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    n_actors = max(1, min(cfg.workers or cpus, max(len(work.todo), len(work.groups))))
    actors: list[Any] = []
    try:
        actors = [remote.remote(cfg) for _ in range(n_actors)]
        return _schedule(ray, remote, actors, work, progress, times)
    finally:
        for actor in actors:
            with contextlib.suppress(Exception):  # a dead actor has nothing left to clean
                ray.get(actor.close.remote(), timeout=30)
            ray.kill(actor, no_restart=True)
        if started:
            ray.shutdown()


def _schedule(
    ray: Any,
    remote: Any,
    actors: list[Any],
    work: Work,
    progress: StageProgress,
    times: StageTimes,
) -> list[Asked]:
    """Hand units to idle actors (a group as soon as its walks are in, before more walks)
    until every walk is rendered and every group asked; ``actors`` is kept up to date."""
    groups, frames_dir = work.groups, work.frames_dir
    renders: deque[Job] = deque(work.todo)
    missing = {g.index: set(g.jobs) & set(work.todo) for g in groups}
    asks: deque[Group] = deque(g for g in groups if not missing[g.index])
    idle = list(actors)
    running: dict[Any, tuple[Any, str, Any]] = {}
    attempts: Counter[Any] = Counter()
    out: dict[int, Asked] = {}
    progress.start()
    while renders or asks or running:
        while idle and (asks or renders):
            actor = idle.pop()
            if asks:
                group = asks.popleft()
                metas = {
                    name: meta_path_for(frames_dir / f"{name}.mp4").read_bytes()
                    for name in (episode_name(*job) for job in group.jobs)
                }
                running[actor.ask.remote(group, metas)] = (actor, "ask", group)
            else:
                job = renders.popleft()
                running[actor.render.remote(job, work.plans.get(job))] = (actor, "render", job)
        (ref,), _ = ray.wait(list(running), num_returns=1)
        actor, kind, unit = running.pop(ref)
        try:
            value = ray.get(ref)
        except ray.exceptions.RayActorError as exc:
            attempts[unit] += 1
            if attempts[unit] >= MAX_ATTEMPTS:
                raise StreamspatialError(
                    f"{kind} of {unit}: {MAX_ATTEMPTS} Ray workers died on it "
                    f"({type(exc).__name__})"
                ) from None
            (renders if kind == "render" else asks).appendleft(unit)
            ray.kill(actor, no_restart=True)
            actors.remove(actor)
            actors.append(remote.remote(work.cfg))  # the caller closes whatever is listed
            idle.append(actors[-1])
            continue
        except ray.exceptions.RayTaskError as exc:  # our code failed: the local error
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            raise cause from None
        idle.append(actor)
        if kind == "render":
            work.plans.pop(unit, None)  # kept until now for a retry on a fresh actor
            _write(frames_dir, value)
            times.merge(value["times"])
            progress.frame(value["name"], work.frames_of(unit))
            for group in groups:
                if unit in missing[group.index]:
                    missing[group.index].discard(unit)
                    if not missing[group.index]:
                        asks.append(group)
        else:
            times.merge(value.times)
            out[unit.index] = value
            for _ in value.episodes:
                progress.ask()
    return [out[g.index] for g in groups]
