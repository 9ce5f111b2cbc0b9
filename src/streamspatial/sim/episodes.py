"""Steps 1-4 of the pipeline, episode by episode: plan (house → walk → events), then render.

``sim generate`` plans every episode first, reads the plans for the families they will leave
short (:mod:`.forecast`), and only then renders: the warning comes before the minutes of
rendering and asking, and the plans are rendered as they are.  Both steps run in worker
processes once the benchmark holds enough video to pay for starting them; each episode is a
pure function of its seed, so the files are the same whichever process made them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from streamspatial.core.errors import InputError
from streamspatial.sim.types import load_episode_meta, meta_path_for

if TYPE_CHECKING:  # pragma: no cover
    from .generate import GenerateConfig

PARALLEL_FROM_FRAMES = 3000  # --workers 0 renders in several processes from this many frames


def plan_episode(cfg: GenerateConfig, kind: str, hs: int):
    """One episode's plan: (house, walk or spin, event schedule or None)."""
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.walk.nav import plan_trajectory

    house = generate_house(hs, n_rooms=cfg.rooms, furniture=cfg.furniture)
    schedule = None
    if kind == "walk":
        traj = plan_trajectory(house, duration=cfg.minutes * 60, fps=cfg.fps, seed=cfg.seed)
        if cfg.events and house.style == "textured":
            from streamspatial.sim.events.plan import plan_events

            traj, schedule = plan_events(house, traj, cfg.seed, aspect=cfg.size[0] / cfg.size[1])
    else:
        from streamspatial.sim.walk.spin import spin_trajectory

        traj = spin_trajectory(house, turns=cfg.identity_turns, fps=cfg.fps, seed=cfg.seed)
    return house, traj, schedule


def render_one(cfg: GenerateConfig, name: str, plan, frames_dir: Path, tick) -> str:
    """Render one planned episode; returns its name."""
    from streamspatial.sim.render.episode import render_episode

    house, traj, schedule = plan
    render_episode(
        house, traj, frames_dir, cfg.size, name=name, progress=tick(name), schedule=schedule
    )
    return name


def _render_in_worker(args) -> str:
    cfg, name, plan, frames_dir, queue = args

    def tick(name: str):
        def cb(i: int, n: int) -> None:
            if i % 10 == 0 or i == n:
                queue.put((name, i))

        return cb

    return render_one(cfg, name, plan, frames_dir, tick)


def episode_name(kind: str, hs: int) -> str:
    """The file stem of a house's walk (``kind`` "walk") or spin probe ("spin")."""
    return f"house-{hs:07d}-{kind}"


def rendered(
    cfg: GenerateConfig, jobs, frames_dir: Path, per_walk: int, spin_frames: int
) -> set[tuple[str, int]]:
    """The jobs whose video and metadata an earlier run left in ``frames_dir`` (the metadata
    is written last, so it marks a finished video), checked against this run's settings."""
    out = set()
    for kind, hs in jobs:
        video = frames_dir / f"{episode_name(kind, hs)}.mp4"
        if not (video.is_file() and meta_path_for(video).is_file()):
            continue
        meta = load_episode_meta(video)
        want = (hs, per_walk if kind == "walk" else spin_frames, cfg.fps, cfg.size)
        size = (meta.intrinsics.width, meta.intrinsics.height)
        got = (meta.house.seed, len(meta.frames), meta.fps, size)
        if got != want:
            raise InputError(
                f"--resume: {video} was rendered with other settings (house seed, frames, fps, "
                f"size {got}; this run wants {want}); use a new --out or leave --resume out"
            )
        out.add((kind, hs))
    return out


def _workers(cfg: GenerateConfig, jobs: int) -> int:
    """Processes for ``jobs`` episodes: one per core once there is enough video to pay for
    starting them (a few seconds each); small benchmarks (tests, the demo) use this one."""
    import os

    frames_total = jobs * cfg.minutes * 60 * cfg.fps
    auto = (os.cpu_count() or 1) if frames_total >= PARALLEL_FROM_FRAMES else 1
    return max(1, min(cfg.workers or auto, jobs))


def in_workers(cfg: GenerateConfig, fn, args: list) -> list:
    """``fn(*a)`` for each of ``args``, in worker processes when :func:`_workers` says so."""
    if _workers(cfg, len(args)) == 1:
        return [fn(*a) for a in args]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("spawn")  # no GL state or threads inherited from this process
    with ProcessPoolExecutor(_workers(cfg, len(args)), mp_context=ctx) as pool:
        return list(pool.map(fn, *zip(*args, strict=True)))


def render_all(cfg: GenerateConfig, planned: list, frames_dir: Path, report) -> list[str]:
    """Render every planned episode (``((kind, house seed), plan)``), in worker processes when
    there are cores and episodes to share.  Each episode is a pure function of its seed, so
    the files are the same whichever process renders them; questions are asked afterwards, in
    job order, in this process."""
    named = [(episode_name(kind, hs), plan) for (kind, hs), plan in planned]
    workers = _workers(cfg, len(named))
    frames: dict[str, int] = {}
    if workers == 1:

        def tick(name: str):
            def cb(i: int, n: int) -> None:
                frames[name] = i
                report(f"rendering {name}", sum(frames.values()))

            return cb

        return [render_one(cfg, name, plan, frames_dir, tick) for name, plan in named]

    import multiprocessing as mp
    import queue as queue_mod
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("spawn")  # no GL state or threads inherited from this process
    with ctx.Manager() as manager, ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        q = manager.Queue()
        futures = [
            pool.submit(_render_in_worker, (cfg, name, plan, frames_dir, q)) for name, plan in named
        ]
        while not all(f.done() for f in futures):
            try:
                name, i = q.get(timeout=0.25)
            except queue_mod.Empty:
                continue
            frames[name] = i
            report(f"rendering ({workers} processes)", sum(frames.values()))
        return [f.result() for f in futures]
