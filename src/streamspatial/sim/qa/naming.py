"""How questions refer to objects and rooms without ambiguity.

A question may only name an object the viewer can pick out: its category alone when the house
holds one of that category, else colour + category when that pair is unique.  Objects that
neither names uniquely are never referenced (asking about "the chair" among five chairs has
no single answer).  Rooms are named by type when the type is unique, else by the house's
numbered name ("bedroom 2"), which still reads naturally.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from streamspatial.scene.types import House, SceneObject


def category_text(category: str) -> str:
    return category.replace("_", " ")


def plural(category: str) -> str:
    word = category_text(category)
    head, _, last = word.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith("f") and last != "chef":
        last = last[:-1] + "ves"
    else:
        last += "s"
    return f"{head} {last}".strip()


@cache
def _counts(house: House) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    cats = Counter(o.category for o in house.objects)
    pairs = Counter((o.color, o.category) for o in house.objects)
    return cats, pairs


def object_ref(house: House, obj: SceneObject) -> str | None:
    """The unambiguous name of an object ("sofa", "red chair"), or None if there is none."""
    cats, pairs = _counts(house)
    if cats[obj.category] == 1:
        return category_text(obj.category)
    if pairs[(obj.color, obj.category)] == 1:
        return f"{obj.color} {category_text(obj.category)}"
    return None


def room_ref(house: House, room_id: int) -> str:
    room = house.room(room_id)
    types = Counter(r.room_type for r in house.rooms)
    if types[room.room_type] == 1:
        return category_text(room.room_type)
    return room.name


def metres(v: float) -> str:
    return f"{v:.1f} m"
