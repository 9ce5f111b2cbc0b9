"""``fold`` examples: the memory ground truth supports at each fold point of a walk, from the
prefix alone.

AMF-VLM's folding module learns to write a compact memory of entities, attributes and spatial
relations (S3-Bench §4.2).  Here the target is computed, not written by a model: the walk's
ground-truth perception (:class:`~streamspatial.perception.ground_truth.SimGroundTruth`, what
``--perception ground-truth`` reads: the simulator's per-frame visibility, at the question
generators' pixel threshold) is streamed up to each fold time t = K, 2K, … and nothing later
(the provider refuses a later frame).  Every object it has reported by t enters the memory with
its category, colour, material and room, its position relative to the camera at t and to its
nearest remembered neighbours, and the changes since the previous fold; an object not yet seen
cannot enter it.  The layout is :mod:`streamspatial.agents.fold_memory`'s, bounded the same
way, and the example's request is the folding agent's own JSON fold request (the dense window's
frames, the previous memory, the instruction), with the previous fold's target as the previous
memory (teacher forcing).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from streamspatial.agents import fold_memory as fm
from streamspatial.agents.contract import FOLD_EVERY_S
from streamspatial.agents.folding import fold_window
from streamspatial.agents.model_memory import AMF_SYSTEM
from streamspatial.core.geometry import wrap_pi
from streamspatial.perception.ground_truth import SimGroundTruth, label_of
from streamspatial.perception.types import EgoPose, Observation
from streamspatial.scene.types import EpisodeMeta

from .records import Message, TrainingExample

WINDOW_S = 10.0  # the dense window a fold summarises (FoldingAgent.window_s)
DENSE_FPS = 1.0  # its frame rate (FoldingAgent.dense_fps)
MOVED_M = 0.3  # a thing whose observed position shifts this much has moved
ROUND_M = 1  # decimals of metres in a target (10 cm)
ROUND_S = 1  # decimals of seconds


@dataclass
class _Tracked:
    """One object as the memory knows it (``key``: instance or actor id)."""

    key: int
    id: int  # memory id: order of first sight, from 1
    category: str
    color: str | None
    material: str | None
    room: str | None
    first: float
    last: float
    position: tuple[float, float, float]
    moving: bool = False
    anchor: tuple[float, float, float] | None = None  # where it was at the previous fold


@dataclass
class FoldTarget:
    """The memory at one fold time, with the ground-truth ids behind its memory ids."""

    time: float
    memory: fm.FoldMemory
    keys: dict[int, int]  # memory id → instance id (house objects) or actor id
    frames: list[float]  # the dense window's frame times, (t − W, t]


@dataclass
class _State:
    objects: dict[int, _Tracked] = field(default_factory=dict)
    rooms: list[str] = field(default_factory=list)
    room: str | None = None
    pose: EgoPose | None = None
    start: EgoPose | None = None  # the walk's first pose: what the first fold's changes start from
    entered: list[str] = field(default_factory=list)
    moved: set[int] = field(default_factory=set)


def fold_times(meta: EpisodeMeta, fold_every: float = FOLD_EVERY_S) -> list[float]:
    """K, 2K, … up to the walk's last frame: where the folding agent folds."""
    last = (len(meta.frames) - 1) / meta.fps
    return [round(j * fold_every, 6) for j in range(1, math.floor(last / fold_every + 1e-9) + 1)]


def fold_targets(
    meta: EpisodeMeta,
    *,
    fold_every: float = FOLD_EVERY_S,
    chars: int = fm.JSON_MEMORY_CHARS,
) -> Iterator[FoldTarget]:
    """The memory target at every fold time of ``meta``'s walk, in time order."""
    gt = SimGroundTruth(meta)
    rooms = {r.room_id: r.name for r in meta.house.rooms}  # as the provider names them
    objects = {o.instance_id: o for o in meta.house.objects}
    st = _State()
    since, since_pose = 0.0, None
    for t in fold_times(meta, fold_every):
        st.entered, st.moved = [], set()
        for obs in gt.catch_up(t):  # every frame ≤ t, none after (the provider refuses them)
            _observe(st, obs, meta, rooms, objects)
        assert st.pose is not None, "a fold time always has a frame"
        memory = fm.fit(_memory(st, t, since, since_pose), chars)
        keys = {o.id: o.key for o in st.objects.values()}
        kept = {o.id for o in memory.objects}
        n_q = len(meta.frames) - 1
        frames = [i / meta.fps for i in fold_window(meta.fps, n_q, t, WINDOW_S, DENSE_FPS)]
        yield FoldTarget(t, memory, {i: k for i, k in keys.items() if i in kept}, frames)
        for o in st.objects.values():
            o.anchor = o.position
        since, since_pose = t, st.pose


def _observe(st: _State, obs: Observation, meta: EpisodeMeta, rooms, objects) -> None:
    t = obs.time
    st.pose = obs.pose
    if st.start is None:
        st.start = obs.pose
    if obs.scene is not None and obs.scene != st.room:
        st.room = obs.scene
        st.entered.append(obs.scene)
        if obs.scene not in st.rooms:
            st.rooms.append(obs.scene)
    for det in obs.detections:  # house objects: their box centre, colour, material, room
        o = objects[det.track_id]
        _seen(st, det.track_id, t, det.position, label_of(o.category), o.color, o.material,
              rooms.get(o.room_id), moving=False)  # fmt: skip
    for det, _angle in obs.extra.get("dynamic", ()):  # type: ignore[attr-defined]
        actor = meta.schedule.actor(det.track_id) if meta.schedule is not None else None
        if actor is None or actor.kind == "door_leaf":  # a door leaf is the house, not a thing
            continue
        room = meta.house.room_at(det.position[0], det.position[1])
        _seen(st, det.track_id, t, det.position, label_of(actor.category), actor.color, None,
              rooms.get(room) if room is not None else None, moving=True)  # fmt: skip


def _seen(st: _State, key, t, position, category, color, material, room, *, moving) -> None:
    tracked = st.objects.get(key)
    if tracked is None:
        tracked = _Tracked(key, len(st.objects) + 1, category, color, material, room, t, t,
                           tuple(position), moving, anchor=tuple(position))  # fmt: skip
        st.objects[key] = tracked
    tracked.last = t
    tracked.position = tuple(position)  # type: ignore[assignment]
    if room is not None:
        tracked.room = room
    if moving and tracked.anchor is not None and math.dist(tracked.anchor, position) >= MOVED_M:
        st.moved.add(tracked.id)


def _r(x: float, digits: int) -> float:
    """Rounded, and never ``-0.0`` (a target should not teach a sign that means nothing)."""
    return round(x, digits) + 0.0


def _memory(st: _State, t: float, since: float, since_pose: EgoPose | None) -> fm.FoldMemory:
    pose = st.pose
    assert pose is not None
    ego = {o.id: pose.to_ego(o.position) for o in st.objects.values()}
    items = []
    for o in st.objects.values():
        ahead, left, _ = ego[o.id]
        items.append(
            fm.MemoryObject(
                id=o.id,
                category=o.category,
                color=o.color,
                material=o.material,
                room=o.room,
                first_seen=_r(o.first, ROUND_S),
                last_seen=_r(o.last, ROUND_S),
                ahead=_r(ahead, ROUND_M),
                left=_r(left, ROUND_M),
                near=_near(o, st, ego),
                moving=o.moving,
            )
        )
    first_fold = since_pose is None  # its changes run from the walk's start, frame 0 included
    new = sorted(o.id for o in st.objects.values() if first_fold or o.first > since)
    before = since_pose or st.start
    assert before is not None
    moved_m = math.dist(before.position[:2], pose.position[:2])
    turned = math.degrees(wrap_pi(pose.yaw - before.yaw))
    return fm.FoldMemory(
        time=_r(t, ROUND_S),
        room=st.room,
        rooms=list(st.rooms),
        objects=items,
        changes=fm.MemoryChanges(
            since=_r(since, ROUND_S),
            new=new,
            moved=sorted(st.moved),
            entered=list(dict.fromkeys(st.entered)),
            camera_moved=_r(moved_m, ROUND_M),
            camera_turned=_r(turned, 0),
        ),
    )


def _near(o: _Tracked, st: _State, ego) -> list[tuple[int, float, str]]:
    """Up to ``NEAR_COUNT`` remembered objects within ``NEAR_RADIUS_M`` of ``o``, nearest first,
    with the side they are on as the camera sees them now."""
    out = []
    for other in st.objects.values():
        if other.id == o.id:
            continue
        d = math.dist(o.position[:2], other.position[:2])
        if d <= fm.NEAR_RADIUS_M:
            out.append((d, other.id))
    out.sort()
    a0, l0, _ = ego[o.id]
    near = []
    for d, other in out[: fm.NEAR_COUNT]:
        a1, l1, _ = ego[other]
        near.append((other, _r(d, ROUND_M), fm.side_of(a1 - a0, l1 - l0)))
    return near


def fold_examples(meta: EpisodeMeta, video: str, *, fold_every: float = FOLD_EVERY_S):
    """One ``fold`` example per fold time of ``video``'s walk (see the module)."""
    previous: str | None = None
    for target in fold_targets(meta, fold_every=fold_every):
        text = fm.render(target.memory)
        yield TrainingExample(
            id=f"fold:{video}:{target.time:g}",
            kind="fold",
            video=video,
            t_q=target.time,
            frames=tuple(target.frames),
            messages=(
                Message(role="system", text=AMF_SYSTEM),
                Message(
                    role="user",
                    text=fm.fold_instruction(target.time, previous),
                    prefix=True,
                ),
                Message(role="assistant", text=text),
            ),
            meta={
                "fold_every": fold_every,
                "objects": len(target.memory.objects),
                # memory id → ground-truth id, so anyone can check a target against visibility
                "keys": {str(i): k for i, k in sorted(target.keys.items())},
            },
        )
        previous = text
