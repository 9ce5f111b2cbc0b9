"""Active exploration through the runner and the real loopback server: the env is restored to
the episode's pose at t_q, an action changes the view and the answer, actions are recorded,
the step limit holds, and no video frame from after t_q is ever sent."""

from __future__ import annotations

import asyncio
import io
import json
import math
import shutil
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import streamspatial.sim  # noqa: F401  (headless GL default)
from streamspatial.agents import PolicyAgent
from streamspatial.agents.exploration import ANSWER_NOW, EnvSession, Explorer
from streamspatial.bench.registry import load_benchmark
from streamspatial.core.errors import InputError
from streamspatial.eval.results import PREDICTIONS, PredictionWriter, read_records
from streamspatial.eval.runner import Runner
from streamspatial.eval.video_tools import VideoTools
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.scene.types import CameraPose, SceneObject, Trajectory, meta_path_for
from streamspatial.sim.explore.world import EpisodeWorld
from streamspatial.sim.house.layout import single_room_house
from streamspatial.sim.render.episode import render_episode
from streamspatial.sim.walk.nav import Motion
from streamspatial.testing.openai_server import FakeOpenAIServer

T_Q = 1.5
SIZE = (96, 72)


def red_pixels(rgb: np.ndarray) -> int:
    return int(((rgb[..., 0] > 150) & (rgb[..., 1] < 80) & (rgb[..., 2] < 80)).sum())


def decode(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))


@pytest.fixture(scope="module")
def episode(tmp_path_factory) -> tuple[Path, Path]:
    """A still camera at (1, 2) facing +x; a red box 56° to its left, out of view."""
    root = tmp_path_factory.mktemp("explore")
    box = SceneObject(
        1, "box", 0, (2.0, 3.5, 0.5), (0.5, 0.5, 1.0), 0.0, "red", (0.9, 0.05, 0.05), "wood"
    )
    house = single_room_house(6.0, 4.0, (box,))
    pitch = Motion().pitch
    poses = tuple(CameraPose(i / 2, (1.0, 2.0, 1.5), 0.0, pitch, "still") for i in range(4))
    videos = root / "videos"
    render_episode(house, Trajectory(house.house_id, 2.0, poses), videos / "sim", SIZE, name="room")
    data = root / "s3.jsonl"
    line = {
        "id": "left-1",
        "video": "sim/room.mp4",
        "task": "identification_closest",
        "format": "mc",
        "question": "Is there a red box on your left?",
        "options": ["no", "yes"],
        "query_time": T_Q,
        "answer": "B",
        "explorable": True,
        "source": "streamspatial-sim",
    }
    data.write_text(json.dumps(line) + "\n")
    return data, videos


def looks_left_model(req) -> str:
    """Asks to turn left when offered and it has no exploration view yet; then answers from
    what it sees: B when the last image shows the red box, else A."""
    if "Active exploration" in req.text and "Exploration view" not in req.text:
        return 'The box may be to my left.\n```json\n{"action": "rotate_left"}\n```'
    return "B" if red_pixels(decode(req.image_bytes[-1])) > 50 else "A"


def run(data: Path, videos: Path, out: Path, server: FakeOpenAIServer, steps: int):
    adapter, items = load_benchmark(data, videos=videos)
    backend = OpenAIChatBackend(
        "m", base_url=server.base_url, api_key="", trace_headers=True, timeout=20.0
    )

    async def go(runner: Runner) -> None:
        try:
            await runner.run()
        finally:
            await backend.aclose()

    out.mkdir(parents=True, exist_ok=True)
    with PredictionWriter(out / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=backend,
            agent=partial(PolicyAgent, "uniform-4"),
            writer=writer,
            videos=videos,
            model="m",
            frame_size=72,
            progress=False,
            video=VideoTools(frame_size=72),
            explorer=Explorer(EpisodeWorld(), max_steps=steps) if steps else None,
        )
        asyncio.run(go(runner))
    return read_records(out / PREDICTIONS)


def test_an_action_changes_the_view_and_the_answer(episode, tmp_path: Path) -> None:
    data, videos = episode
    with FakeOpenAIServer(looks_left_model, keep_images=True, decode_frames=False) as off:
        (still,) = run(data, videos, tmp_path / "off", off, steps=0)
    assert len(off.requests) == 1 and "Active exploration" not in off.requests[0].text
    assert still.extracted == "A" and still.actions is None

    with FakeOpenAIServer(looks_left_model, keep_images=True, decode_frames=False) as srv:
        (rec,) = run(data, videos, tmp_path / "on", srv, steps=3)
    assert rec.extracted == "B" and rec.score == 1.0 and still.score == 0.0
    first, second = srv.requests
    # The first request is the plain one with the action space offered; the video stops at t_q.
    assert first.query_time == T_Q and first.n_images == 4
    # The follow-up: the very same video frames, then the new view, asked after t_q.
    assert second.image_bytes[:4] == first.image_bytes
    assert second.n_images == 5 and "Exploration view at" in second.text
    turn = math.radians(45) / Motion().turn_speed
    assert second.query_time == pytest.approx(T_Q + turn)
    new_view = decode(second.image_bytes[-1])
    assert red_pixels(decode(first.image_bytes[-1])) == 0 < red_pixels(new_view)
    (action,) = rec.actions
    assert action["action"] == "rotate_left" and action["angle"] == 45.0
    assert action["step"] == 1 and action["views"] == 1 and not action["collided"]
    assert action["new_objects"] == 1 and action["yaw_deg"] == pytest.approx(45.0)
    assert action["position"] == [1.0, 2.0] and action["time"] == pytest.approx(T_Q + turn)
    assert rec.frame_times == [0.0, 0.5, 1.0, 1.5]  # video frames only, all ≤ t_q


def test_env_is_restored_to_the_recorded_pose_at_t_q(episode) -> None:
    _, videos = episode

    async def go():
        session = EnvSession(EpisodeWorld(), videos / "sim" / "room.mp4", T_Q, frame_size=72)
        await session.open()
        try:
            return session.start_view
        finally:
            await session.close()

    start = asyncio.run(go())
    import av

    with av.open(str(videos / "sim" / "room.mp4")) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    # Same pose, same pitch, same field of view: only H.264 noise differs.
    assert np.abs(start.astype(int) - frames[3].astype(int)).mean() < 5.0


def test_step_limit_invalid_actions_and_answer_now(episode, tmp_path: Path) -> None:
    data, videos = episode
    replies = [
        '{"action": "move_forward", "distance": 9}',  # the env refuses d > 5 m
        '{"action": "move_forward", "distance": 0.5}',
        '{"action": "move_forward", "distance": 0.5}',  # no steps left: not executed
    ]

    def model(req) -> str:
        return replies[min(req.number, len(replies) - 1)]

    with FakeOpenAIServer(model, decode_frames=False) as srv:
        (rec,) = run(data, videos, tmp_path / "lim", srv, steps=2)
    assert len(srv.requests) == 3
    bad, moved = rec.actions
    assert bad["step"] == 1 and "distance must be in" in bad["error"] and "time" not in bad
    assert moved["step"] == 2 and moved["position"] == [1.5, 2.0] and moved["views"] == 1
    assert "could not be executed" in srv.requests[1].text
    assert ANSWER_NOW in srv.requests[2].text and "Actions left" not in srv.requests[2].text
    assert srv.requests[2].query_time == pytest.approx(T_Q + 0.5 / Motion().walk_speed)
    assert not rec.valid and rec.score == 0.0 and rec.error is None


def test_explorable_item_without_metadata_is_a_user_error(episode, tmp_path: Path) -> None:
    data, videos = episode
    bare = tmp_path / "videos"
    (bare / "sim").mkdir(parents=True)
    shutil.copy(videos / "sim" / "room.mp4", bare / "sim" / "room.mp4")
    adapter, items = load_benchmark(data, videos=bare)
    (problem,) = Explorer(EpisodeWorld(), max_steps=2).problems(adapter, items, bare)
    assert problem.item_id == "left-1" and problem.field == "explorable"
    assert problem.file == str(meta_path_for(bare / "sim" / "room.mp4"))
    assert Explorer(EpisodeWorld(), max_steps=0).applies(items[0]) is False
    with pytest.raises(InputError):
        Explorer(EpisodeWorld(), max_steps=-1)


def _cli(data: Path, videos: Path, out: Path, server: FakeOpenAIServer, *extra: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "streamspatial", "run", "--data", str(data), "--videos",
         str(videos), "--model", "openai:m", "--base-url", server.base_url, "--policy",
         "uniform-4", "--out", str(out), "--no-progress", *extra],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_cli_explore_steps(episode, tmp_path: Path) -> None:
    data, videos = episode
    with FakeOpenAIServer(looks_left_model, keep_images=True, decode_frames=False) as srv:
        proc = _cli(data, videos, tmp_path / "run", srv, "--explore-steps", "2")
    assert proc.returncode == 0, proc.stderr
    (rec,) = read_records(tmp_path / "run" / PREDICTIONS)
    assert rec.extracted == "B" and [a["action"] for a in rec.actions] == ["rotate_left"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["config"]["explore_steps"] == 2


def test_cli_explorable_item_without_metadata_is_one_line_exit_2(episode, tmp_path) -> None:
    data, videos = episode
    bare = tmp_path / "videos"
    (bare / "sim").mkdir(parents=True)
    shutil.copy(videos / "sim" / "room.mp4", bare / "sim" / "room.mp4")
    with FakeOpenAIServer("A") as srv:
        proc = _cli(data, bare, tmp_path / "run", srv, "--explore-steps", "1")
        assert proc.returncode == 2 and len(srv.requests) == 0
    assert "Traceback" not in proc.stderr
    (line,) = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert "room.mp4.meta.json.gz" in line and "left-1" in line and "explorable" in line


def test_cli_says_when_no_item_is_explorable(episode, tmp_path: Path) -> None:
    data, videos = episode
    plain = tmp_path / "plain.jsonl"
    line = json.loads(data.read_text())
    line["explorable"] = False
    plain.write_text(json.dumps(line) + "\n")
    with FakeOpenAIServer(looks_left_model, keep_images=True, decode_frames=False) as srv:
        proc = _cli(plain, videos, tmp_path / "run", srv, "--explore-steps", "2")
    assert proc.returncode == 0, proc.stderr
    assert "no item of" in proc.stderr and "marked explorable" in proc.stderr
    assert len(srv.requests) == 1 and "Active exploration" not in srv.requests[0].text


def test_episode_metadata_is_read_once_per_video(episode) -> None:
    _, videos = episode
    world = EpisodeWorld()
    path = videos / "sim" / "room.mp4"
    meta = world.episode_meta(path)
    assert world.episode_meta(path) is meta and len(meta.frames) == 4


def test_an_env_that_cannot_be_restored_stops_exploring(tmp_path: Path) -> None:
    """The recorded pose stands inside a box: the env refuses it, once, and the model must
    answer without further actions."""
    box = SceneObject(
        1, "box", 0, (2.0, 2.0, 0.5), (0.6, 0.6, 1.0), 0.0, "red", (0.9, 0, 0), "wood"
    )
    house = single_room_house(6.0, 4.0, (box,))
    poses = tuple(CameraPose(i / 2, (2.0, 2.0, 1.5), 0.0, 0.0, "still") for i in range(2))
    videos = tmp_path / "videos"
    render_episode(house, Trajectory(house.house_id, 2.0, poses), videos / "sim", SIZE, name="in")
    data = tmp_path / "s3.jsonl"
    line = {
        "id": "stuck",
        "video": "sim/in.mp4",
        "task": "identification_closest",
        "format": "mc",
        "question": "Which?",
        "options": ["no", "yes"],
        "query_time": 0.5,
        "answer": "A",
        "explorable": True,
    }
    data.write_text(json.dumps(line) + "\n")
    with FakeOpenAIServer('{"action": "rotate_left"}', decode_frames=False) as srv:
        (rec,) = run(data, videos, tmp_path / "run", srv, steps=3)
    (entry,) = rec.actions
    assert entry["action"] == "rotate_left" and "not on free floor" in entry["error"]
    assert len(srv.requests) == 2 and ANSWER_NOW in srv.requests[1].text
    assert srv.requests[1].n_images == srv.requests[0].n_images  # no view was added
    assert not rec.valid
