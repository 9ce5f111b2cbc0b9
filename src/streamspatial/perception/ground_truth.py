"""Ground-truth perception from the simulator's per-frame metadata.

The simulator knows, for every rendered frame, the camera pose, the room the camera stands in
and which object instances are visible after occlusion (with pixel counts, boxes and depth).
Turning that into :class:`Observation` s gives the memory agents *oracle perception*: the
upper bound of what a scene-graph memory can do, and — through :class:`NoiseModel` — the
same pipeline with controlled errors.  The provider reads only frame records up to the stream
time (the base class enforces it); the house is static scene geometry, used only to give each
visible instance its box centre, label and colour, as a detector + depth would.
"""

from __future__ import annotations

import math

import numpy as np

from streamspatial.perception.noise import NoiseModel, NoiseState, PrefixVocabulary
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.perception.types import CameraIntrinsics, Detection, EgoPose, Observation
from streamspatial.scene.camera import min_pixels_for
from streamspatial.scene.types import EpisodeMeta, FrameRecord


def label_of(category: str) -> str:
    """Detector-style label of a simulator category: ``coffee_table`` → ``coffee table``."""
    return category.replace("_", " ")


def room_shape(room) -> dict:
    """The room the camera stands in as a layout estimator would report it: its name (unique
    in the house, "bedroom 2"), floor polygon and floor area."""
    return {
        "name": room.name,
        "polygon": [tuple(map(float, q)) for q in room.polygon],
        "area": float(room.area),
    }


class SimGroundTruth(PerceptionProvider):
    """Oracle (optionally noisy) perception over one rendered simulator episode."""

    name = "ground-truth"
    stable_tracks = True  # instance ids from annotations
    needs_images = False

    def __init__(
        self,
        meta: EpisodeMeta,
        *,
        noise: NoiseModel | None = None,
        key: str = "",
        min_pixels: int | None = None,
    ):
        super().__init__(meta.fps, len(meta.frames))
        self.meta = meta
        i = meta.intrinsics
        self.intrinsics = CameraIntrinsics(i.width, i.height, i.fx, i.fy, i.cx, i.cy)
        self.min_pixels = min_pixels_for(i.width, i.height) if min_pixels is None else min_pixels
        self.noise = noise or NoiseModel()
        self._objects = {o.instance_id: o for o in meta.house.objects}
        # box extents along the world axes (what a 3D detector reports), not the model's own
        self._extent = {
            o.instance_id: tuple(float(b - a) for a, b in zip(*o.aabb(), strict=True))
            for o in meta.house.objects
        }
        # Scene tags are the rooms' names, unique in the house ("bedroom 2"), as questions name
        # them; the room's floor plan comes with it (a layout estimator's output).
        self._rooms = {r.room_id: r.name for r in meta.house.rooms}
        self._shapes = {r.room_id: room_shape(r) for r in meta.house.rooms}
        # The question parser's vocabulary (a detector's classes); noise never draws from it.
        self.labels = sorted({label_of(o.category) for o in meta.house.objects})
        self.attributes = sorted({o.color for o in meta.house.objects})
        self._vocabulary = PrefixVocabulary(self._seen(rec) for rec in meta.frames)
        self._state = NoiseState(
            self.noise, key or meta.video or meta.house.house_id, hfov=math.radians(i.hfov_deg)
        )

    def _seen(self, rec: FrameRecord) -> tuple[list[str], list[str]]:
        """Labels and colours of the instances visible in one frame record."""
        objs = [
            self._objects[v.instance_id]
            for v in rec.visible
            if v.pixels >= self.min_pixels and v.instance_id in self._objects
        ]
        return [label_of(o.category) for o in objs], [o.color for o in objs]

    def _actor_detections(self, rec: FrameRecord, time: float):
        """(detection, hinge angle) of each actor seen in ``rec``, posed at ``time``."""
        sched = self.meta.schedule
        assert sched is not None
        for v in rec.dynamic:
            if v.pixels < self.min_pixels:
                continue
            actor = sched.actor(v.instance_id)
            yield _actor_detection(actor, actor.pose_at(rec.pose.time), v)

    def _reset_state(self) -> None:
        self._state.reset()

    def _observe(self, index: int, time: float, image: np.ndarray | None) -> Observation:
        return self.observation_of(self.meta.frames[index], index, time)

    def observation_of(self, rec, index: int, time: float) -> Observation:
        """What this provider perceives in one ground-truth frame record: a video frame's, or
        an exploration view's (rendered in the same house, after t_q)."""
        p = rec.pose
        pose = EgoPose(time, p.position, p.yaw, p.pitch)
        dets = []
        for v in rec.visible:
            if v.pixels < self.min_pixels:
                continue
            o = self._objects.get(v.instance_id)
            if o is None:
                continue
            extent = self._extent[o.instance_id]
            dets.append(_detection(o.category, o.position, o.instance_id, o.color, v, extent))
        scene = self._rooms.get(rec.room_id) if rec.room_id is not None else None
        extra: dict[str, object] = (
            {"room": self._shapes[rec.room_id]} if rec.room_id is not None else {}
        )
        if self.meta.schedule is not None:
            # What moves is kept out of ``detections`` (the static scene graph): a tracker's
            # dynamic tracks, with the hinge angle a pose estimator reads off a door leaf or a
            # pendulum, and whether the room's lights are on (the frame's brightness).
            extra["dynamic"] = tuple(self._actor_detections(rec, time))
            extra["lit"] = rec.lit
        obs = Observation(
            index=index, time=time, pose=pose, detections=tuple(dets), scene=scene, extra=extra
        )
        # exploration views come after the last video frame: its vocabulary still applies
        return self._state.apply(obs, *self._vocabulary.at(min(index, len(self.meta.frames) - 1)))


def _detection(category: str, position, track_id: int, color: str, v, size) -> Detection:
    """What a perfect detector reports of one visible object or actor ``v``."""
    return Detection(
        label=label_of(category),
        position=position,
        track_id=track_id,
        score=1.0,
        attributes=(color,),
        bbox=v.bbox,
        visibility=float(v.pixels),
        depth=v.mean_depth,
        size=size,
    )


def _actor_detection(actor, pose, v) -> tuple[Detection, float]:
    return (
        _detection(actor.category, pose.position, actor.actor_id, actor.color, v, actor.size),
        pose.angle,
    )
