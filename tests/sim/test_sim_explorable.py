"""Generated explorable items (``s3.explore_room_count``): the prefix alone cannot answer them,
the exploration environment's own sweep from the pose at t_q reveals what is missing, and a
run with ``--explore-steps`` executes that sweep and shows the model the new views."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import streamspatial.sim  # noqa: F401  (headless GL default)
from streamspatial.bench.registry import load_benchmark
from streamspatial.core.schema import Item
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.scene.camera import min_pixels_for
from streamspatial.scene.types import EpisodeMeta, load_episode_meta
from streamspatial.sim.explore.env import ExploreEnv
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.qa import QuestionGenerator
from streamspatial.sim.qa.export import episode_dir, export_items, video_ref, videos_dir
from streamspatial.sim.render.episode import render_episode
from streamspatial.sim.walk.nav import Motion, plan_trajectory
from streamspatial.testing.openai_server import FakeOpenAIServer

pytest.importorskip("mujoco")

KEY = "s3.explore_room_count"
SIZE = (96, 72)


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, EpisodeMeta, list[Item]]:
    out = tmp_path_factory.mktemp("explorable")
    house = generate_house(11, n_rooms=4)
    walk = plan_trajectory(house, duration=45, fps=10, seed=1)
    paths = render_episode(house, walk, episode_dir(out), SIZE, name="h11")
    meta = load_episode_meta(paths.video)
    items = QuestionGenerator(5, per_family=4, families=[KEY]).items(
        meta, video=video_ref("h11"), episode_id="h11"
    )
    export_items(items, out)
    return out, meta, items


def seen_before(meta: EpisodeMeta, t_q: float) -> set[int]:
    px = min_pixels_for(meta.intrinsics.width, meta.intrinsics.height)
    return {v.instance_id for f in meta.frames if f.time < t_q for v in f.visible if v.pixels >= px}


def test_items_are_explorable_and_the_file_reads_back(bench) -> None:
    out, _, items = bench
    assert items and all(it.explorable and it.task.task == "explore_room_count" for it in items)
    _, loaded = load_benchmark(out / "s3.jsonl", videos=videos_dir(out))
    assert [it.explorable for it in loaded] == [True] * len(items)
    assert {it.id for it in loaded} == {it.id for it in items}


def test_the_hidden_objects_are_unseen_before_t_q_and_a_sweep_shows_them(bench) -> None:
    """The real env (GL renderer, not the generator's ray caster) restored at t_q: its
    ``sweep_around`` reports every counted object the stream had not shown as newly seen."""
    _, meta, items = bench
    env = None
    try:
        for it in items:
            t_q = it.queries[0].time
            frame = [f for f in meta.frames if f.time < t_q][-1]
            hidden = set(it.intent["params"]["hidden"])
            counted = set(it.intent["instances"])
            assert hidden and hidden <= counted and not hidden & seen_before(meta, t_q)
            assert it.queries[0].answer == len(counted)
            pose = frame.pose
            if env is None:
                motion = Motion(pitch=pose.pitch, eye_height=pose.position[2])
                env = ExploreEnv(size=SIZE, vfov_deg=meta.intrinsics.vfov_deg, motion=motion)
            _, info = env.reset(
                options={"house": meta.house, "start": (*pose.position[:2], pose.yaw)}
            )
            assert not hidden & set(info["seen"])  # not on screen at t_q either
            _, reward, _, _, info = env.step({"action": "sweep_around"})
            assert hidden <= set(info["new_instances"]), (it.id, hidden, info["new_instances"])
            assert reward >= len(hidden) and len(info["frames"]) == 8
    finally:
        if env is not None:
            env.close()


def test_run_with_explore_steps_sweeps_and_shows_the_new_views(bench, tmp_path: Path) -> None:
    out, _, items = bench
    item = items[0]
    t_q = item.queries[0].time
    answer = int(item.queries[0].answer)
    line = next(
        ln for ln in (out / "s3.jsonl").read_text().splitlines() if json.loads(ln)["id"] == item.id
    )
    data = tmp_path / "one.jsonl"
    data.write_text(line + "\n")

    def model(req) -> str:
        if "Exploration view" not in req.text:
            return 'Let me look around first.\n```json\n{"action": "sweep_around"}\n```'
        return str(answer)

    with FakeOpenAIServer(model, keep_images=True, decode_frames=False) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "streamspatial", "run", "--data", str(data), "--videos",
             str(videos_dir(out)), "--model", "openai:m", "--base-url", srv.base_url,
             "--policy", "uniform-4", "--out", str(tmp_path / "run"), "--no-progress",
             "--explore-steps", "2"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    first, second = srv.requests
    assert "Active exploration" in first.text and "Exploration view" not in first.text
    # The follow-up carries the same video frames, then the eight views of the sweep.
    assert second.image_bytes[: first.n_images] == first.image_bytes
    assert second.n_images == first.n_images + 8 and second.text.count("Exploration view") == 8
    (rec,) = read_records(tmp_path / "run" / PREDICTIONS)
    assert all(t <= t_q for t in rec.frame_times)  # video frames stop at t_q
    (action,) = rec.actions
    assert action["action"] == "sweep_around" and action["views"] == 8 and action["time"] > t_q
    assert action["new_objects"] >= len(item.intent["params"]["hidden"]) >= 1
    assert rec.score == 1.0
