"""Dynamic scenes: what moves, switches or changes in a house, as a pure function of time.

A static house is a :class:`~streamspatial.scene.types.House`; a *dynamic* episode adds a
:class:`Schedule`: actors (a person walking through, door leaves, a metronome, props that are
added, removed, moved or carried, a rolling ball) whose pose at any instant is
:meth:`Actor.pose_at`, room lights switched off and on, and the list of :class:`Event` s a
counting or change question is asked about.  The renderer draws ``Schedule.state_at(t)`` for
the frame at time ``t``; question generators read ``events`` and the per-frame actor visibility
(``FrameRecord.dynamic``) up to the query time, never later.

Why a separate contract: actors are not ``House.objects``.  Static families ask about the house's
objects, which never move; everything that moves or changes is an actor with an instance id
from :data:`ACTOR_ID_BASE` on, so no static question can be asked about something that moves,
and no static answer can be changed by an event.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Vec3 = tuple[float, float, float]

ACTOR_ID_BASE = 1000  # actors' instance ids start here; house objects stay below it

ActorKind = Literal["person", "door_leaf", "pendulum", "prop", "ball"]
EventKind = Literal[
    "door_open",  # a door leaf swings open (E1-Action): instantaneous, < 1 s
    "door_close",  # a door leaf swings shut (E1-Action)
    "light_off",  # a room's lights go off (E1-Transit): a hard state change
    "light_on",  # a room's lights come on (E1-Transit)
    "cycle",  # one complete swing cycle of a pendulum (E2-Periodic)
    "episode",  # the person walks into view and out again, or across a room (E2-Episode)
    "added",  # a prop appears on a surface while the camera is away
    "removed",  # a prop disappears from a surface while the camera is away
    "moved",  # a prop is moved to another place while the camera is away
    "carried",  # a prop is carried from one place to another in view
    "motion",  # an actor moves in view along one straight leg (OVO-S 1.3.3-1.3.5)
    "unchanged",  # nothing on a surface changed while the camera looked away (subject: surface)
]


def _r(x: float, nd: int = 4) -> float:
    return round(float(x), nd)


@dataclass(frozen=True)
class Waypoint:
    """An actor's state at one instant; between waypoints the state is interpolated linearly
    (position, yaw and ``angle``); ``present`` holds from this waypoint to the next one."""

    time: float
    position: Vec3
    yaw: float = 0.0
    present: bool = True
    angle: float = 0.0  # hinge angle (rad): a door leaf's opening, 0 = shut

    def to_list(self) -> list[Any]:
        x, y, z = self.position
        t, yaw, angle = _r(self.time, 5), _r(self.yaw, 5), _r(self.angle, 5)
        return [t, _r(x), _r(y), _r(z), yaw, self.present, angle]

    @classmethod
    def from_list(cls, v: list[Any]) -> Waypoint:
        pos = (float(v[1]), float(v[2]), float(v[3]))
        return cls(float(v[0]), pos, float(v[4]), bool(v[5]), float(v[6]))


@dataclass(frozen=True)
class Swing:
    """A pendulum swinging between ``start`` and ``end``.

    ``angle = amplitude·sin(2π(t−start)/period)``.

    A cycle is complete when the bob is back where it started, moving the same way: at
    ``start + k·period``.
    """

    start: float
    end: float
    period: float
    amplitude: float = 0.35

    def angle_at(self, t: float) -> float:
        if t <= self.start or t >= self.end:
            return 0.0
        return self.amplitude * math.sin(2 * math.pi * (t - self.start) / self.period)

    def to_list(self) -> list[float]:
        return [_r(self.start, 5), _r(self.end, 5), _r(self.period, 5), _r(self.amplitude, 5)]

    @classmethod
    def from_list(cls, v: list[Any]) -> Swing:
        return cls(float(v[0]), float(v[1]), float(v[2]), float(v[3]))


@dataclass(frozen=True)
class ActorPose:
    position: Vec3
    yaw: float
    present: bool
    angle: float


@dataclass(frozen=True)
class Actor:
    """One dynamic body.  ``category`` and ``color`` are the words questions use for it."""

    actor_id: int
    kind: ActorKind
    category: str
    color: str
    size: Vec3  # full extents (m) along the actor's local axes, like ``SceneObject.size``
    track: tuple[Waypoint, ...]  # sorted by time, at least one
    swings: tuple[Swing, ...] = ()  # pendulums only
    door_id: int = -1  # door leaves only: the door the leaf hangs in
    model: str = ""  # catalogue model key, "" for primitive geometry

    def __post_init__(self) -> None:
        if self.actor_id < ACTOR_ID_BASE:
            raise ValueError(f"actor ids start at {ACTOR_ID_BASE}, got {self.actor_id}")
        if not self.track:
            raise ValueError(f"actor {self.actor_id} has no waypoint")

    def pose_at(self, t: float) -> ActorPose:
        """The actor's pose at time ``t``: a pure function of the track and the swings."""
        tr = self.track
        i = bisect.bisect_right([w.time for w in tr], t) - 1
        if i < 0:
            w = tr[0]
            pose = ActorPose(w.position, w.yaw, w.present, w.angle)
        elif i >= len(tr) - 1:
            w = tr[-1]
            pose = ActorPose(w.position, w.yaw, w.present, w.angle)
        else:
            a, b = tr[i], tr[i + 1]
            span = b.time - a.time
            u = 0.0 if span <= 0 else (t - a.time) / span
            pos = tuple(pa + (pb - pa) * u for pa, pb in zip(a.position, b.position, strict=True))
            dyaw = math.atan2(math.sin(b.yaw - a.yaw), math.cos(b.yaw - a.yaw))
            pose = ActorPose(pos, a.yaw + dyaw * u, a.present, a.angle + (b.angle - a.angle) * u)  # type: ignore[arg-type]
        for s in self.swings:
            if s.start < t < s.end:
                return ActorPose(pose.position, pose.yaw, pose.present, s.angle_at(t))
        return pose

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.actor_id,
            "kind": self.kind,
            "category": self.category,
            "color": self.color,
            "size": [_r(v) for v in self.size],
            "track": [w.to_list() for w in self.track],
        }
        if self.swings:
            d["swings"] = [s.to_list() for s in self.swings]
        if self.door_id >= 0:
            d["door"] = self.door_id
        if self.model:
            d["model"] = self.model
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Actor:
        return cls(
            actor_id=int(d["id"]),
            kind=d["kind"],
            category=str(d["category"]),
            color=str(d["color"]),
            size=tuple(float(v) for v in d["size"]),  # type: ignore[arg-type]
            track=tuple(Waypoint.from_list(w) for w in d["track"]),
            swings=tuple(Swing.from_list(s) for s in d.get("swings", [])),
            door_id=int(d.get("door", -1)),
            model=str(d.get("model", "")),
        )


@dataclass(frozen=True)
class LightSwitch:
    """Room ``room_id``'s lights go ``on`` (True) or off (False) at ``time`` (a hard cut)."""

    time: float
    room_id: int
    on: bool

    def to_list(self) -> list[Any]:
        return [_r(self.time, 5), self.room_id, self.on]

    @classmethod
    def from_list(cls, v: list[Any]) -> LightSwitch:
        return cls(float(v[0]), int(v[1]), bool(v[2]))


@dataclass(frozen=True)
class Event:
    """One countable or comparable happening: the ground truth of an event question.

    ``start``/``end`` bound it in time (an instantaneous event has ``end - start`` < 1 s); an
    event counts at a query time ``t_q`` once ``end <= t_q``.  ``subject`` is the actor id
    (or, for lights, the room id); ``room_id`` is where it happens; ``detail`` holds what a
    generator needs to word options (``{"from": [x, y, z], "to": [...], "surface": id}`` …).
    """

    kind: EventKind
    start: float
    end: float
    subject: int
    room_id: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": self.kind,
            "start": _r(self.start, 5),
            "end": _r(self.end, 5),
            "subject": self.subject,
            "room": self.room_id,
        }
        if self.detail:
            d["detail"] = dict(self.detail)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Event:
        return cls(
            kind=d["kind"],
            start=float(d["start"]),
            end=float(d["end"]),
            subject=int(d["subject"]),
            room_id=None if d.get("room") is None else int(d["room"]),
            detail=dict(d.get("detail", {})),
        )


@dataclass(frozen=True)
class SceneState:
    """Everything dynamic at one instant, as the renderer draws it."""

    time: float
    actors: Mapping[int, ActorPose]
    lights_off: frozenset[int]  # rooms whose lights are off


@dataclass(frozen=True)
class Schedule:
    """The dynamic part of an episode; a pure function of time (:meth:`state_at`)."""

    actors: tuple[Actor, ...] = ()
    switches: tuple[LightSwitch, ...] = ()  # sorted by time
    events: tuple[Event, ...] = ()  # sorted by end time

    def __post_init__(self) -> None:
        ids = [a.actor_id for a in self.actors]
        if len(set(ids)) != len(ids):
            raise ValueError("actor ids repeat in a schedule")

    @property
    def empty(self) -> bool:
        return not (self.actors or self.switches or self.events)

    def actor(self, actor_id: int) -> Actor:
        for a in self.actors:
            if a.actor_id == actor_id:
                return a
        raise KeyError(actor_id)

    def lights_off_at(self, t: float) -> frozenset[int]:
        off: set[int] = set()
        for s in self.switches:
            if s.time > t:
                break
            (off.discard if s.on else off.add)(s.room_id)
        return frozenset(off)

    def state_at(self, t: float) -> SceneState:
        return SceneState(
            time=t,
            actors={a.actor_id: a.pose_at(t) for a in self.actors},
            lights_off=self.lights_off_at(t),
        )

    def events_until(self, t: float, kinds: Iterable[str] | None = None) -> list[Event]:
        """The events complete at or before ``t`` (``end <= t``), optionally of some kinds."""
        want = None if kinds is None else set(kinds)
        return [e for e in self.events if e.end <= t and (want is None or e.kind in want)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "actors": [a.to_dict() for a in self.actors],
            "switches": [s.to_list() for s in self.switches],
            "events": [e.to_dict() for e in self.events],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Schedule:
        return cls(
            actors=tuple(Actor.from_dict(a) for a in d.get("actors", [])),
            switches=tuple(LightSwitch.from_list(s) for s in d.get("switches", [])),
            events=tuple(Event.from_dict(e) for e in d.get("events", [])),
        )


__all__ = [
    "ACTOR_ID_BASE",
    "Actor",
    "ActorPose",
    "Event",
    "LightSwitch",
    "SceneState",
    "Schedule",
    "Swing",
    "Waypoint",
]
