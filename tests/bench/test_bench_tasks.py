"""The task vocabulary is defined once (bench/tasks.py) and everything that names a task agrees.

The question generators label their families and emit ``intent["task"]``; the S3-Bench reader
validates task names; memory agents key their retrieval on the intent task.  A name that one
of them uses and the vocabulary lacks is a drift, caught here rather than as a silent keyword
fallback or a rejected file.
"""

from __future__ import annotations

import pytest

from streamspatial.agents.scene_graph import parse_intent
from streamspatial.bench.tasks import (
    INTENT_TASKS,
    OVOS_TASKS,
    S3_GENERATED_TASKS,
    S3_TASKS,
    primitive_of,
)

pytest.importorskip("mujoco")


def test_s3_families_carry_the_vocabulary_labels() -> None:
    from streamspatial.sim.qa import FAMILIES

    s3 = {**S3_TASKS, **S3_GENERATED_TASKS}
    fmt = {"num": "Num", "mc": "MC"}
    seen = set()
    for fam in FAMILIES.values():
        if fam.format != "s3":
            continue
        domain, answer = s3[fam.labels.task]
        assert (fam.labels.category, fam.labels.subcategory) == (domain, fmt[answer]), fam.key
        assert fam.answer == ("number" if answer == "num" else "choice"), fam.key
        seen.add(fam.labels.task)
    assert seen == set(s3)  # every task of the table is generated


def test_ovos_families_name_their_subcategory_as_the_paper_does() -> None:
    from streamspatial.sim.qa import FAMILIES

    for fam in FAMILIES.values():
        if fam.format == "ovos" and fam.labels.subcategory in OVOS_TASKS:
            assert fam.labels.task == OVOS_TASKS[fam.labels.subcategory], fam.key


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from streamspatial.scene.types import load_episode_meta
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.qa import QuestionGenerator
    from streamspatial.sim.render.episode import render_episode
    from streamspatial.sim.walk.nav import plan_trajectory

    out = tmp_path_factory.mktemp("tasks")
    house = generate_house(11, n_rooms=4)
    traj = plan_trajectory(house, duration=45, fps=10, seed=1)
    meta = load_episode_meta(render_episode(house, traj, out, (96, 72), name="h").video)
    return QuestionGenerator(5, per_family=4).items(meta, video="h.mp4", episode_id="h")


def test_every_generated_intent_task_is_in_the_vocabulary(generated) -> None:
    assert generated
    for item in generated:
        task = item.intent["task"]
        assert task in INTENT_TASKS, f"{item.id}: intent task {task!r} not in bench/tasks.py"
        assert INTENT_TASKS[task].benchmark == item.benchmark, item.id


def test_memory_agents_read_the_primitive_from_the_vocabulary(generated) -> None:
    for item in generated:
        intent = parse_intent(item, labels=())
        expected = primitive_of(item.intent["task"])
        if expected is not None:
            assert intent.primitive == expected, item.id
        assert intent.task == item.intent["task"]
