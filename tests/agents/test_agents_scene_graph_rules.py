"""The rule reasoner on a generated simulator benchmark: exact with perfect perception on the
direction, distance, count and order families; blind to answers; worse with noise."""

from __future__ import annotations

import asyncio
import os

import pytest

os.environ.setdefault("MUJOCO_GL", "egl")  # before anything imports mujoco
pytest.importorskip("mujoco")

from agent_helpers import decide
from streamspatial.agents import Answer
from streamspatial.agents.rules import SceneGraphRulesAgent
from streamspatial.core.schema import AnswerType, Item
from streamspatial.grading.extract import extract_choice, extract_number
from streamspatial.grading.metrics import score_prediction
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.perception.noise import NoiseModel
from streamspatial.scene.types import EpisodeMeta, FrameRecord
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.qa.build import QuestionGenerator
from streamspatial.sim.render.process import RenderProcess
from streamspatial.sim.walk.nav import plan_trajectory

FAMILIES = {
    "direction": ["ovos.behind_camera", "s3.relative_orientation", "ucs.ego_position"],
    "distance": [
        "ovos.absolute_distance",
        "s3.spatial_distance",
        "s3.cam_obj_distance",
        "ovos.depth_ordering",
        "s3.identification_closest",
    ],
    "count": ["s3.count", "ovos.transient_count"],
    "order": ["s3.sequence", "s3.sequence_identification"],
    # the room graph as walked: visits per room type and the doorways between them
    "room": [
        "ovos.revisit_detection",
        "ovos.revisit_counting",
        "ovos.chronological_recall",
        "ovos.temporal_depth",
        "ovos.reachability",
        "ovos.optimal_path",
        "ovos.topology",
    ],
    # the latest pose: crouching, kneeling or standing eye height
    "height": ["ovos.viewpoint_height"],
    # the rooms' floors as perceived, and where the walk has stood since when
    "layout": ["s3.area", "s3.current_room_area"],
}


def episode(seed: int, duration: float = 50.0, fps: float = 5.0) -> EpisodeMeta:
    # Four rooms: no two of a type (a perception that names rooms by type cannot tell two
    # studies apart; the generator then names them "study 1" and "study 2").
    house = generate_house(seed, n_rooms=4)
    traj = plan_trajectory(house, duration=duration, fps=fps, seed=seed)
    records = []
    with RenderProcess(house, (160, 120)) as r:
        for i, pose in enumerate(traj.poses):
            f = r.render(pose)
            x, y, _ = pose.position
            records.append(FrameRecord(i, pose, house.room_at(x, y), f.visibility()))
        intr = r.intrinsics
    return EpisodeMeta(
        house=house,
        intrinsics=intr,
        fps=fps,
        frames=tuple(records),
        keypoints=traj.keypoints,
        video=f"ep{seed}.mp4",
    )


@pytest.fixture(scope="module")
def bench() -> list[tuple[EpisodeMeta, list[Item]]]:
    keys = [k for fam in FAMILIES.values() for k in fam]
    gen = QuestionGenerator(7, per_family=3, families=keys)
    out = []
    for seed in (1, 2):
        meta = episode(seed)
        out.append((meta, gen.items(meta, video=meta.video, episode_id=f"e{seed}")))
    return out


class Adapter:
    def prompt(self, item, query, **kw):
        return item.question


def run(bench, noise: float = 0.0) -> dict[tuple[str, int], tuple[str, float, str]]:
    """(item, query) → (raw answer, score, task) with the rules agent, queries in time order."""
    out = {}
    for meta, items in bench:
        agent = SceneGraphRulesAgent(
            provider_factory=lambda it, m=meta: SimGroundTruth(
                m, noise=NoiseModel.scaled(noise, seed=3), key=m.video
            )
        )
        todo = sorted(
            ((q.time, it.id, it, q) for it in items for q in it.queries), key=lambda x: x[:2]
        )
        for _t, _id, it, q in todo:
            decision = decide(agent, None, it, q, Adapter())
            assert isinstance(decision, Answer)
            text = decision.text
            if it.answer_type is AnswerType.CHOICE:
                got = extract_choice(text, it.letters)
            else:
                got = extract_number(text)
            score = 0.0 if got is None else score_prediction(got, q.answer, number_metric="mra")
            out[(it.id, q.index)] = (text, score, it.intent["task"])
    return out


def family_of(task: str) -> str:
    for fam, keys in FAMILIES.items():
        if any(k.endswith("." + task) for k in keys):
            return fam
    raise KeyError(task)


def test_perfect_perception_answers_every_target_family_exactly(bench):
    results = run(bench)
    per: dict[str, list[float]] = {}
    for _text, score, task in results.values():
        per.setdefault(family_of(task), []).append(score)
    assert set(per) == set(FAMILIES)
    assert all(len(v) >= 4 for v in per.values()), {k: len(v) for k, v in per.items()}
    assert {k: min(v) for k, v in per.items()} == {k: 1.0 for k in FAMILIES}


def swapped(it: Item) -> Item:
    """The same item with every answer replaced by a wrong one."""
    raw = it.model_dump()
    for q in raw["queries"]:
        if it.answer_type is AnswerType.CHOICE:
            letters = it.letters
            q["answer"] = letters[(letters.index(q["answer"]) + 1) % len(letters)]
        else:
            q["answer"] = q["answer"] * 3 + 1
    return Item.model_validate(raw)


def test_predictions_do_not_change_when_the_answers_are_swapped(bench):
    swapped_bench = [(m, [swapped(it) for it in items]) for m, items in bench]
    assert any(
        a.queries[0].answer != b.queries[0].answer
        for (_, xs), (_, ys) in zip(bench, swapped_bench, strict=True)
        for a, b in zip(xs, ys, strict=True)
    )
    original = run(bench)
    after = run(swapped_bench)
    assert {k: v[0] for k, v in original.items()} == {k: v[0] for k, v in after.items()}
    assert sum(v[1] for v in after.values()) < sum(v[1] for v in original.values())


def test_accuracy_falls_with_perception_noise(bench):
    def accuracy(noise: float) -> float:
        # the noise model degrades poses and detections, not scene tags: room families
        # (visits, doorways) keep their accuracy and are left out here
        runs = run(bench, noise).values()
        scores = [s for _t, s, task in runs if family_of(task) != "room"]
        return sum(scores) / len(scores)

    # (false labels name only objects already seen, so it takes noise 2 to cost 10 points)
    perfect, heavy = accuracy(0.0), accuracy(2.0)
    assert perfect == 1.0
    assert heavy < perfect - 0.1


def test_end_to_end_through_the_runner_on_a_rendered_video(tmp_path):
    """Rendered mp4 + metadata → runner (single pass, PrefixView) → rules agent and its
    backend → scored records with diagnostics, all exact with perfect perception."""
    from streamspatial.bench.registry import get_adapter
    from streamspatial.eval.results import PredictionWriter
    from streamspatial.eval.runner import Runner
    from streamspatial.sim.render.episode import render_episode

    house = generate_house(4)
    traj = plan_trajectory(house, duration=30.0, fps=5.0, seed=4)
    paths = render_episode(house, traj, tmp_path / "videos", (160, 120), name="walk")
    from streamspatial.scene.types import load_episode_meta

    meta = load_episode_meta(paths.meta)
    keys = [
        "s3.count",
        "s3.spatial_distance",
        "s3.sequence_identification",
        "s3.relative_orientation",
        "s3.cam_obj_distance",
    ]
    items = QuestionGenerator(3, per_family=2, families=keys).items(
        meta, video="walk.mp4", episode_id="w"
    )
    assert len(items) >= 5
    with PredictionWriter(tmp_path / "predictions.jsonl") as writer:
        runner = Runner(
            adapter=get_adapter("s3"),
            items=items,
            backend=None,
            agent=lambda: SceneGraphRulesAgent(perception="ground-truth"),
            writer=writer,
            videos=tmp_path / "videos",
            model="rules",
            concurrency=2,
            progress=False,
        )
        asyncio.run(runner.run())
        records = list(writer.records.values())
    assert len(records) == sum(len(it.queries) for it in items)
    assert all(r.score == 1.0 for r in records), [
        (r.item_id, r.raw_output, r.answer) for r in records if r.score != 1.0
    ]
    assert all(r.diagnostics and r.diagnostics["memory_time"] <= r.t_q for r in records)
    assert all(0 < r.diagnostics["compression_ratio"] <= 1 for r in records)
    assert all(r.agent == "scene-graph-rules" and r.frame_times == [] for r in records)
