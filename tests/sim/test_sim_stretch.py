"""Walks lengthened where they enter fewer rooms than the room-graph families need."""

from __future__ import annotations

import json

import pytest

from streamspatial.scene.schedule import Event, Schedule
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.pipeline.stretch import (
    GLANCES_WANTED,
    ROOMS_WANTED,
    STRETCH,
    rooms_entered,
    stretched,
)
from streamspatial.sim.walk.nav import plan_trajectory

SECONDS = 8.0  # a walk this short enters one or two rooms of a six-room house


def _plan(house, glances=lambda m: None, seconds: float = SECONDS):
    """A walk ``m`` times ``seconds`` long, with a schedule of ``glances(m)`` glance-backs
    (None: a walk without events)."""

    def plan(m):
        n = glances(m)
        events = () if n is None else tuple(_glance(10.0 * i) for i in range(n))
        traj = plan_trajectory(house, duration=seconds * m, fps=2.0, seed=1)
        return traj, None if n is None else Schedule(events=events)

    return plan


def _glance(t: float) -> Event:
    detail = {"surface": 5, "category": "box", "before": 1, "after": 2}
    return Event("added", t, t + 2.0, 1001 + int(t), 1, detail)  # type: ignore[arg-type]


def _multiple(traj) -> float:
    return len(traj.poses) / round(SECONDS * 2.0)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_first_length_that_enters_enough_rooms_is_kept(seed):
    house = generate_house(seed, n_rooms=6, furniture="boxes")
    plan = _plan(house)
    rooms = {m: rooms_entered(house, plan(m)[0]) for m in STRETCH}
    assert rooms[1] < ROOMS_WANTED  # the walk as asked is too short: it must be lengthened
    (traj, _), multiple = stretched(house, plan)
    enough = [m for m in STRETCH if rooms[m] >= ROOMS_WANTED]
    want = enough[0] if enough else max(STRETCH, key=lambda m: (rooms[m], -m))
    assert multiple == want == _multiple(traj)


def test_without_stretch_the_walk_is_as_asked():
    house = generate_house(11, n_rooms=6, furniture="boxes")
    (traj, _), multiple = stretched(house, _plan(house), stretch=False)
    assert multiple == _multiple(traj) == 1


def test_a_small_house_asks_only_for_its_rooms():
    house = generate_house(11, n_rooms=2, furniture="boxes")
    (traj, _), multiple = stretched(house, _plan(house))
    assert rooms_entered(house, traj) == 2 or multiple == STRETCH[-1]


def test_a_walk_planning_too_few_glance_backs_is_lengthened():
    """Rooms enough at every length (a two-room house): the glance-backs decide."""
    house = generate_house(11, n_rooms=2, furniture="boxes")
    assert rooms_entered(house, _plan(house, seconds=60.0)(1)[0]) == 2
    plan = _plan(house, glances=lambda m: m + 1, seconds=60.0)  # 2, 3, 4 glance-backs
    (traj, schedule), multiple = stretched(house, plan)
    assert GLANCES_WANTED == 4
    assert multiple == 3 and len(schedule.events) == 4
    assert len(traj.poses) == round(60.0 * multiple * 2.0)
    few = _plan(house, glances=lambda m: 1, seconds=60.0)  # never enough: the shortest
    assert stretched(house, few)[1] == 1


def test_sim_generate_says_which_walks_it_lengthened(tmp_path):
    pytest.importorskip("mujoco")
    from streamspatial.scene.types import load_episode_meta
    from streamspatial.sim.generate import generate_benchmark
    from streamspatial.sim.pipeline.config import GenerateConfig

    said: list[str] = []
    cfg = GenerateConfig(
        out=tmp_path, houses=1, seed=11, minutes=SECONDS / 60, size=(48, 36), fps=2.0,
        rooms=6, furniture="boxes", per_family=1, prune=False, stretch=True,
    )  # fmt: skip
    result = generate_benchmark(cfg, notice=said.append)
    (video,) = (tmp_path / "videos").rglob("*.mp4")
    frames = len(load_episode_meta(video).frames)
    multiple = frames / round(SECONDS * 2.0)
    assert multiple in STRETCH[1:]
    assert said[0].startswith(
        f"lengthened 1 of 1 walks to {round(SECONDS * multiple / 60, 2):g} min"
    )
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["stretched"] == {video.name.removesuffix(".mp4"): multiple}
    assert result.items


class _Asked(Exception):
    """Raised by the stand-in generation: the configuration the command built is all we read."""


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ((), True),  # an evaluation benchmark asks every family
        (("--split", "train"), False),  # training data is as long as asked
        (("--split", "train", "--stretch"), True),
        (("--no-stretch",), False),
    ],
)
def test_sim_generate_stretches_evaluation_walks_by_default(monkeypatch, tmp_path, args, want):
    import streamspatial.cli.sim as sim_cli
    from streamspatial.cli import main

    built = []

    def capture(cfg, **kw):
        built.append(cfg)
        raise _Asked

    monkeypatch.setattr(sim_cli, "run_generation", capture)
    with pytest.raises(_Asked):
        main(["sim", "generate", "--out", str(tmp_path / "b"), "--no-progress", *args])
    assert built[0].stretch is want


def test_resume_keeps_a_lengthened_walk_and_names_it(tmp_path):
    """``--resume`` takes a walk an earlier run lengthened as that run's (the same pure
    function of the seed), still names it, and refuses it where the run asks for no stretch."""
    pytest.importorskip("mujoco")
    from dataclasses import replace

    from streamspatial.core.errors import InputError
    from streamspatial.sim.generate import generate_benchmark
    from streamspatial.sim.pipeline.config import GenerateConfig

    cfg = GenerateConfig(
        out=tmp_path, houses=1, seed=11, minutes=SECONDS / 60, size=(48, 36), fps=2.0,
        rooms=6, furniture="boxes", per_family=1, prune=False, stretch=True,
    )  # fmt: skip
    generate_benchmark(cfg)
    first = json.loads((tmp_path / "manifest.json").read_text())["stretched"]
    (video,) = (tmp_path / "videos").rglob("*.mp4")
    mtime = video.stat().st_mtime_ns
    said: list[str] = []
    generate_benchmark(replace(cfg, resume=True), notice=said.append)
    assert video.stat().st_mtime_ns == mtime  # kept, not rendered again
    assert json.loads((tmp_path / "manifest.json").read_text())["stretched"] == first
    assert said and said[0].startswith("lengthened 1 of 1 walks")
    # where the run asks for no stretch it is another benchmark: the folder is refused
    with pytest.raises(InputError, match=r"holds another benchmark \(stretch true there, false"):
        generate_benchmark(replace(cfg, resume=True, stretch=False))
    assert video.stat().st_mtime_ns == mtime


def test_the_help_and_the_docs_state_the_wants_the_code_has():
    """The ``--stretch`` help and docs/simulator.md spell the numbers out; once the code
    wanted three glance-backs while both still said two."""
    import re
    import typing
    from pathlib import Path

    from streamspatial.cli.sim import generate

    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    want = {"rooms": ROOMS_WANTED, "glance-backs": GLANCES_WANTED}
    option = typing.get_type_hints(generate, include_extras=True)["stretch"].__metadata__[0]
    doc = Path(__file__).parents[2] / "docs" / "simulator.md"
    for text in (option.help, doc.read_text(encoding="utf-8")):
        said = re.findall(r"fewer than (\w+) (rooms|glance-backs)", " ".join(text.split()))
        assert said and all(n in (words[want[w]], str(want[w])) for n, w in said), said
