"""The causal view question generators work from: an episode cut at its query frame.

Every answer must be computable from what the camera had seen by the query time t_q and
nothing later.  Rather than trusting each generator to index carefully, generators never get
the episode at all: they get a :class:`Prefix`, which copies only ``frames[: k + 1]``.  The
house (rooms, doors, object boxes) is static ground truth and is shared; *which* of its objects
and rooms a question may mention is decided from the prefix's visibility alone.

Query times sit half a frame after the last frame shown (``t_q = (k + ½) / fps``): the frame at
``k / fps`` is part of the prefix, the next one at ``(k + 1) / fps`` is not, whichever way a
video reader rounds, and evidence intervals (which end at a frame time ≤ ``k / fps``) lie
strictly before ``t_q`` as the schema demands.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from streamspatial.core.geometry import wrap_pi
from streamspatial.scene.camera import min_pixels_for
from streamspatial.scene.schedule import Actor, ActorPose, Event
from streamspatial.scene.types import EpisodeMeta, FrameRecord, House, SceneObject


def query_time(k: int, fps: float) -> float:
    """The query time that shows frames ``0..k`` and nothing after."""
    return round((k + 0.5) / fps, 4)


@dataclass(frozen=True)
class Run:
    """A maximal stretch of consecutive prefix frames (indexes ``start..end`` inclusive)."""

    key: int
    start: int
    end: int


class Prefix:
    """An episode as it stood at query frame ``k``: house, intrinsics and frames ``0..k``."""

    def __init__(self, meta: EpisodeMeta, k: int, *, min_pixels: int | None = None):
        if not 0 <= k < len(meta.frames):
            raise ValueError(f"query frame {k} outside the episode's {len(meta.frames)} frames")
        self.house: House = meta.house
        self.fps = meta.fps
        self.intrinsics = meta.intrinsics
        self.video = meta.video
        self.k = k
        self.frames: tuple[FrameRecord, ...] = tuple(meta.frames[: k + 1])
        self.min_pixels = (
            min_pixels
            if min_pixels is not None
            else min_pixels_for(meta.intrinsics.width, meta.intrinsics.height)
        )
        self._objects = {o.instance_id: o for o in meta.house.objects}
        self._rooms = {r.room_id: r for r in meta.house.rooms}
        self._schedule = meta.schedule

    # -- time ------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        return query_time(self.k, self.fps)

    def t(self, i: int) -> float:
        """Time of prefix frame ``i`` (seconds)."""
        return round(i / self.fps, 4)

    def frames_back(self, seconds: float) -> int:
        return round(seconds * self.fps)

    @property
    def now(self) -> FrameRecord:
        return self.frames[-1]

    # -- objects ---------------------------------------------------------------------------
    def obj(self, instance_id: int) -> SceneObject:
        return self._objects[instance_id]

    def room_name(self, room_id: int) -> str:
        return self._rooms[room_id].name

    def seen_ids(self, frame: FrameRecord) -> set[int]:
        return frame.visible_ids(self.min_pixels)

    @cached_property
    def first_seen(self) -> dict[int, int]:
        """Instance id → first prefix frame it had ≥ ``min_pixels`` in (insertion = seen order)."""
        out: dict[int, int] = {}
        for i, f in enumerate(self.frames):
            for v in f.visible:
                if v.pixels >= self.min_pixels and v.instance_id not in out:
                    out[v.instance_id] = i
        return out

    @cached_property
    def last_seen(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for i, f in enumerate(self.frames):
            for v in f.visible:
                if v.pixels >= self.min_pixels:
                    out[v.instance_id] = i
        return out

    @property
    def seen(self) -> list[int]:
        """Every instance seen so far, in order of first sight."""
        return list(self.first_seen)

    @cached_property
    def visible_now(self) -> set[int]:
        return self.seen_ids(self.now)

    def visible_runs(self, instance_id: int) -> list[Run]:
        """Stretches of frames in which the instance counted as seen."""
        idx = [i for i, f in enumerate(self.frames) if instance_id in self.seen_ids(f)]
        return runs_of(instance_id, idx)

    # -- dynamic episodes (scene.schedule): only what has happened by the query time ------------
    @property
    def dynamic(self) -> bool:
        return self._schedule is not None and not self._schedule.empty

    @property
    def actors(self) -> tuple[Actor, ...]:
        """The schedule's actors (names and kinds; their tracks hold the future too)."""
        return () if self._schedule is None else self._schedule.actors

    def actor(self, actor_id: int) -> Actor:
        """An actor of the schedule (its category, colour, size; its track is the future too:
        read poses through :meth:`actor_pose` with a prefix frame)."""
        if self._schedule is None:
            raise KeyError(actor_id)
        return self._schedule.actor(actor_id)

    def actor_pose(self, actor_id: int, i: int = -1) -> ActorPose:
        """Where an actor was at prefix frame ``i`` (never later than the query frame)."""
        i = i if i >= 0 else len(self.frames) + i
        if not 0 <= i < len(self.frames):
            raise IndexError(f"frame {i} is not in the prefix")
        return self.actor(actor_id).pose_at(self.t(i))

    def events(self, kinds: Iterable[str] | None = None) -> list[Event]:
        """The schedule's events complete by the query time (``end <= t_q``)."""
        if self._schedule is None:
            return []
        return self._schedule.events_until(self.time, kinds)

    def dynamic_seen(self, frame: FrameRecord) -> set[int]:
        return frame.dynamic_ids(self.min_pixels)

    def dynamic_runs(self, actor_id: int) -> list[Run]:
        """Stretches of prefix frames in which the actor counted as seen."""
        idx = [i for i, f in enumerate(self.frames) if actor_id in self.dynamic_seen(f)]
        return runs_of(actor_id, idx)

    def evidence(
        self, instance_ids: Iterable[int], *, limit: int = 8
    ) -> tuple[tuple[float, float], ...]:
        """When the referenced objects were on screen: merged intervals, the latest ``limit``."""
        frames_idx: set[int] = set()
        wanted = set(instance_ids)
        for i, f in enumerate(self.frames):
            if wanted & self.seen_ids(f):
                frames_idx.add(i)
        return self.spans(sorted(frames_idx), limit=limit)

    def spans(
        self, frame_indexes: Iterable[int], *, limit: int = 8
    ) -> tuple[tuple[float, float], ...]:
        runs = runs_of(0, sorted(frame_indexes))
        return tuple((self.t(r.start), self.t(r.end)) for r in runs[-limit:])

    # -- rooms and the camera --------------------------------------------------------------
    @cached_property
    def room_runs(self) -> list[Run]:
        """The rooms the camera stood in, as consecutive stays (frames outside rooms skipped)."""
        out: list[Run] = []
        for i, f in enumerate(self.frames):
            if f.room_id is None:
                continue
            if out and out[-1].key == f.room_id and out[-1].end == i - 1:
                out[-1] = Run(f.room_id, out[-1].start, i)
            elif out and out[-1].key == f.room_id:
                # a frame on a wall line between two stays in the same room: one stay
                out[-1] = Run(f.room_id, out[-1].start, i)
            else:
                out.append(Run(f.room_id, i, i))
        return out

    @property
    def visited_rooms(self) -> list[int]:
        """Rooms the camera has stood in, in order of first entry."""
        out: list[int] = []
        for r in self.room_runs:
            if r.key not in out:
                out.append(r.key)
        return out

    @cached_property
    def walked_edges(self) -> set[frozenset[int]]:
        """Room pairs the camera walked between directly (the explored door graph)."""
        runs = self.room_runs
        return {frozenset((a.key, b.key)) for a, b in itertools.pairwise(runs)}

    @property
    def current_room(self) -> int | None:
        return self.now.room_id

    def camera_xy(self, i: int = -1) -> tuple[float, float]:
        p = self.frames[i].pose.position
        return (p[0], p[1])

    def cam_distance(self, instance_id: int, i: int = -1) -> float:
        """Euclidean distance from the camera eye at frame ``i`` to the object's box centre."""
        return math.dist(self.frames[i].pose.position, self.obj(instance_id).position)

    def bearing(self, instance_id: int, i: int = -1) -> float:
        """Angle of the object's centre from the camera heading (rad, + = to the left)."""
        pose = self.frames[i].pose
        o = self.obj(instance_id).position
        az = math.atan2(o[1] - pose.position[1], o[0] - pose.position[0])
        return wrap_pi(az - pose.yaw)


def object_distance(a: SceneObject, b: SceneObject) -> float:
    return math.dist(a.position, b.position)


def runs_of(key: int, idx: list[int]) -> list[Run]:
    """The runs of consecutive frame indexes in ``idx`` (sorted), each tagged ``key``."""
    out: list[Run] = []
    for i in idx:
        if out and out[-1].end == i - 1:
            out[-1] = Run(key, out[-1].start, i)
        else:
            out.append(Run(key, i, i))
    return out
