"""What a generation computes, as one record: the options of ``sim generate`` and their checks.

:class:`GenerateConfig` is what every unit of work (:mod:`.jobs`) and executor (:mod:`.executors`,
:mod:`.ray_actors`) is handed and what :func:`streamspatial.sim.generate.generate_benchmark`
runs; it lives here, below both, so the units never import the orchestrator above them.
:func:`house_seeds` is where ``--split`` and ``--seed`` become the house seeds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from streamspatial.core.errors import InputError
from streamspatial.core.runtime import EXECUTORS

Split = Literal["train", "eval"]
# Each split owns a million house seeds; eval houses can never leak into training data.
SPLIT_BASE: dict[str, int] = {"eval": 0, "train": 1_000_000}
SPLIT_SPAN = 1_000_000
# S3-Bench normalises its real-world videos to 640×480 (its simulated ones are 768×768):
# frames at a benchmark's resolution by default; the demo asks for smaller ones.
BENCHMARK_SIZE = (640, 480)
# The walk lengths asked for, in minutes: from 6 s (the shortest walk the generation's tests
# make questions from: one look round the first room) to half an hour (the longest the walk
# planner is checked for; --stretch may lengthen a walk to three times this).
MINUTES = (0.1, 30.0)


def video_problems(fps: float, size: tuple[int, int]) -> list[str]:
    """What is wrong with a generated benchmark's video settings: one wording of the rule for
    ``sim generate`` and ``scans build`` (the encoder wants even sides; 16 is the least the
    renderer and the frame cache take)."""
    problems = []
    if not fps > 0:
        problems.append(f"--fps must be positive, got {fps}")
    w, h = size
    if w < 16 or h < 16 or w % 2 or h % 2:
        problems.append(f"--size must be even and at least 16x16, got {w}x{h}")
    return problems


@dataclass(frozen=True)
class GenerateConfig:
    out: Path
    houses: int = 3
    seed: int = 0
    minutes: float = 1.0
    size: tuple[int, int] = BENCHMARK_SIZE
    fps: float = 10.0
    split: Split = "eval"
    per_family: int = 3
    identity_turns: int = 0  # turns of the rotating-camera probe (VCBench §4.3.2); 0: none
    rooms: int | None = None  # rooms per house (None: the house generator's choice)
    furniture: str = "catalog"  # "catalog" (textured models and rooms) or "boxes"
    workers: int = 0  # processes rendering walks side by side; 0: automatic (.pipeline.executors)
    executor: str = "local"  # "local" (this machine) or "ray" (actors: .pipeline.ray_actors)
    address: str | None = None  # the Ray cluster to join (None: a local Ray instance)
    # Keep the episodes an interrupted run of the same command already rendered in ``out``
    # (each is a pure function of its seed): only the missing ones are rendered.
    resume: bool = False
    # Replace a folder that holds another benchmark (or generated files but no manifest);
    # without it such a folder is refused (core.benchmark_folder).
    force: bool = False
    prune: bool = True  # Iterative Bias Pruning of the finished benchmark (qc.prune)
    reserve: float = 1.0  # extra questions per family and walk, as a share of per_family
    # Dynamic events around each walk (sim.events: people, doors, lights, props, a metronome),
    # for textured houses; the spin probe never has any.
    events: bool = True
    # Lengthen a walk that enters fewer rooms, or plans fewer glance-backs, than the
    # room-graph and change families need (.pipeline.stretch: up to three times ``minutes``).
    # Off here, so a walk is exactly as long as asked for whoever calls the library (tests,
    # training data); ``sim generate`` turns it on (``--stretch``, its default).
    stretch: bool = False

    def walk_slot(self, house_seed: int) -> int:
        """A walk's place among this benchmark's walks (its house seed's index): where the
        event planner starts dealing its glance-backs' outcomes, so the walks share them out
        evenly (``sim.events.plan.plan_events``'s ``slot``); a house that is not one of this
        benchmark's (a walk planned on its own) takes its seed, the planner's default."""
        seeds = house_seeds(self.split, self.seed, self.houses)
        return seeds.index(house_seed) if house_seed in seeds else house_seed

    def check(self) -> None:
        problems = []
        if self.houses < 1:
            problems.append(f"--houses must be at least 1, got {self.houses}")
        low, high = MINUTES
        if not low <= self.minutes <= high:
            problems.append(f"--minutes must be between {low:g} and {high:g}, got {self.minutes:g}")
        if self.per_family < 1:
            problems.append(f"--per-family must be at least 1, got {self.per_family}")
        problems += video_problems(self.fps, self.size)
        if self.split not in SPLIT_BASE:
            problems.append(f"--split must be train or eval, got {self.split!r}")
        if self.identity_turns < 0:
            problems.append(f"identity turns must be ≥ 0, got {self.identity_turns}")
        if self.furniture not in ("catalog", "boxes"):
            problems.append(f"--furniture must be catalog or boxes, got {self.furniture!r}")
        if self.workers < 0:
            problems.append(f"--workers must be ≥ 0, got {self.workers}")
        if self.executor not in EXECUTORS:
            problems.append(f"--executor must be local or ray, got {self.executor!r}")
        if self.address is not None and self.executor != "ray":
            problems.append("--address needs --executor ray")
        if self.resume and self.force:
            problems.append("--resume continues a benchmark, --force replaces it: pass one")
        if self.rooms is not None and not 2 <= self.rooms <= 12:
            problems.append(f"--rooms must be between 2 and 12, got {self.rooms}")
        if not self.reserve >= 0:
            problems.append(f"--reserve must be ≥ 0, got {self.reserve}")
        if problems:
            raise InputError("; ".join(problems))


def house_seeds(split: Split, seed: int, n: int) -> list[int]:
    """``n`` distinct house seeds inside the split's own range, a function of ``seed``."""
    rng = random.Random(f"houses:{split}:{seed}")
    base = SPLIT_BASE[split]
    return [base + s for s in rng.sample(range(SPLIT_SPAN), n)]
