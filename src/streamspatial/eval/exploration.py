"""Active exploration (seed 004 §4.3): an agent may act in the simulator before it answers.

For an item marked ``explorable`` (a simulator episode whose ground-truth metadata lies next to
its video), the answer request is offered the S3 action space.  When the model replies with a
JSON action instead of an answer, the runner restores the exploration environment
(``streamspatial/Explore-v0``) to the house of the episode and the camera pose at t_q, executes
the action, appends the views it produced and asks again, up to ``max_steps`` actions.

Time and causality: the video stops at t_q.  Exploration views form a second stream that starts
at t_q and advances by the time each action takes (walking and turning speeds of the
simulator's camera), so a follow-up request is asked at ``t_q + elapsed``; it carries the very
same video frames as the first request (all ≤ t_q) plus rendered views, never a video frame
from after t_q.  The house is static scene content, the pose is the one recorded at t_q.

Every action taken is stored with the prediction, in ``Record.actions`` (see
:func:`Explorer.run` for the fields).  MuJoCo's GL context belongs to the thread that made it,
so one episode's environment lives in one worker thread of its own.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamspatial.core.errors import InputError, Problem
from streamspatial.eval.extract import extract_action
from streamspatial.models.types import ImagePart, ModelRequest, ModelResponse, Part, TextPart

OFFER = (
    "Active exploration: if the observations so far are not enough to answer, you may reply "
    "with one exploration action in JSON instead of an answer, e.g. "
    '{{"action": "move_forward", "distance": 1.0}} (move_forward, move_left or move_right, '
    'distance in metres, 0 < d ≤ 5) or {{"action": "rotate_left"}} (rotate_left or '
    "rotate_right by 45°, scan_forward over 90°, sweep_around over 360°). The new views will "
    "be shown to you and the question asked again. Actions left: {left}."
)
ANSWER_NOW = "No exploration actions are left: answer the question now."


@dataclass(frozen=True)
class StepResult:
    """What one executed action produced: its views (JPEG, exploration-stream times)."""

    views: tuple[ImagePart, ...]
    elapsed: float  # seconds since t_q when the action ended
    collided: bool
    new_objects: int
    position: tuple[float, float]
    yaw_deg: float


class EnvSession:
    """One exploration episode: the environment restored to the episode's pose at t_q."""

    def __init__(
        self,
        video: Path,
        t_q: float,
        frame_size: int,
        load_meta: Callable[[Path], Any] | None = None,
    ):
        self.video = video
        self.t_q = t_q
        self.frame_size = frame_size
        self._load_meta = load_meta
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explore")
        self._env: Any = None
        self.start_view: Any = None  # the RGB frame rendered at the restored pose

    async def _call(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def open(self) -> None:
        await self._call(self._open)

    def _open(self) -> None:
        from streamspatial.sim.env import ExploreEnv
        from streamspatial.sim.nav import Motion
        from streamspatial.sim.types import load_episode_meta
        from streamspatial.video.prefix import query_frame_index

        meta = (self._load_meta or load_episode_meta)(self.video)
        n_q = query_frame_index(self.t_q, meta.fps, len(meta.frames))
        pose = meta.frames[n_q].pose  # the camera at t_q: recorded, never later
        k = meta.intrinsics
        vfov = math.degrees(2 * math.atan(k.height / (2 * k.fy)))
        self._env = ExploreEnv(
            size=(k.width, k.height),
            max_steps=1_000_000,  # the runner's step limit applies, not the env's
            vfov_deg=vfov,
            motion=_motion_like(Motion, pose),
        )
        x, y, _ = pose.position
        obs, _ = self._env.reset(options={"house": meta.house, "start": (x, y, pose.yaw)})
        self.start_view = obs

    async def step(self, action: dict[str, Any]) -> StepResult:
        return await self._call(self._step, action)

    def _step(self, action: dict[str, Any]) -> StepResult:
        from streamspatial.sim.actions import parse_action
        from streamspatial.video.cache import ResizeSpec, encode_jpeg

        act = parse_action(action)  # InputError for an action the env cannot do (d > 5 m)
        _, reward, _, _, info = self._env.step(act)
        spec = ResizeSpec(short_side=self.frame_size)
        views = tuple(
            ImagePart(
                jpeg=encode_jpeg(rgb, spec), time=round(self.t_q + rec.pose.time, 6), record=rec
            )
            for rgb, rec in zip(info["frames"], info["records"], strict=True)
        )
        pose = info["pose"]
        return StepResult(
            views=views,
            elapsed=float(pose.time),
            collided=bool(info["collided"]),
            new_objects=int(reward),
            position=(float(pose.position[0]), float(pose.position[1])),
            yaw_deg=round(math.degrees(pose.yaw), 2),
        )

    async def close(self) -> None:
        if self._env is not None:
            await self._call(self._env.close)
        self._pool.shutdown(wait=False)


def _motion_like(motion_cls: Any, pose: Any) -> Any:
    """The simulator's default camera motion with the recorded pitch and eye height."""
    return motion_cls(pitch=pose.pitch, eye_height=pose.position[2])


def offer(request: ModelRequest, left: int) -> ModelRequest:
    """The request with the action space offered just before its question (the last part)."""
    note = OFFER.format(left=left) if left > 0 else ANSWER_NOW
    parts = (*request.parts[:-1], TextPart(note), request.parts[-1])
    return _with(request, parts, request.query_time)


def _with(request: ModelRequest, parts: tuple[Part, ...], query_time: float) -> ModelRequest:
    return ModelRequest(
        parts=parts,
        query_time=query_time,
        system=request.system,
        params=request.params,
        choices=request.choices,
        task_key=request.task_key,
        item_id=request.item_id,
    )


def _action_text(action: dict[str, Any]) -> str:
    if "distance" in action:
        return f"{action['action']} {action['distance']:g} m"
    return str(action["action"])


@dataclass
class _Episode:
    """One query's exploration: its env session (opened on the first action) and what it saw."""

    video: Path
    t_q: float
    session: EnvSession | None = None
    parts: list[Part] = field(default_factory=list)  # text + views appended after the frames
    elapsed: float = 0.0  # exploration-stream seconds since t_q
    stranded: bool = False  # the env could not be restored: no more actions


class Explorer:
    """The runner's exploration hook: asks, executes actions, asks again, records the actions."""

    def __init__(self, videos: Path, *, max_steps: int, frame_size: int = 448):
        if max_steps < 0:
            raise InputError(f"--explore-steps must be ≥ 0, got {max_steps}")
        self.videos = Path(videos)
        self.max_steps = max_steps
        self.frame_size = frame_size
        self._metas: OrderedDict[Path, Any] = OrderedDict()  # a few episodes' metadata
        self._lock = threading.Lock()

    def episode_meta(self, video: Path) -> Any:
        """The episode's metadata, read once per video (every frame of a long episode is in
        it; consecutive explorable items of one video share it).  Called from worker threads."""
        from streamspatial.sim.types import load_episode_meta

        with self._lock:
            meta = self._metas.get(video)
        if meta is None:
            meta = load_episode_meta(video)
            with self._lock:
                self._metas[video] = meta
                while len(self._metas) > 4:
                    self._metas.popitem(last=False)
        return meta

    def applies(self, item: Any) -> bool:
        return self.max_steps > 0 and bool(item.explorable)

    def problems(self, adapter: Any, items: list[Any]) -> list[Problem]:
        """Explorable items whose video has no simulator metadata to restore the env from."""
        from streamspatial.sim.types import meta_path_for

        out = []
        for item in items:
            if not item.explorable:
                continue
            meta = meta_path_for(adapter.video_path(item, self.videos))
            if not meta.is_file():
                out.append(
                    Problem(
                        file=str(meta),
                        item_id=item.id,
                        field="explorable",
                        expected="expected the simulator metadata next to the video of an "
                        "explorable item (or run with --explore-steps 0)",
                    )
                )
        return out

    async def run(
        self, adapter: Any, item: Any, query: Any, request: ModelRequest, backend: Any
    ) -> tuple[ModelResponse, list[dict[str, Any]]]:
        """Answer ``request`` with up to ``max_steps`` actions in between.

        Returns the final response (tokens and latency summed over every turn) and the actions,
        one dict each: ``step`` (1, 2, …), ``action`` (+ ``distance`` in m or ``angle`` in °),
        ``time`` (exploration-stream seconds when it ended), ``views`` (frames it produced),
        ``collided``, ``new_objects`` (objects seen for the first time in the episode),
        ``position`` and ``yaw_deg`` after it; or ``error`` when it could not be executed.
        """
        episode = _Episode(adapter.video_path(item, self.videos), float(query.time))
        actions: list[dict[str, Any]] = []
        turns: list[ModelResponse] = []
        current = offer(request, self.max_steps)
        try:
            while True:
                response = await backend.generate(current)
                turns.append(response)
                action = None if response.error else extract_action(response.text)
                if action is None or episode.stranded or len(actions) >= self.max_steps:
                    break
                actions.append(await self._act(episode, action, len(actions) + 1))
                follow = _with(
                    request,
                    (*request.parts[:-1], *episode.parts, request.parts[-1]),
                    episode.t_q + episode.elapsed,
                )
                left = 0 if episode.stranded else self.max_steps - len(actions)
                current = offer(follow, left)
        finally:
            if episode.session is not None:
                await episode.session.close()
        final = turns[-1]
        return (
            ModelResponse(
                text=final.text,
                prompt_tokens=sum(r.prompt_tokens for r in turns),
                completion_tokens=sum(r.completion_tokens for r in turns),
                latency_s=sum(r.latency_s for r in turns),
                error=final.error,
                cached=all(r.cached for r in turns),
            ),
            actions,
        )

    async def _act(self, episode: _Episode, action: dict[str, Any], step: int) -> dict[str, Any]:
        """Execute one action in the episode's env; its record, and its views as prompt parts."""
        entry: dict[str, Any] = {"step": step, **action}
        try:
            if episode.session is None:
                episode.session = EnvSession(
                    episode.video, episode.t_q, self.frame_size, self.episode_meta
                )
                await episode.session.open()
            result = await episode.session.step(action)
        except InputError as exc:
            entry["error"] = str(exc)
            if episode.session is not None and episode.session.start_view is None:
                await episode.session.close()  # the env could not be restored: stop acting
                episode.session, episode.stranded = None, True
            episode.parts.append(
                TextPart(f"Action {_action_text(action)} could not be executed: {exc}")
            )
            return entry
        episode.elapsed = result.elapsed
        entry.update(
            time=round(episode.t_q + result.elapsed, 6),
            views=len(result.views),
            collided=result.collided,
            new_objects=result.new_objects,
            position=[round(v, 4) for v in result.position],
            yaw_deg=result.yaw_deg,
        )
        blocked = " (stopped by an obstacle)" if result.collided else ""
        episode.parts.append(
            TextPart(
                f"Exploration step {step}: {_action_text(action)}{blocked}; "
                f"{result.elapsed:.1f} s after the question. New views:"
            )
        )
        for view in result.views:
            episode.parts.append(TextPart(f"Exploration view at {view.time:.1f} s:"))
            episode.parts.append(view)
        return entry
