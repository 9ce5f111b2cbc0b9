"""What moved, switched or changed as the stream showed it: the memory's dynamic log.

The static scene graph holds objects that stay put.  Things that move (a person walking
through, a door leaf swinging, a pendulum, props that are carried, added or removed) are
perceived as dynamic tracks (``Observation.extra["dynamic"]``: a detection and the hinge angle
a pose estimator reads off it) and the room's brightness as ``extra["lit"]``.  Counting rules
(doors opened, lights switched, pendulum cycles, people passing) and motion or change rules
read this log; it holds only frames that showed something dynamic or changed the lighting, so
a static stream adds nothing to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from streamspatial.perception.types import Detection, EgoPose, Observation


@dataclass(frozen=True)
class ActorSighting:
    """One dynamic track seen in one frame."""

    track_id: int
    label: str
    color: str
    position: tuple[float, float, float]
    angle: float  # hinge angle (door leaf opening, pendulum swing), 0 when none
    bbox: tuple[int, int, int, int] | None
    depth: float | None


@dataclass(frozen=True)
class DynamicFrame:
    index: int
    time: float
    pose: EgoPose
    scene: str | None
    lit: bool
    actors: tuple[ActorSighting, ...]

    def sighting(self, track_id: int) -> ActorSighting | None:
        for a in self.actors:
            if a.track_id == track_id:
                return a
        return None


def _sighting(det: Detection, angle: float) -> ActorSighting:
    return ActorSighting(
        track_id=-1 if det.track_id is None else det.track_id,
        label=det.label,
        color=det.attributes[0] if det.attributes else "",
        position=tuple(float(v) for v in det.position),  # type: ignore[arg-type]
        angle=float(angle),
        bbox=det.bbox,
        depth=det.depth,
    )


class DynamicLog:
    """Frames of a dynamic stream, in time order (append-only, causal by construction)."""

    def __init__(self) -> None:
        self.frames: list[DynamicFrame] = []
        self._lit: bool | None = None

    def ingest(self, obs: Observation) -> None:
        extra = obs.extra or {}
        if "dynamic" not in extra and "lit" not in extra:
            return  # a static episode's frame
        lit = bool(extra.get("lit", True))
        actors = tuple(_sighting(d, a) for d, a in extra.get("dynamic", ()))  # type: ignore[union-attr]
        if not actors and lit == self._lit:
            self._lit = lit
            return
        self._lit = lit
        self.frames.append(DynamicFrame(obs.index, obs.time, obs.pose, obs.scene, lit, actors))

    def __bool__(self) -> bool:
        return bool(self.frames)

    def until(self, t: float) -> Iterator[DynamicFrame]:
        for f in self.frames:
            if f.time > t + 1e-9:
                return
            yield f

    def tracks(self) -> dict[int, list[tuple[DynamicFrame, ActorSighting]]]:
        """Every dynamic track id → its sightings, in time order."""
        out: dict[int, list[tuple[DynamicFrame, ActorSighting]]] = {}
        for f in self.frames:
            for a in f.actors:
                out.setdefault(a.track_id, []).append((f, a))
        return out


__all__ = ["ActorSighting", "DynamicFrame", "DynamicLog"]
