"""Simulator metadata: houses, camera trajectories and per-frame visibility.

These dataclasses are the contract between the simulator (which produces them) and everything
built on its ground truth: the question generators, the ground-truth perception provider and
the exploration environment.  They are plain frozen dataclasses with tuples inside, so they can
be hashed, compared in tests and serialised to JSON without surprises.

Conventions (fixed; question generators depend on them):

* World frame in metres: ``x`` east, ``y`` north, ``z`` up; the floor is ``z = 0``.
  ``House.north_yaw`` is the yaw of north (always ``pi/2``: north is ``+y``), kept explicit so
  allocentric questions never guess.
* Yaw is measured counter-clockwise from ``+x`` in radians, wrapped to ``(-pi, pi]``.  Pitch is
  positive looking up.  A camera with yaw ``θ`` looks along ``(cos θ, sin θ, 0)``.
* An object's box is centred at ``position`` (the box's centre, not its base); ``size`` holds the
  full extents along the object's local axes, which are the world axes rotated by ``yaw`` about
  ``z``.  The object's front faces its local ``+x``.
* Instance ids are positive integers unique within a house; ``0`` means "no object" (walls,
  floor, background) in instance-id images.

Over 400 lines on purpose: it is the simulator's whole data contract (houses, trajectories,
visibility) in one place, plain dataclasses and their JSON forms.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any, Self, get_args, get_origin, get_type_hints

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.geometry import Intrinsics, Pose, Vec3
from streamspatial.scene.schedule import Schedule

SCHEMA_VERSION = 1

Vec2 = tuple[float, float]


def _f(x: Any) -> float:
    return float(x)


def _round(x: float, nd: int = 4) -> float:
    return round(float(x), nd)


class _FlatRecord:
    """The JSON form of a record of numbers, names and points (a room, a door, a wall piece,
    an object): its fields in order, float fields as floats and points as lists of floats;
    read back field by field as its type says, a field with a default taking it where an
    older file has no such key.  One rule for the four, so their forms cannot drift apart."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _dump(hint, getattr(self, f.name)) for f, hint in _typed_fields(type(self))}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        values = {}
        for f, hint in _typed_fields(cls):
            if f.name in d:
                values[f.name] = _read(hint, d[f.name])
            elif f.default is MISSING:
                raise KeyError(f.name)
        return cls(**values)


@functools.cache
def _typed_fields(cls: type) -> tuple[tuple[Field[Any], Any], ...]:
    """A record's fields in order, each with its type (its annotation resolved)."""
    hints = get_type_hints(cls)
    return tuple((f, hints[f.name]) for f in fields(cls))


def _dump(hint: Any, value: Any) -> Any:
    """``value`` of type ``hint`` as JSON takes it: floats as floats, tuples as lists."""
    if hint is float:
        return float(value)
    if get_origin(hint) is not tuple:
        return value
    args = get_args(hint)
    if args[-1] is ...:
        return [_dump(args[0], v) for v in value]
    return [_dump(t, v) for t, v in zip(args, value, strict=True)]


def _read(hint: Any, value: Any) -> Any:
    """A JSON ``value`` back as type ``hint`` (a fixed-length tuple: exactly that many)."""
    if hint in (int, str, float):
        return hint(value)
    args = get_args(hint)
    if args[-1] is ...:
        return tuple(_read(args[0], v) for v in value)
    if len(value) != len(args):
        raise ValueError(f"expected {len(args)} numbers, got {value!r}")
    return tuple(_read(t, v) for t, v in zip(args, value, strict=True))


@dataclass(frozen=True)
class Room(_FlatRecord):
    """One room of the floor plan: a rectilinear polygon (counter-clockwise) and its type."""

    room_id: int
    room_type: str  # "living_room", "kitchen", "bedroom", "bathroom", "hallway", ...
    name: str  # human-readable and unique in the house: "bedroom 2"
    polygon: tuple[Vec2, ...]
    area: float  # m², of the polygon (walls are centred on the polygon edges)

    def contains(self, x: float, y: float) -> bool:
        """Point-in-polygon (even-odd); points exactly on an edge may go either way."""
        inside = False
        pts = self.polygon
        n = len(pts)
        for i in range(n):
            x0, y0 = pts[i]
            x1, y1 = pts[(i + 1) % n]
            if (y0 > y) != (y1 > y):
                xi = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                if x < xi:
                    inside = not inside
        return inside

    @property
    def centroid(self) -> Vec2:
        pts = self.polygon
        a = cx = cy = 0.0
        for i in range(len(pts)):
            x0, y0 = pts[i]
            x1, y1 = pts[(i + 1) % len(pts)]
            c = x0 * y1 - x1 * y0
            a += c
            cx += (x0 + x1) * c
            cy += (y0 + y1) * c
        a *= 0.5
        return (cx / (6 * a), cy / (6 * a))


@dataclass(frozen=True)
class Door(_FlatRecord):
    """An opening in the wall between two rooms (``room_b == -1`` would be outside; unused).

    ``center`` lies on the shared wall; ``axis`` is the direction the wall runs (``"x"`` for a
    wall along x, i.e. the door is passed walking along y).
    """

    door_id: int
    room_a: int
    room_b: int
    center: Vec2
    width: float
    axis: str  # "x" or "y"


@dataclass(frozen=True)
class WallSegment(_FlatRecord):
    """A straight piece of wall (door gaps already cut out), centred on the line p0→p1."""

    p0: Vec2
    p1: Vec2
    thickness: float
    height: float

    def box(self) -> tuple[Vec3, Vec3]:
        """(centre, full size) of the wall as an axis-aligned box (walls are axis-aligned)."""
        (x0, y0), (x1, y1) = self.p0, self.p1
        t = self.thickness
        size = (abs(x1 - x0), t, self.height) if y0 == y1 else (t, abs(y1 - y0), self.height)
        return ((x0 + x1) / 2, (y0 + y1) / 2, self.height / 2), size


@dataclass(frozen=True)
class SceneObject(_FlatRecord):
    """One object instance with its ground-truth 3D box and appearance."""

    instance_id: int
    category: str  # "sofa", "chair", "mug", ... (snake_case)
    room_id: int
    position: Vec3  # box centre
    size: Vec3  # full extents along local x, y, z
    yaw: float
    color: str  # colour name used in questions: "red", "dark brown"
    rgb: Vec3  # 0..1, what the renderer paints
    material: str  # "wood", "fabric", "metal", ...
    kind: str = "furniture"  # "furniture" (on the floor) or "small" (on a support)
    support_id: int = 0  # instance id of the supporting furniture for small objects, else 0
    model: str = ""  # catalogue model drawn ("<id>" or "<id>|<tint>"); "" draws the box

    @property
    def name(self) -> str:
        """How a question refers to it when its category is ambiguous: "red chair"."""
        return f"{self.color} {self.category.replace('_', ' ')}"

    def footprint(self) -> tuple[Vec2, ...]:
        """The box's four floor corners (counter-clockwise)."""
        cx, cy, _ = self.position
        hx, hy = self.size[0] / 2, self.size[1] / 2
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        out = []
        for lx, ly in ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)):
            out.append((cx + c * lx - s * ly, cy + s * lx + c * ly))
        return tuple(out)

    def aabb(self) -> tuple[Vec3, Vec3]:
        """World axis-aligned bounds (min corner, max corner) of the (possibly yawed) box."""
        fp = self.footprint()
        xs = [p[0] for p in fp]
        ys = [p[1] for p in fp]
        z0 = self.position[2] - self.size[2] / 2
        z1 = self.position[2] + self.size[2] / 2
        return (min(xs), min(ys), z0), (max(xs), max(ys), z1)


@dataclass(frozen=True)
class House:
    """A procedurally generated house: the ground truth every question is computed from."""

    house_id: str
    seed: int
    rooms: tuple[Room, ...]
    doors: tuple[Door, ...]
    walls: tuple[WallSegment, ...]
    objects: tuple[SceneObject, ...]
    wall_height: float = 2.6
    north_yaw: float = math.pi / 2
    cell: float = 0.5  # floor-plan grid cell size (m); room polygons lie on this grid
    style: str = "boxes"  # "textured" (catalogue models, textured rooms) or "boxes" (flat)

    def room(self, room_id: int) -> Room:
        for r in self.rooms:
            if r.room_id == room_id:
                return r
        raise KeyError(room_id)

    def object(self, instance_id: int) -> SceneObject:
        for o in self.objects:
            if o.instance_id == instance_id:
                return o
        raise KeyError(instance_id)

    def room_at(self, x: float, y: float) -> int | None:
        """The id of the room containing the floor point, or ``None`` outside every room."""
        for r in self.rooms:
            if r.contains(x, y):
                return r.room_id
        return None

    def adjacency(self) -> dict[int, tuple[int, ...]]:
        """The door graph: rooms you can walk between directly, sorted ids."""
        adj: dict[int, set[int]] = {r.room_id: set() for r in self.rooms}
        for d in self.doors:
            if d.room_a in adj and d.room_b in adj:
                adj[d.room_a].add(d.room_b)
                adj[d.room_b].add(d.room_a)
        return {k: tuple(sorted(v)) for k, v in adj.items()}

    @property
    def bounds(self) -> tuple[Vec2, Vec2]:
        xs = [p[0] for r in self.rooms for p in r.polygon]
        ys = [p[1] for r in self.rooms for p in r.polygon]
        return (min(xs), min(ys)), (max(xs), max(ys))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "house_id": self.house_id,
            "seed": self.seed,
            "wall_height": self.wall_height,
            "north_yaw": float(self.north_yaw),
            "cell": self.cell,
            "style": self.style,
            "rooms": [r.to_dict() for r in self.rooms],
            "doors": [d.to_dict() for d in self.doors],
            "walls": [w.to_dict() for w in self.walls],
            "objects": [o.to_dict() for o in self.objects],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, source: str = "") -> House:
        try:
            return cls(
                house_id=str(d["house_id"]),
                seed=int(d["seed"]),
                rooms=tuple(Room.from_dict(r) for r in d["rooms"]),
                doors=tuple(Door.from_dict(x) for x in d["doors"]),
                walls=tuple(WallSegment.from_dict(w) for w in d["walls"]),
                objects=tuple(SceneObject.from_dict(o) for o in d["objects"]),
                wall_height=_f(d.get("wall_height", 2.6)),
                north_yaw=_f(d.get("north_yaw", math.pi / 2)),
                cell=_f(d.get("cell", 0.5)),
                style=str(d.get("style", "boxes")),
            )
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise InputError(
                Problem(file=source, field=str(e), expected="a valid simulator house record")
            ) from None


# What the camera is doing at a pose; question generators pick e.g. "move" frames for
# camera-displacement questions (S3-Bench App. 3.1, MOVE_TO_NEXT).
MOTIONS = ("move", "turn", "sweep", "still", "watch", "glance")  # the last two: sim.events


@dataclass(frozen=True)
class CameraPose(Pose):
    """A walk's camera at one instant (:class:`~streamspatial.core.geometry.Pose`: eye position,
    heading and tilt), with what the camera is doing there."""

    motion: str = "move"
    keypoint: int = -1  # index of the keypoint being swept at, -1 while travelling

    def to_list(self) -> list[Any]:
        x, y, z = self.position
        return [
            _round(self.time, 5),
            _round(x),
            _round(y),
            _round(z),
            _round(self.yaw, 5),
            _round(self.pitch, 5),
            self.motion,
            self.keypoint,
        ]

    @classmethod
    def from_list(cls, v: list[Any]) -> CameraPose:
        return cls(
            time=_f(v[0]),
            position=(_f(v[1]), _f(v[2]), _f(v[3])),
            yaw=_f(v[4]),
            pitch=_f(v[5]),
            motion=str(v[6]),
            keypoint=int(v[7]),
        )


@dataclass(frozen=True)
class Trajectory:
    """Camera poses sampled at ``fps``; ``poses[i].time == i / fps``."""

    house_id: str
    fps: float
    poses: tuple[CameraPose, ...]
    keypoints: tuple[Vec2, ...] = ()  # the stops, in visiting order

    @property
    def duration(self) -> float:
        return len(self.poses) / self.fps

    def to_dict(self) -> dict[str, Any]:
        return {
            "house_id": self.house_id,
            "fps": self.fps,
            "keypoints": [[_round(x), _round(y)] for x, y in self.keypoints],
            "poses": [p.to_list() for p in self.poses],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Trajectory:
        return cls(
            house_id=str(d["house_id"]),
            fps=_f(d["fps"]),
            poses=tuple(CameraPose.from_list(p) for p in d["poses"]),
            keypoints=tuple((_f(p[0]), _f(p[1])) for p in d.get("keypoints", [])),
        )


@dataclass(frozen=True)
class Visible:
    """One object seen in one frame, after occlusion.

    ``bbox`` is ``(x0, y0, x1, y1)`` in pixels, inclusive-exclusive; ``mean_depth`` is the mean
    metric depth (m, along the optical axis) of its visible pixels.
    """

    instance_id: int
    pixels: int
    bbox: tuple[int, int, int, int]
    mean_depth: float

    def to_list(self) -> list[Any]:
        return [self.instance_id, self.pixels, list(self.bbox), _round(self.mean_depth, 3)]

    @classmethod
    def from_list(cls, v: list[Any]) -> Visible:
        return cls(int(v[0]), int(v[1]), tuple(int(b) for b in v[2]), _f(v[3]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class FrameRecord:
    """Ground truth for one rendered frame: where the camera was and what it saw."""

    index: int
    pose: CameraPose
    room_id: int | None  # the room the camera stands in
    visible: tuple[Visible, ...] = field(default=())
    # Dynamic episodes only: the actors seen (ids from schedule.ACTOR_ID_BASE), after
    # occlusion, kept apart from ``visible`` so static questions never see what moves; and
    # whether the lights of the camera's room are on.
    dynamic: tuple[Visible, ...] = field(default=())
    lit: bool = True

    @property
    def time(self) -> float:
        return self.pose.time

    def visible_ids(self, min_pixels: int = 1) -> set[int]:
        return {v.instance_id for v in self.visible if v.pixels >= min_pixels}

    def dynamic_ids(self, min_pixels: int = 1) -> set[int]:
        return {v.instance_id for v in self.dynamic if v.pixels >= min_pixels}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "i": self.index,
            "pose": self.pose.to_list(),
            "room": self.room_id,
            "vis": [v.to_list() for v in self.visible],
        }
        # written only when there is something dynamic: static episodes keep their bytes
        if self.dynamic:
            d["dyn"] = [v.to_list() for v in self.dynamic]
        if not self.lit:
            d["lit"] = False
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FrameRecord:
        return cls(
            index=int(d["i"]),
            pose=CameraPose.from_list(d["pose"]),
            room_id=None if d["room"] is None else int(d["room"]),
            visible=tuple(Visible.from_list(v) for v in d["vis"]),
            dynamic=tuple(Visible.from_list(v) for v in d.get("dyn", ())),
            lit=bool(d.get("lit", True)),
        )


@dataclass(frozen=True)
class EpisodeMeta:
    """Everything stored next to a rendered video: the house, intrinsics and every frame."""

    house: House
    intrinsics: Intrinsics
    fps: float
    frames: tuple[FrameRecord, ...]
    keypoints: tuple[Vec2, ...] = ()
    video: str = ""  # file name of the video, relative to the metadata file
    schedule: Schedule | None = None  # dynamic episodes only (streamspatial.scene.schedule)

    @property
    def trajectory(self) -> Trajectory:
        return Trajectory(
            self.house.house_id, self.fps, tuple(f.pose for f in self.frames), self.keypoints
        )

    def first_seen(self, min_pixels: int = 1) -> dict[int, int]:
        """Instance id → index of the first frame it was visible in."""
        out: dict[int, int] = {}
        for f in self.frames:
            for v in f.visible:
                if v.pixels >= min_pixels and v.instance_id not in out:
                    out[v.instance_id] = f.index
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "video": self.video,
            "fps": self.fps,
            "intrinsics": self.intrinsics.to_dict(),
            "keypoints": [[_round(x), _round(y)] for x, y in self.keypoints],
            "house": self.house.to_dict(),
            "frames": [f.to_dict() for f in self.frames],
            **({"schedule": self.schedule.to_dict()} if self.schedule is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, source: str = "") -> EpisodeMeta:
        try:
            return cls(
                house=House.from_dict(d["house"], source=source),
                intrinsics=Intrinsics.from_dict(d["intrinsics"]),
                fps=_f(d["fps"]),
                frames=tuple(FrameRecord.from_dict(f) for f in d["frames"]),
                keypoints=tuple((_f(p[0]), _f(p[1])) for p in d.get("keypoints", [])),
                video=str(d.get("video", "")),
                schedule=Schedule.from_dict(d["schedule"]) if d.get("schedule") else None,
            )
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise InputError(
                Problem(file=source, field=str(e), expected="a valid simulator episode record")
            ) from None


def visible_union(frames: Iterable[FrameRecord], min_pixels: int = 1) -> set[int]:
    """Every instance seen in any of ``frames`` (use a prefix of frames to stay causal)."""
    out: set[int] = set()
    for f in frames:
        out |= f.visible_ids(min_pixels)
    return out


META_SUFFIX = ".meta.json.gz"


def meta_path_for(video: str | Path) -> Path:
    """Where the metadata of ``video`` lives: ``scene.mp4`` → ``scene.mp4.meta.json.gz``."""
    video = Path(video)
    return video.with_name(video.name + META_SUFFIX)


def save_episode_meta(meta: EpisodeMeta, path: str | Path) -> Path:
    """Write gzipped JSON (compact, diffable after ``zcat``, readable from any language)."""
    path = Path(path)
    data = json.dumps(meta.to_dict(), separators=(",", ":")).encode()
    # mtime=0 keeps the bytes deterministic for the same episode.  Written beside and moved
    # into place: the metadata marks a finished video (``sim generate --resume``).
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(data)
    part.replace(path)
    return path


def load_episode_meta(path: str | Path) -> EpisodeMeta:
    """Read the metadata next to a video; accepts the video path or the metadata path."""
    path = Path(path)
    if not path.name.endswith(META_SUFFIX):
        path = meta_path_for(path)
    if not path.is_file():
        raise InputError(Problem(file=str(path), field="", expected="simulator metadata file"))
    try:
        with gzip.open(path, "rb") as f:
            d = json.loads(f.read())
    except (OSError, ValueError) as e:
        raise InputError(
            Problem(file=str(path), field="", expected=f"gzipped JSON metadata ({e})")
        ) from None
    return EpisodeMeta.from_dict(d, source=str(path))
