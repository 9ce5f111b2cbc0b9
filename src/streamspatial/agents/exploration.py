"""Active exploration (S3-Bench §4.3): an agent may act in an environment before it answers.

For an item marked ``explorable``, the answer request is offered the S3 action space.  When
the model replies with a JSON action instead of an answer, the explorer restores the item's
environment to the camera pose recorded at t_q, executes the action, appends the views it
produced and asks again, up to ``max_steps`` actions.

The environment is reached through :class:`ExplorationWorld`, an interface this module
defines and the simulator implements (``streamspatial.sim.explore.world.EpisodeWorld``); the
agents never import the simulator, and a different world (a real robot, another renderer)
plugs in the same way.

Time and causality: the video stops at t_q.  Exploration views form a second stream that starts
at t_q and advances by the time each action takes (walking and turning speeds of the
environment's camera), so a follow-up request is asked at ``t_q + elapsed``; it carries the
very same video frames as the first request (all ≤ t_q) plus rendered views, never a video
frame from after t_q.  The scene is static content, the pose is the one recorded at t_q.

Every action taken is stored with the prediction, in ``Record.actions`` (see
:func:`Explorer.run` for the fields).  A GL context belongs to the thread that made it, so one
episode's environment lives in one worker thread of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import InputError, Problem
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.extract import extract_action
from streamspatial.models.types import (
    Backend,
    ImagePart,
    ModelRequest,
    ModelResponse,
    Part,
    TextPart,
)


class StepOutcome(Protocol):
    """What one executed action produced in an environment."""

    views: Sequence[tuple[float, np.ndarray]]  # (seconds since t_q, RGB frame), in order
    elapsed: float  # seconds since t_q when the action ended
    collided: bool
    new_objects: int  # objects seen for the first time in the episode
    position: tuple[float, float]
    yaw_deg: float


class ExplorationEnv(Protocol):
    """One episode's environment, restored to the pose recorded at t_q.  Its calls block and
    must all come from one thread (the explorer gives each episode its own)."""

    start_view: np.ndarray  # the RGB frame at the restored pose

    def step(self, action: Mapping[str, Any]) -> StepOutcome:
        """Execute one action; :class:`InputError` for one the environment cannot do."""
        ...

    def close(self) -> None: ...


class ExplorationWorld(Protocol):
    """Where explorable items' environments come from."""

    def episode_file(self, video: Path) -> Path:
        """The file an item's environment is restored from (next to its video)."""
        ...

    def restore(self, video: Path, t_q: float) -> ExplorationEnv:
        """The environment of ``video``'s episode at the pose recorded at ``t_q``;
        :class:`InputError` when it cannot be restored there."""
        ...


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
    """One executed action's views as request parts (JPEG, exploration-stream times)."""

    views: tuple[ImagePart, ...]
    outcome: StepOutcome


class EnvSession:
    """One exploration episode: its environment, in a worker thread of its own."""

    def __init__(self, world: ExplorationWorld, video: Path, t_q: float, frame_size: int):
        self.world = world
        self.video = video
        self.t_q = t_q
        self.frame_size = frame_size
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explore")
        self._env: ExplorationEnv | None = None
        self.start_view: np.ndarray | None = None  # the RGB frame at the restored pose

    async def _call(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def open(self) -> None:
        self._env = await self._call(self.world.restore, self.video, self.t_q)
        self.start_view = self._env.start_view

    async def step(self, action: Mapping[str, Any]) -> StepResult:
        assert self._env is not None, "open() first"
        outcome: StepOutcome = await self._call(self._env.step, action)
        from streamspatial.video.cache import ResizeSpec, encode_jpeg

        spec = ResizeSpec(short_side=self.frame_size)
        views = tuple(
            ImagePart(jpeg=encode_jpeg(rgb, spec), time=round(self.t_q + t, 6), record=rec)
            for (t, rgb), rec in zip(
                outcome.views,
                getattr(outcome, "records", ()) or [None] * len(outcome.views),
                strict=True,
            )
        )
        return StepResult(views, outcome)

    async def close(self) -> None:
        if self._env is not None:
            await self._call(self._env.close)
        self._pool.shutdown(wait=False)


def offer_note(left: int) -> str:
    """What is said just before the question: the action space with ``left`` actions, or that
    none are left."""
    return OFFER.format(left=left) if left > 0 else ANSWER_NOW


def step_note(step: int, action: Mapping[str, Any], elapsed: float, collided: bool) -> str:
    """The line before an executed action's views (``elapsed``: seconds since t_q)."""
    blocked = " (stopped by an obstacle)" if collided else ""
    return (
        f"Exploration step {step}: {_action_text(action)}{blocked}; "
        f"{elapsed:.1f} s after the question. New views:"
    )


def view_caption(time: float) -> str:
    """The caption before one exploration view (``time``: exploration-stream seconds)."""
    return f"Exploration view at {time:.1f} s:"


def offer(request: ModelRequest, left: int) -> ModelRequest:
    """The request with the action space offered just before its question (the last part)."""
    parts = (*request.parts[:-1], TextPart(offer_note(left)), request.parts[-1])
    return _with(request, parts, request.query_time)


def _with(request: ModelRequest, parts: tuple[Part, ...], query_time: float) -> ModelRequest:
    """The request with other parts, asked at ``query_time``; everything else as it was."""
    return replace(request, parts=parts, query_time=query_time)


def _action_text(action: Mapping[str, Any]) -> str:
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

    def __init__(self, world: ExplorationWorld, *, max_steps: int, frame_size: int = 448):
        if max_steps < 0:
            raise InputError(f"--explore-steps must be ≥ 0, got {max_steps}")
        self.world = world
        self.max_steps = max_steps
        self.frame_size = frame_size

    def applies(self, item: Item) -> bool:
        return self.max_steps > 0 and item.explorable

    def problems(
        self, adapter: BenchmarkAdapter, items: Sequence[Item], videos: Path
    ) -> list[Problem]:
        """Explorable items whose video has no episode file to restore the environment from."""
        out = []
        for item in items:
            if not item.explorable:
                continue
            needed = self.world.episode_file(adapter.video_path(item, videos))
            if not needed.is_file():
                out.append(
                    Problem(
                        file=str(needed),
                        item_id=item.id,
                        field="explorable",
                        expected="expected the simulator metadata next to the video of an "
                        "explorable item (or run with --explore-steps 0)",
                    )
                )
        return out

    async def run(
        self, video: Path, query: QueryPoint, request: ModelRequest, backend: Backend
    ) -> tuple[ModelResponse, list[dict[str, Any]]]:
        """Answer ``request`` with up to ``max_steps`` actions in between.

        Returns the final response (tokens and latency summed over every turn) and the actions,
        one dict each: ``step`` (1, 2, …), ``action`` (+ ``distance`` in m or ``angle`` in °),
        ``time`` (exploration-stream seconds when it ended), ``views`` (frames it produced),
        ``collided``, ``new_objects`` (objects seen for the first time in the episode),
        ``position`` and ``yaw_deg`` after it; or ``error`` when it could not be executed.
        """
        episode = _Episode(video, float(query.time))
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
                    self.world, episode.video, episode.t_q, self.frame_size
                )
                await episode.session.open()
            result = await episode.session.step(action)
            outcome = result.outcome
        except InputError as exc:
            entry["error"] = str(exc)
            if episode.session is not None and episode.session.start_view is None:
                await episode.session.close()  # the env could not be restored: stop acting
                episode.session, episode.stranded = None, True
            episode.parts.append(
                TextPart(f"Action {_action_text(action)} could not be executed: {exc}")
            )
            return entry
        episode.elapsed = outcome.elapsed
        entry.update(
            time=round(episode.t_q + outcome.elapsed, 6),
            views=len(result.views),
            collided=outcome.collided,
            new_objects=outcome.new_objects,
            position=[round(v, 4) for v in outcome.position],
            yaw_deg=outcome.yaw_deg,
        )
        episode.parts.append(TextPart(step_note(step, action, outcome.elapsed, outcome.collided)))
        for view in result.views:
            episode.parts.append(TextPart(view_caption(view.time)))
            episode.parts.append(view)
        return entry
