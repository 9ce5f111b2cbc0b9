"""The units of work a generation is made of, each a pure function of its arguments.

* :func:`plan_walk` — one house's walk (or spin probe): the house, the walk and its events
  (a :class:`WalkPlan`, in a :class:`Planned` with the time it took).
* :func:`render_walk` — a planned walk rendered into a folder, video and ground truth
  (:class:`Rendered`: the episode's name and time).
* :func:`ask_group` — the questions of a :class:`Group` of walks, from their ground truth
  (:class:`Asked`: the items, the episodes and the time).

Executors (:mod:`.executors`: this process, a process pool, Ray actors) run these units
wherever they like and in any order the dependencies allow (a group is asked once its walks
are rendered); the files are the same whichever runs them, because each unit depends on its
arguments alone.

Why groups: questions are balanced (:mod:`..qa.balance`) and their letters dealt over every
walk asked together, so asking is sequential within a group; groups are independent, so they
are asked side by side.  A group holds at most ``GROUP_WALKS`` walks, consecutive in job
order, the walks split evenly between ``ceil(walks / GROUP_WALKS)`` groups (a spin probe goes
with its house's walk): a benchmark of up to sixteen walks is one group, exactly as when every
walk was asked together, and a 2,000-walk training set is 125 groups of 16, each balanced on
its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from streamspatial.core.errors import InputError
from streamspatial.scene.schedule import Schedule
from streamspatial.scene.types import House, Trajectory, load_episode_meta, meta_path_for
from streamspatial.sim.pipeline.stages import StageTimes
from streamspatial.sim.pipeline.stretch import STRETCH, stretched
from streamspatial.sim.qa.export import video_ref

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.core.schema import Item
    from streamspatial.sim.pipeline.config import GenerateConfig

Job = tuple[str, int]  # ("walk" | "spin", house seed)
Tick = Callable[[int, int], None]  # (frames done, frames in the walk)

# Walks whose questions are balanced together (see the module docstring).  Sixteen walks give
# each family 48 questions a group at the default --per-family 3 (a class may lead the rarest
# by one per group), and keep a group's asking to minutes.
GROUP_WALKS = 16


@dataclass(frozen=True)
class WalkPlan:
    """Steps 1–3 for one job: what :func:`render_walk` renders and the forecast reads."""

    house: House
    trajectory: Trajectory  # as the events edited it
    schedule: Schedule | None  # None: no events (a box house, --no-events, the spin probe)


@dataclass(frozen=True)
class Planned:
    """:func:`plan_walk`'s result: the plan and the time the planning took."""

    plan: WalkPlan
    times: StageTimes


@dataclass(frozen=True)
class Rendered:
    """:func:`render_walk`'s result: the episode written (its file stem) and the time taken."""

    name: str
    times: StageTimes


@dataclass(frozen=True)
class Asked:
    """:func:`ask_group`'s result: the group's items in job order, its episodes, the time."""

    items: list[Item]
    episodes: list[str]
    times: StageTimes


@dataclass(frozen=True)
class Group:
    """Jobs asked together, in job order; ``index`` seeds their letters and item order."""

    index: int
    jobs: tuple[Job, ...]


@dataclass(frozen=True)
class Work:
    """What a run has left to do, for an executor: the walks to render (``todo``, those
    ``--resume`` did not keep) with their plans, every group to ask, where the walks' files
    go, and how many frames each job has."""

    cfg: GenerateConfig
    todo: list[Job]
    groups: list[Group]
    frames_dir: Path
    frames_of: Callable[[Job], int]
    plans: dict[Job, WalkPlan] = field(default_factory=dict)  # planned before rendering


def groups_of(jobs: list[Job]) -> list[Group]:
    """The walks cut into ``ceil(walks / GROUP_WALKS)`` consecutive groups of even size; a
    spin probe joins, last, the group of its house's walk."""
    walks = [job for job in jobs if job[0] == "walk"]
    n = max(1, math.ceil(len(walks) / GROUP_WALKS))
    bounds = [len(walks) * i // n for i in range(n + 1)]
    members = [walks[bounds[i] : bounds[i + 1]] for i in range(n)]
    for job in jobs:
        if job[0] != "walk":
            home = next((g for g in members if ("walk", job[1]) in g), members[0])
            home.append(job)
    return [Group(i, tuple(m)) for i, m in enumerate(members)]


def episode_name(kind: str, hs: int) -> str:
    """The file stem of a house's walk (``kind`` "walk") or spin probe ("spin")."""
    return f"house-{hs:07d}-{kind}"


def walk_frames(cfg: GenerateConfig, multiple: float = 1) -> int:
    """Frames of a walk ``multiple`` times the length asked for (``.stretch``)."""
    return max(1, round(cfg.minutes * 60 * multiple * cfg.fps))


def plan_walk(cfg: GenerateConfig, job: Job) -> Planned:
    """Build one house and plan its walk with its events (or its spin probe): what
    :func:`render_walk` renders, and what the forecast (:mod:`.forecast`) reads before any
    walk is rendered; with the time the planning took."""
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.walk.nav import plan_trajectory

    kind, hs = job
    times = StageTimes()
    schedule = None
    with times.stage("plan"):
        house = generate_house(hs, n_rooms=cfg.rooms, furniture=cfg.furniture)
        if kind == "walk":
            from streamspatial.sim.events.plan import EventPlan, plan_events

            def plan(multiple: float) -> EventPlan:
                traj = plan_trajectory(
                    house, duration=cfg.minutes * 60 * multiple, fps=cfg.fps, seed=cfg.seed
                )
                if not (cfg.events and house.style == "textured"):
                    return EventPlan(traj, None)

                aspect = cfg.size[0] / cfg.size[1]
                slot = cfg.walk_slot(hs)
                return plan_events(house, traj, cfg.seed, aspect=aspect, slot=slot)

            (traj, schedule), _ = stretched(house, plan, stretch=cfg.stretch)
        else:
            from streamspatial.sim.walk.spin import spin_trajectory

            traj = spin_trajectory(house, turns=cfg.identity_turns, fps=cfg.fps, seed=cfg.seed)
    return Planned(WalkPlan(house, traj, schedule), times)


def render_walk(
    cfg: GenerateConfig,
    job: Job,
    frames_dir: Path,
    tick: Tick | None = None,
    processes: int = 1,
    plan: WalkPlan | None = None,
) -> Rendered:
    """Render one walk (or spin probe) into ``frames_dir`` from its ``plan`` (planned here
    when None: a plan is a function of the job alone); returns the episode name and the time
    its planning (if done here) and rendering took."""
    from streamspatial.sim.render.episode import render_episode

    times = StageTimes()
    name = episode_name(*job)
    if plan is None:
        planned = plan_walk(cfg, job)
        plan = planned.plan
        times.merge(planned.times)
    if tick is not None:
        tick(0, len(plan.trajectory.poses))  # planned
    child: list[float] = []
    with times.stage("render", child):
        paths = render_episode(
            plan.house,
            plan.trajectory,
            frames_dir,
            cfg.size,
            name=name,
            progress=tick,
            schedule=plan.schedule,
            processes=processes,
        )
        child.append(paths.render_cpu)
    return Rendered(name, times)


def ask_group(
    cfg: GenerateConfig, group: Group, frames_dir: Path, tick: Callable[[], None] | None = None
) -> Asked:
    """Every question of the group's walks (the reserve included when pruning), in job order,
    from the ground truth in ``frames_dir``; with the episode names and the time it took.
    ``tick()`` is called after each walk."""
    from streamspatial.sim.qa import QuestionGenerator

    times = StageTimes()
    with times.stage("ask"):
        reserve = math.ceil(cfg.per_family * cfg.reserve) if cfg.prune else 0
        questions = QuestionGenerator(
            cfg.seed, per_family=cfg.per_family, reserve=reserve, group=group.index
        )
        names = {job: episode_name(*job) for job in group.jobs}
        metas = {job: load_episode_meta(frames_dir / f"{names[job]}.mp4") for job in group.jobs}
        walks = [job for job in group.jobs if job[0] == "walk"]
        asked = questions.group_items(
            [(metas[job], video_ref(names[job]), names[job]) for job in walks], tick
        )
        by_job = dict(zip(walks, asked, strict=True))
        items: list[Item] = []
        for job in group.jobs:
            name = names[job]
            if job in by_job:
                items += by_job[job]
                continue
            items += questions.identity_items(metas[job], video=video_ref(name), episode_id=name)
            if tick is not None:
                tick()
        episodes = [names[job] for job in group.jobs]
    return Asked(items, episodes, times)


def rendered(
    cfg: GenerateConfig, jobs: list[Job], frames_dir: Path, per_walk: int, spin_frames: int
) -> set[Job]:
    """The jobs whose video and metadata an earlier run left in ``frames_dir`` (the metadata
    is written last, so it marks a finished video), checked against this run's settings."""
    out = set()
    for kind, hs in jobs:
        video = frames_dir / f"{episode_name(kind, hs)}.mp4"
        if not (video.is_file() and meta_path_for(video).is_file()):
            continue
        meta = load_episode_meta(video)
        lengths = [walk_frames(cfg, m) for m in (STRETCH if cfg.stretch else STRETCH[:1])]
        want = (hs, lengths if kind == "walk" else [spin_frames], cfg.fps, cfg.size)
        size = (meta.intrinsics.width, meta.intrinsics.height)
        got = (meta.house.seed, len(meta.frames), meta.fps, size)
        if got[0] != want[0] or got[1] not in want[1] or got[2:] != want[2:]:
            raise InputError(
                f"--resume: {video} was rendered with other settings (house seed, frames, fps, "
                f"size {got}; this run wants {want}); use a new --out or leave --resume out"
            )
        out.add((kind, hs))
    return out
