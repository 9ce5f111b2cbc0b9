"""``scans build``: a benchmark from real scans, with the simulator's question generators.

Per scene (a scan folder of ScanNet, ARKitScenes or ScanNet++): read it (:mod:`.readers`),
compute its per-frame visibility and episode record (:mod:`.episode`), write its video
(:mod:`.video`) and, last, the same ground-truth record the simulator writes beside a video
(``<video>.meta.json.gz``: ``run --perception ground-truth`` reads it, and ``--resume`` takes
a scene whose record exists as done).  Then the scan families (:mod:`.families`) are asked
over all scenes together (:class:`~streamspatial.sim.qa.QuestionGenerator`, letters and
answers balanced across them), Iterative-Bias-Pruned against their reserve
(:func:`streamspatial.sim.generate.debias`) and written as ``sim generate`` writes them
(:func:`streamspatial.sim.qa.export.export_items`: each benchmark's file, ``items.jsonl``,
``manifest.json``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from streamspatial.core.errors import InputError
from streamspatial.core.schema import Item
from streamspatial.scene.types import load_episode_meta, meta_path_for, save_episode_meta
from streamspatial.sim.pipeline.config import video_problems
from streamspatial.sim.qa.export import Exported, export_items, videos_dir

from .episode import VIDEO_FPS, VIDEO_SIZE, scan_episode
from .families import not_on_scans, scan_families
from .readers import READERS, read_scan, scene_dirs
from .video import write_video

GROUP_SCENES = 16  # scenes asked together, as the simulator groups walks (sim.pipeline.jobs)
Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class ScanBuildConfig:
    out: Path
    dataset: str
    root: Path
    seed: int = 0
    per_family: int = 3
    fps: float = VIDEO_FPS
    size: tuple[int, int] = VIDEO_SIZE
    prune: bool = True
    reserve: float = 1.0
    resume: bool = False
    limit: int | None = None  # the first N scenes only

    def check(self) -> None:
        problems = []
        if self.dataset not in READERS:
            problems.append(f"dataset must be one of {', '.join(READERS)}, got {self.dataset!r}")
        problems += video_problems(self.fps, self.size)
        if self.per_family < 1:
            problems.append(f"--per-family must be at least 1, got {self.per_family}")
        if problems:
            raise InputError("; ".join(problems))


@dataclass
class ScanBuildResult(Exported):
    scenes: list[str] = field(default_factory=list)
    pruning: dict | None = None


def build_scans(cfg: ScanBuildConfig, progress: Progress | None = None) -> ScanBuildResult:
    from streamspatial.sim.generate import debias
    from streamspatial.sim.qa import QuestionGenerator

    cfg.check()
    scenes = scene_dirs(cfg.dataset, cfg.root)[: cfg.limit]
    folder = videos_dir(cfg.out) / cfg.dataset
    folder.mkdir(parents=True, exist_ok=True)
    walks = []
    for n, scene in enumerate(scenes):
        name = scene.name
        video = folder / f"{name}.mp4"
        ref = f"{cfg.dataset}/{name}.mp4"
        if cfg.resume and video.is_file() and meta_path_for(video).is_file():
            meta = load_episode_meta(video)
            if (meta.fps, (meta.intrinsics.width, meta.intrinsics.height)) != (cfg.fps, cfg.size):
                raise InputError(
                    f"--resume: {video} was built at {meta.fps} fps, "
                    f"{meta.intrinsics.width}x{meta.intrinsics.height}; this run asks "
                    f"{cfg.fps} fps, {cfg.size[0]}x{cfg.size[1]}: use a new --out"
                )
        else:
            scan = read_scan(cfg.dataset, scene)

            def tick(done: int, total: int, what: str = "visibility", name: str = name) -> None:
                if progress is not None:
                    progress(f"{what} {name}", done, total)

            ep = scan_episode(scan, fps=cfg.fps, size=cfg.size, video=video.name, progress=tick)
            write_video(
                scan,
                ep.sources,
                video,
                fps=cfg.fps,
                size=cfg.size,
                progress=lambda d, t: tick(d, t, "video"),
            )
            meta = ep.meta
            save_episode_meta(meta, meta_path_for(video))  # last: marks the scene done
        walks.append((meta, ref, name))
        if progress is not None:
            progress("scenes", n + 1, len(scenes))
    reserve = math.ceil(cfg.per_family * cfg.reserve) if cfg.prune else 0
    items: list[Item] = []
    groups = max(1, math.ceil(len(walks) / GROUP_SCENES))
    bounds = [len(walks) * i // groups for i in range(groups + 1)]
    for g in range(groups):
        ask = QuestionGenerator(
            cfg.seed, per_family=cfg.per_family, reserve=reserve, families=scan_families(), group=g
        )
        for batch in ask.group_items(walks[bounds[g] : bounds[g + 1]]):
            items += batch
        if progress is not None:
            progress("ask", g + 1, groups)
    items, pruning = debias(items, cfg, walks=len(walks))  # type: ignore[arg-type]
    manifest = {
        "source": "scans",
        "dataset": cfg.dataset,
        "root": str(cfg.root),
        "seed": cfg.seed,
        "per_family": cfg.per_family,
        "fps": cfg.fps,
        "size": list(cfg.size),
        "episodes": [name for _, _, name in walks],
        "families": scan_families(),
        "not_on_scans": not_on_scans(),
        **({"pruning": pruning} if pruning is not None else {}),
    }
    files = export_items(items, cfg.out, manifest=manifest)
    return ScanBuildResult(cfg.out, files, items, [n for _, _, n in walks], pruning)
