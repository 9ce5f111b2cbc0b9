"""The structured folded memory: one JSON layout that the folding agent asks a model for,
reads back, and that ``streamspatial sim generate --split train`` writes as training targets.

AMF-VLM's folding module (S3-Bench §4.2) "learns to write" a compact memory of entities,
attributes and spatial relations.  Free prose cannot be checked or trained towards, so the
memory has one documented shape (``docs/agents.md``, Folding; every key below):

.. code-block:: json

    {"time": 20, "room": "kitchen", "rooms": ["hallway", "kitchen"],
     "objects": [{"id": 3, "category": "sofa", "color": "red", "material": "fabric",
                  "room": "living room", "first_seen": 2.4, "last_seen": 18.2,
                  "ahead": 1.2, "left": -0.5, "near": [[5, 0.8, "left"]]}],
     "changes": {"since": 10, "new": [3, 5], "moved": [], "entered": ["kitchen"],
                 "camera_moved": 3.2, "camera_turned": -90}}

``id`` numbers objects in the order they were first seen (1, 2, …) and stays the same from fold
to fold; ``ahead`` / ``left`` are metres from the camera at the fold time (negative: behind,
right); ``near`` lists up to two other remembered objects within
2 m as ``[id, metres, side]``, the side as the camera sees it now (``left``, ``right``,
``nearer``, ``farther``); ``moving`` is true for things that move (people, carried props).
``changes`` says what happened since the previous fold: objects first seen, objects seen moving,
rooms entered, and the camera's net displacement (m) and turn (degrees, positive: left).

Reading is tolerant (code fences, text around the object, numbers as strings, unknown keys,
a bad object dropped and counted); a reply with no JSON object holding an ``objects`` list is
*malformed*, and the agent keeps its previous memory.  The memory is bounded by characters:
:func:`fit` drops the objects seen longest ago until the compact JSON fits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MEMORY_FORMATS = ("prose", "json")
MemoryFormat = Literal["prose", "json"]
# The JSON memory's bound (prose memories: the agent's memory_chars): about 30 objects at
# ~165 characters each, what a 1-2 minute walk through a house shows.
JSON_MEMORY_CHARS = 5000
# A fold call's token cap (when the run sets one): room for the whole bounded JSON, which
# runs at about 2.5-3 characters a token; a memory cut off mid-JSON would be malformed.
JSON_FOLD_TOKENS = 2560
NEAR_RADIUS_M = 2.0  # neighbours listed per object: within this distance …
NEAR_COUNT = 2  # … and at most this many
SIDES = ("left", "right", "nearer", "farther")

_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)


class MemoryObject(BaseModel):
    """One remembered object (see the module for what each key means)."""

    model_config = ConfigDict(extra="ignore")

    id: int = Field(ge=1)
    category: str = Field(min_length=1)
    color: str | None = None
    material: str | None = None
    room: str | None = None
    first_seen: float
    last_seen: float
    ahead: float
    left: float
    near: list[tuple[int, float, str]] = Field(default_factory=list)
    moving: bool = False

    @field_validator("near", mode="before")
    @classmethod
    def _lenient_near(cls, v: Any) -> list[Any]:
        """Keep the well-formed ``[id, metres, side]`` triples, drop the rest."""
        if not isinstance(v, list):
            return []
        out = []
        for entry in v:
            if isinstance(entry, (list, tuple)) and len(entry) == 3 and entry[2] in SIDES:
                try:
                    out.append((int(entry[0]), float(entry[1]), str(entry[2])))
                except (TypeError, ValueError):
                    continue
        return out


class MemoryChanges(BaseModel):
    """What happened between the previous fold (``since``) and this one."""

    model_config = ConfigDict(extra="ignore")

    since: float = 0.0
    new: list[int] = Field(default_factory=list)
    moved: list[int] = Field(default_factory=list)
    entered: list[str] = Field(default_factory=list)
    camera_moved: float = 0.0
    camera_turned: float = 0.0


class FoldMemory(BaseModel):
    """The whole memory at one fold time."""

    model_config = ConfigDict(extra="ignore")

    time: float
    room: str | None = None
    rooms: list[str] = Field(default_factory=list)
    objects: list[MemoryObject] = Field(default_factory=list)
    changes: MemoryChanges = Field(default_factory=MemoryChanges)


@dataclass(frozen=True)
class Parsed:
    """What :func:`parse_memory` made of a reply: the memory (``None`` when malformed), how
    many object entries it dropped, and why it failed."""

    memory: FoldMemory | None
    dropped: int = 0
    error: str | None = None


def side_of(ahead: float, left: float) -> str:
    """Where an offset (``ahead``, ``left``, camera frame) points as the camera sees it."""
    if abs(left) >= abs(ahead):
        return "left" if left > 0 else "right"
    return "farther" if ahead > 0 else "nearer"


def render(memory: FoldMemory) -> str:
    """The compact JSON of a memory: what a target says and what the agent shows the model."""
    data = memory.model_dump()
    for obj in data["objects"]:
        for key in ("color", "material", "room"):
            if obj[key] is None:
                del obj[key]
        if not obj["near"]:
            del obj["near"]
        else:
            obj["near"] = [list(n) for n in obj["near"]]
        if not obj["moving"]:
            del obj["moving"]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def fit(memory: FoldMemory, chars: int) -> FoldMemory:
    """The memory within ``chars`` characters of :func:`render`: the objects seen longest ago
    go first (their ids leave ``near`` and ``changes`` with them); never cut mid-JSON."""
    if len(render(memory)) <= chars:
        return memory
    order = sorted(memory.objects, key=lambda o: (o.last_seen, o.id))
    # Drop in halves first, then one by one: O(log n) renders for a far-too-long memory.
    lo, hi = 0, len(order)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(render(_without(memory, {o.id for o in order[:mid]}))) <= chars:
            hi = mid
        else:
            lo = mid + 1
    return _without(memory, {o.id for o in order[:lo]})


def _without(memory: FoldMemory, gone: set[int]) -> FoldMemory:
    objects = [
        o.model_copy(update={"near": [n for n in o.near if n[0] not in gone]})
        for o in memory.objects
        if o.id not in gone
    ]
    changes = memory.changes.model_copy(
        update={
            "new": [i for i in memory.changes.new if i not in gone],
            "moved": [i for i in memory.changes.moved if i not in gone],
        }
    )
    return memory.model_copy(update={"objects": objects, "changes": changes})


def parse_memory(text: str, time: float) -> Parsed:
    """Read a model's memory reply, tolerantly (see the module); ``time`` is the fold time,
    used when the reply leaves it out."""
    cleaned = _FENCE.sub("", text or "")
    start = cleaned.find("{")
    if start < 0:
        return Parsed(None, error="no JSON object in the reply")
    try:
        data, _ = json.JSONDecoder().raw_decode(cleaned[start:])
    except json.JSONDecodeError as exc:
        return Parsed(None, error=f"invalid JSON: {exc.msg}")
    if isinstance(data, dict) and isinstance(data.get("memory"), dict):
        data = data["memory"]  # {"memory": {...}}: the model wrapped it
    if not isinstance(data, dict) or not isinstance(data.get("objects"), list):
        return Parsed(None, error="expected a JSON object with an 'objects' list")
    objects, dropped = [], 0
    for entry in data["objects"]:
        try:
            obj = MemoryObject.model_validate(entry)
        except ValidationError:
            dropped += 1
            continue
        objects.append(obj)
    rest = {k: v for k, v in data.items() if k != "objects"}
    rest.setdefault("time", time)
    try:
        head = FoldMemory.model_validate(rest)
    except ValidationError:  # a bad header: keep the objects, take the fold's own time
        head = FoldMemory(time=time)
        dropped += 1
    return Parsed(head.model_copy(update={"objects": objects}), dropped)


_INSTRUCTION = (
    "Memory folding at {t} s. Previous memory: {previous}\n"
    "Update the memory with the frames above. Reply with the updated memory only, one JSON "
    'object: {"time": <this fold, s>, "room": <room you are in>, "rooms": [<rooms visited, '
    'in order>], "objects": [{"id": <1, 2, ... in order of first sight, kept across folds>, '
    '"category", "color", "material", "room", "first_seen", "last_seen" (s), "ahead", '
    '"left" (metres from you now; negative: behind / right), '
    '"near": [[<id>, <metres>, "left"|"right"|"nearer"|"farther"]] (up to 2 objects within '
    '2 m, as you see them now), "moving": true (only for things that move)}], "changes": '
    '{"since": <previous fold, s>, "new": [<ids first seen since>], "moved": [<ids seen '
    'moving>], "entered": [<rooms entered>], "camera_moved": <metres>, "camera_turned": '
    "<degrees, positive: left>}}. Keep every object seen so far; at most {chars} characters."
)


def fold_instruction(t: float, previous: str | None, chars: int = JSON_MEMORY_CHARS) -> str:
    """The text of a JSON fold request after its frames (the agent's and the targets')."""
    return (
        _INSTRUCTION.replace("{t}", f"{t:g}")
        .replace("{previous}", previous or "(empty: nothing folded yet)")
        .replace("{chars}", str(chars))
    )


__all__ = [
    "JSON_FOLD_TOKENS",
    "JSON_MEMORY_CHARS",
    "MEMORY_FORMATS",
    "FoldMemory",
    "MemoryChanges",
    "MemoryObject",
    "Parsed",
    "fit",
    "fold_instruction",
    "parse_memory",
    "render",
    "side_of",
]
