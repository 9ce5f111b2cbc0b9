"""The generation pipeline: houses → walks → events → render → questions → pruning → export.

Each step is a subpackage with one way in and one way out: :mod:`.house` (a seed → a
:class:`~.types.House`), :mod:`.walk` (a house → a :class:`~.types.Trajectory`), :mod:`.events`
(a walk → the edited walk and a :class:`~.schedule.Schedule`), :mod:`.render` (→ a video and
its ground truth), :mod:`.qa` (ground truth → items → benchmark files); bias pruning is
:mod:`streamspatial.qc.prune`. Random streams are numbered in :mod:`.streams`. Walks are
planned, rendered and asked as units of work (:mod:`.pipeline.jobs`) that an executor runs
here, in worker processes (:mod:`.pipeline.executors`) or on Ray actors
(:mod:`.pipeline.ray_actors`), the same files either way; each stage's time goes into the
manifest (:mod:`.pipeline.stages`).

``--split`` picks disjoint ranges of house seeds, so the same generator produces evaluation
benchmarks and training data at scale (S3-Train, S3-Bench §3) without a house ever appearing in
both.  Everything is a function of ``(split, seed)``: the house seeds, the trajectories, the
questions and the letter order, so a run can be reproduced from its manifest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from streamspatial.core.benchmark_folder import GENERATION, MANIFEST, claimed, fingerprint
from streamspatial.core.runtime import Executor, pick_executor
from streamspatial.core.schema import Item
from streamspatial.scene.schedule import Schedule
from streamspatial.scene.types import load_episode_meta
from streamspatial.sim.pipeline.config import GenerateConfig, house_seeds
from streamspatial.sim.pipeline.executors import Generation, StageProgress, plan_all, run_here
from streamspatial.sim.pipeline.jobs import (
    Asked,
    Job,
    WalkPlan,
    Work,
    episode_name,
    groups_of,
    rendered,
    walk_frames,
)
from streamspatial.sim.pipeline.stages import StageTimes

from .qa.export import FILES, Exported, episode_dir, export_items

# How a benchmark was computed, not what: left out of its configuration (the manifest keeps
# the rest, and a folder is continued only by the same configuration).
HOW = ("workers", "resume", "force", "executor", "address")
# What a generation and the steps after it write at a generated folder's top level (export
# writes the FILES; --split train: train.jsonl and the exploration views; export-sft's
# default); --force replaces only a folder holding nothing else.
WRITTEN = (MANIFEST, f"{MANIFEST}.tmp", "items.jsonl", *FILES.values(), "videos", "train.jsonl",
           "explore", "sft", ".train-partial-*", ".sft.partial-*")  # fmt: skip

# (stage of .stages.STAGES, done, total in the stage's own units; total -1: not known yet)
Progress = Callable[[str, int, int], None]
Notice = Callable[[str], None]  # one line for the user, before rendering


@dataclass
class GenerateResult(Exported):
    episodes: list[str] = field(default_factory=list)
    pruning: dict | None = None  # qc.prune.PruneResult.summary() when pruned
    shortfall: dict[str, list[int]] = field(default_factory=dict)  # family: [made, asked]
    stages: dict = field(default_factory=dict)  # the manifest's stage times (.pipeline.stages)
    forecast: list = field(default_factory=list)  # .pipeline.forecast.Shortfall, before rendering


def generate_benchmark(
    cfg: GenerateConfig, progress: Progress | None = None, notice: Notice | None = None
) -> GenerateResult:
    """Render ``cfg.houses`` walk-throughs (plus the spin probe) and write the benchmark.

    Every walk is planned first (house → walk → events, :func:`~.pipeline.executors.plan_all`)
    and the plans read for the families they will leave short (:mod:`.pipeline.forecast`, one
    ``notice`` line each, before anything is rendered); then each walk is rendered
    (:func:`~.pipeline.jobs.render_walk`) and its group of walks asked
    (:func:`~.pipeline.jobs.ask_group`) by the executor (:mod:`.pipeline.executors`: this
    process or worker processes; :mod:`.pipeline.ray_actors`: Ray actors); then, in this
    process, bias pruning and export. ``progress(stage, done, total)`` reports each stage of
    :data:`.pipeline.stages.STAGES` (walks planned, frames rendered, walks asked, families
    filled, pruning rounds, files).
    """
    # Import the renderer before anything is written: without the [sim] extra this fails
    # here, with one line naming it, and leaves no half-made output folder behind.
    import streamspatial.sim.render.episode  # noqa: F401

    started = time.perf_counter()
    cfg.check()
    executor = generation_executor(cfg)
    executor.check()  # Ray missing, or a cluster out of reach: before any file
    # A folder holds one benchmark: another one's (or unknown files) are refused, untouched,
    # before anything is planned; --force sets it aside until this one is complete.
    configuration = _configuration(cfg)
    with claimed(Path(cfg.out), configuration, force=cfg.force, written=WRITTEN) as out:
        return _generate(cfg, out, progress, notice, started, executor)


def generation_executor(cfg: GenerateConfig) -> Executor[Generation, list[Asked]]:
    """The executor ``cfg.executor`` names (:mod:`streamspatial.core.runtime`, which
    evaluation's executors share), running a generation's units of work."""

    def on_ray(generation: Generation) -> list[Asked]:
        from streamspatial.sim.pipeline.ray_actors import run_generation

        return run_generation(generation)

    return pick_executor(cfg.executor, local=run_here, ray=on_ray, address=cfg.address)


def _generate(
    cfg: GenerateConfig,
    out: Path,
    progress: Progress | None,
    notice: Notice | None,
    started: float,
    executor: Executor[Generation, list[Asked]],
) -> GenerateResult:
    from streamspatial.sim.walk.spin import spin_frames

    frames_dir = episode_dir(out)
    frames_dir.mkdir(parents=True, exist_ok=True)
    seeds = house_seeds(cfg.split, cfg.seed, cfg.houses)
    # the configuration first: an interrupted run's folder is continued by the same options
    (out / MANIFEST).write_text(json.dumps(_manifest(cfg, seeds, [], None, {}), indent=2,
                                           sort_keys=True) + "\n")  # fmt: skip
    jobs: list[Job] = [("walk", hs) for hs in seeds]
    if cfg.identity_turns:
        jobs.append(("spin", seeds[0]))
    per_walk = walk_frames(cfg)
    per_spin = spin_frames(cfg.identity_turns, cfg.fps) if cfg.identity_turns else 0

    def frames_of(job: Job) -> int:
        return per_walk if job[0] == "walk" else per_spin

    # 1-5. houses → walks → events → videos with their ground truth → questions
    kept = rendered(cfg, jobs, frames_dir, per_walk, per_spin) if cfg.resume else set()
    todo = [job for job in jobs if job not in kept]
    groups = groups_of(jobs)
    times = StageTimes()
    steps = StageProgress(progress, len(todo), sum(map(frames_of, todo)), len(jobs))
    plans = plan_all(cfg, todo, sum(map(frames_of, todo)), steps, times)
    walks = _walks(jobs, plans, frames_dir)
    planned = {job: len(plan.trajectory.poses) for job, plan in plans.items()}
    steps.frames = sum(planned.values())
    stretched = {episode_name(*j): n / per_walk for j, (n, _) in walks.items() if n > per_walk}
    ahead = _forecast(cfg, [schedule for _, schedule in walks.values()])
    lines = [_stretch_line(stretched, len(seeds), cfg)] if stretched else []
    for line in lines + [f"will fall short: {f.line()}" for f in ahead]:
        if notice is not None:
            notice(line)
    work = Work(cfg, todo, groups, frames_dir, lambda job: planned.get(job, frames_of(job)), plans)
    asked = executor.run(Generation(work, steps, times))
    items = [it for group in asked for it in group.items]
    episodes = [name for group in asked for name in group.episodes]
    # 6. Iterative Bias Pruning against the reserve
    items, pruning = debias(items, cfg, walks=len(seeds), progress=progress, times=times)
    # 7. the benchmark files
    with times.stage("export"):
        short = shortfall(items, cfg, len(seeds))
        manifest = _manifest(cfg, seeds, episodes, pruning, short)
        if stretched:
            manifest["stretched"] = {k: round(v, 3) for k, v in sorted(stretched.items())}
        if ahead:
            manifest["forecast"] = {f.family: [f.most, f.need, f.why] for f in ahead}
        files = export_items(items, out, manifest=manifest)
    stages = times.manifest(time.perf_counter() - started)
    add_stage_times(files["manifest"], stages)
    if progress is not None:
        progress("export", len(files), len(files))
    return GenerateResult(out, files, items, episodes, pruning, short, stages, ahead)


def _stretch_line(stretched: dict[str, float], walks: int, cfg: GenerateConfig) -> str:
    """The notice that some walks were planned longer than asked, and why."""
    from streamspatial.sim.pipeline.stretch import GLANCES_WANTED, ROOMS_WANTED

    lengths = " or ".join(
        f"{x:g}" for x in sorted({round(m * cfg.minutes, 2) for m in stretched.values()})
    )
    return (
        f"lengthened {len(stretched)} of {walks} walks to {lengths} minutes: at "
        f"{round(cfg.minutes, 2):g} they entered fewer than {ROOMS_WANTED} rooms (OVO-S Optimal "
        f"Path, Rerouting and Topological Structure ask about them) or planned fewer than "
        f"{GLANCES_WANTED} glance-backs (UCS Quantity Change Tracking, OVO-S Change Detection); "
        "--no-stretch keeps them"
    )


def _walks(
    jobs: list[Job], plans: dict[Job, WalkPlan], frames_dir: Path
) -> dict[Job, tuple[int, Schedule | None]]:
    """Every walk's frames and event schedule: as planned by this run, or as rendered by an
    earlier one (``--resume``), so the walks it lengthened are named too."""
    out: dict[Job, tuple[int, Schedule | None]] = {}
    for job in jobs:
        if job[0] != "walk":
            continue
        if job in plans:
            out[job] = (len(plans[job].trajectory.poses), plans[job].schedule)
        else:
            meta = load_episode_meta(frames_dir / f"{episode_name(*job)}.mp4")
            out[job] = (len(meta.frames), meta.schedule)
    return out


def _forecast(cfg: GenerateConfig, schedules: list[Schedule | None]):
    """The families the walks' planned events (one schedule a walk, None without events)
    will leave short."""
    from streamspatial.sim.pipeline.forecast import NEED, forecast
    from streamspatial.sim.qa import FAMILIES

    if not (cfg.events and cfg.furniture == "catalog"):
        return []  # no events: the dynamic families are not asked
    # what was asked, up to what the stress test needs to judge a task
    return forecast(schedules, FAMILIES, need=min(NEED, cfg.per_family * len(schedules)))


def add_stage_times(manifest: Path, stages: dict) -> None:
    """Write the stage times into the manifest (the last thing a generation writes: the
    export's own time is known only once the files are out)."""
    info = json.loads(manifest.read_text())
    info["stages"] = stages
    tmp = manifest.with_name(manifest.name + ".tmp")
    tmp.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    tmp.replace(manifest)


def _manifest(
    cfg: GenerateConfig,
    seeds: list[int],
    episodes: list[str],
    pruning: dict | None,
    short: dict[str, list[int]],
) -> dict:
    """What was computed, from what: the configuration (less how it was run), the house seeds,
    the episodes, the pruning summary and any family left short."""
    from streamspatial.sim.render.encoder import encoder_identity

    configuration = _configuration(cfg)
    manifest = {"out": str(cfg.out), **configuration, GENERATION: fingerprint(configuration)}
    manifest.update(house_seeds=seeds, episodes=episodes, encoder=encoder_identity())
    if pruning is not None:
        manifest["pruning"] = pruning
    if short:
        manifest["shortfall"] = short
    return manifest


def _configuration(cfg: GenerateConfig) -> dict:
    """Every option that changes what is made (not how: :data:`HOW`), as the manifest holds it."""
    return {k: v for k, v in asdict(cfg).items() if k not in HOW and k != "out"}


def shortfall(items: list[Item], cfg: GenerateConfig, walks: int) -> dict[str, list[int]]:
    """Families that made fewer questions than asked (``per_family`` a walk), ``[made,
    asked]``.  A family about rare events (a carry, a top changed twice) or views finds fewer
    query points than asked in short walks; saying so beats a benchmark silently smaller."""
    from collections import Counter

    from streamspatial.sim.qa import FAMILIES

    asked = cfg.per_family * walks
    made = Counter(str(it.meta.get("family")) for it in items)
    dynamic = cfg.events and cfg.furniture == "catalog"  # events come with textured houses
    return {
        key: [made[key], asked]
        for key, fam in sorted(FAMILIES.items())
        if made[key] < asked and (dynamic or not fam.dynamic)
    }


def debias(
    items: list[Item],
    cfg: GenerateConfig,
    *,
    walks: int = 0,
    progress: Progress | None = None,
    times: StageTimes | None = None,
) -> tuple[list[Item], dict | None]:
    """The requested items, Iterative-Bias-Pruned against the reserve when ``cfg.prune``.

    Every task with enough items to judge (``ProbeConfig.min_items``) is held to the strict
    rule of the blind stress test: blind accuracy at most chance + 5 points, and for numbers a
    training-median MRA of at most 0.40.  Each pruned question is replaced by a reserve
    question of the same family (from the same walk while it has any), so the benchmark keeps
    its size while the reserve lasts; the identity-persistence probe (its answer is 1 by
    design) is exempt.  First, a family that some of the ``walks`` left short of
    ``per_family`` a walk is filled up to ``per_family × walks`` from the reserve of walks
    that showed more of its events (``filled`` in the summary, per family).
    """
    primary = [it for it in items if not it.meta.get("reserve")]
    spare = [it for it in items if it.meta.get("reserve")]
    if not cfg.prune:
        return [_clean(it) for it in primary], None
    from streamspatial.qc.prune import fill_from_reserve, iterative_bias_pruning
    from streamspatial.sim.qa import IDENTITY_KEY

    def slot(it: Item) -> tuple[str, str]:
        return (str(it.meta.get("family")), it.video)

    times = times if times is not None else StageTimes()
    with times.stage("fill"):
        primary, spare, filled = fill_from_reserve(
            primary,
            spare,
            lambda family: 0 if family == IDENTITY_KEY else cfg.per_family * walks,
            slot=slot,
            seed=cfg.seed,
        )
    if progress is not None:
        progress("fill", len(filled), len(filled))

    def on_round(n: int, failing: list[str]) -> None:
        if progress is not None:
            progress("prune", n, -1)  # rounds: not known in advance

    with times.stage("prune"):
        result = iterative_bias_pruning(
            primary,
            spare,
            slot=slot,
            exempt=[it.id for it in items if it.meta.get("family") == IDENTITY_KEY],
            seed=cfg.seed,
            on_round=on_round,
        )
    if progress is not None:
        progress("prune", result.rounds, result.rounds)
    return [_clean(it) for it in result.kept], {**result.summary(), "filled": filled}


def _clean(item: Item) -> Item:
    """The item as exported: the generator's bookkeeping (reserve mark) removed."""
    if "reserve" not in item.meta:
        return item
    meta = {k: v for k, v in item.meta.items() if k != "reserve"}
    return item.model_copy(update={"meta": meta})
