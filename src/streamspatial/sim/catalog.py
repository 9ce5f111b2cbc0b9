"""What goes in each kind of room: room programs, furniture and small-object categories.

Sizes are realistic ranges in metres (width across the front, depth, height), so that numeric
questions ("how long is the sofa?") have plausible answers.  Colours are named so questions
can tell two instances of a category apart ("the red chair"); each instance of a category in
one house gets a different colour.
"""

from __future__ import annotations

from dataclasses import dataclass

# name → rgb (0..1).  Chosen to be distinguishable in a 320×240 H.264 frame.
COLORS: dict[str, tuple[float, float, float]] = {
    "red": (0.80, 0.12, 0.12),
    "orange": (0.93, 0.50, 0.10),
    "yellow": (0.93, 0.82, 0.15),
    "green": (0.20, 0.62, 0.22),
    "teal": (0.10, 0.55, 0.55),
    "blue": (0.15, 0.30, 0.80),
    "purple": (0.50, 0.22, 0.65),
    "pink": (0.93, 0.50, 0.68),
    "white": (0.93, 0.93, 0.90),
    "black": (0.10, 0.10, 0.10),
    "gray": (0.50, 0.50, 0.52),
    "brown": (0.45, 0.28, 0.14),
    "beige": (0.85, 0.76, 0.58),
    "navy": (0.10, 0.14, 0.40),
}

# Floor colours per room type and one wall colour: neutral, so objects stand out.
FLOOR_RGB: dict[str, tuple[float, float, float]] = {
    "living_room": (0.62, 0.50, 0.36),
    "kitchen": (0.72, 0.72, 0.68),
    "bedroom": (0.55, 0.42, 0.30),
    "bathroom": (0.80, 0.82, 0.84),
    "hallway": (0.58, 0.52, 0.44),
    "study": (0.50, 0.40, 0.32),
    "dining_room": (0.60, 0.46, 0.34),
}
WALL_RGB = (0.88, 0.86, 0.80)
CEILING_RGB = (0.95, 0.95, 0.95)


@dataclass(frozen=True)
class Category:
    """One kind of object and how it is placed."""

    name: str
    size_min: tuple[float, float, float]
    size_max: tuple[float, float, float]
    materials: tuple[str, ...]
    placement: str = "wall"  # "wall" (back to a wall), "free" (anywhere), "on" (small object)
    support: bool = False  # small objects can stand on it
    max_count: int = 1


def _c(name, smin, smax, materials, placement="wall", support=False, max_count=1) -> Category:
    return Category(name, smin, smax, tuple(materials), placement, support, max_count)


FURNITURE: dict[str, tuple[Category, ...]] = {
    "living_room": (
        _c("sofa", (1.8, 0.85, 0.80), (2.3, 1.0, 0.95), ["fabric", "leather"]),
        _c("armchair", (0.75, 0.75, 0.85), (0.95, 0.90, 1.0), ["fabric", "leather"], max_count=2),
        _c("coffee_table", (0.9, 0.5, 0.40), (1.2, 0.7, 0.48), ["wood", "glass"], "free", True),
        _c("tv_stand", (1.2, 0.40, 0.50), (1.8, 0.50, 0.60), ["wood"], support=True),
        _c("bookshelf", (0.8, 0.30, 1.6), (1.2, 0.40, 2.0), ["wood"]),
        _c("potted_plant", (0.35, 0.35, 0.7), (0.5, 0.5, 1.3), ["ceramic"], max_count=2),
        _c("floor_lamp", (0.30, 0.30, 1.5), (0.40, 0.40, 1.8), ["metal"]),
        _c("side_table", (0.40, 0.40, 0.50), (0.55, 0.55, 0.60), ["wood"], support=True),
    ),
    "kitchen": (
        _c("counter", (1.6, 0.60, 0.90), (2.4, 0.65, 0.92), ["stone", "wood"], support=True),
        _c("refrigerator", (0.70, 0.70, 1.75), (0.90, 0.75, 1.95), ["metal"]),
        _c("stove", (0.60, 0.60, 0.90), (0.76, 0.65, 0.92), ["metal"]),
        _c("dining_table", (1.2, 0.8, 0.74), (1.6, 0.95, 0.78), ["wood"], "free", True),
        _c("chair", (0.42, 0.45, 0.85), (0.50, 0.52, 0.95), ["wood", "plastic"], max_count=3),
        _c("trash_can", (0.30, 0.30, 0.55), (0.40, 0.40, 0.70), ["plastic", "metal"]),
        _c("microwave_cart", (0.60, 0.45, 0.85), (0.80, 0.50, 0.95), ["wood"], support=True),
    ),
    "bedroom": (
        _c("bed", (1.4, 2.0, 0.50), (1.8, 2.1, 0.60), ["fabric"]),
        _c("nightstand", (0.40, 0.40, 0.50), (0.55, 0.45, 0.60), ["wood"], support=True),
        _c("wardrobe", (1.0, 0.55, 1.9), (1.6, 0.62, 2.2), ["wood"]),
        _c("desk", (1.0, 0.55, 0.74), (1.4, 0.70, 0.78), ["wood"], support=True),
        _c("chair", (0.42, 0.45, 0.85), (0.50, 0.52, 0.95), ["wood", "plastic"]),
        _c("dresser", (0.9, 0.45, 0.80), (1.3, 0.50, 1.0), ["wood"], support=True),
        _c("potted_plant", (0.35, 0.35, 0.7), (0.5, 0.5, 1.3), ["ceramic"]),
    ),
    "bathroom": (
        _c("bathtub", (1.5, 0.70, 0.55), (1.7, 0.80, 0.60), ["ceramic"]),
        _c("toilet", (0.38, 0.65, 0.75), (0.42, 0.72, 0.80), ["ceramic"]),
        _c("sink_cabinet", (0.60, 0.45, 0.85), (0.90, 0.50, 0.90), ["ceramic"], support=True),
        _c("laundry_basket", (0.40, 0.35, 0.55), (0.50, 0.40, 0.65), ["fabric"]),
    ),
    "hallway": (
        _c("shoe_rack", (0.7, 0.30, 0.50), (1.0, 0.35, 0.80), ["wood"], support=True),
        _c("coat_rack", (0.40, 0.40, 1.7), (0.50, 0.50, 1.85), ["metal"]),
        _c("potted_plant", (0.35, 0.35, 0.7), (0.5, 0.5, 1.1), ["ceramic"]),
        _c("bench", (0.9, 0.38, 0.45), (1.2, 0.42, 0.50), ["wood"]),
    ),
    "study": (
        _c("desk", (1.2, 0.60, 0.74), (1.6, 0.75, 0.78), ["wood"], support=True),
        _c("office_chair", (0.55, 0.55, 1.0), (0.65, 0.65, 1.15), ["fabric"]),
        _c("bookshelf", (0.8, 0.30, 1.6), (1.2, 0.40, 2.0), ["wood"], max_count=2),
        _c("filing_cabinet", (0.40, 0.50, 0.70), (0.50, 0.60, 1.3), ["metal"], support=True),
        _c("armchair", (0.75, 0.75, 0.85), (0.95, 0.90, 1.0), ["fabric", "leather"]),
    ),
    "dining_room": (
        _c("dining_table", (1.4, 0.85, 0.74), (2.0, 1.0, 0.78), ["wood"], "free", True),
        _c("chair", (0.42, 0.45, 0.85), (0.50, 0.52, 0.95), ["wood", "plastic"], max_count=4),
        _c("sideboard", (1.2, 0.45, 0.80), (1.8, 0.50, 0.90), ["wood"], support=True),
        _c("potted_plant", (0.35, 0.35, 0.7), (0.5, 0.5, 1.3), ["ceramic"]),
    ),
}

SMALL: tuple[Category, ...] = (
    _c("mug", (0.08, 0.08, 0.10), (0.10, 0.10, 0.12), ["ceramic"], "on"),
    _c("book", (0.15, 0.22, 0.03), (0.20, 0.28, 0.05), ["paper"], "on"),
    _c("vase", (0.12, 0.12, 0.25), (0.18, 0.18, 0.40), ["ceramic", "glass"], "on"),
    _c("table_lamp", (0.20, 0.20, 0.35), (0.30, 0.30, 0.50), ["metal"], "on"),
    _c("laptop", (0.30, 0.22, 0.03), (0.36, 0.25, 0.04), ["metal"], "on"),
    _c("bowl", (0.15, 0.15, 0.07), (0.22, 0.22, 0.10), ["ceramic"], "on"),
    _c("bottle", (0.07, 0.07, 0.25), (0.09, 0.09, 0.32), ["glass", "plastic"], "on"),
    _c("clock", (0.20, 0.08, 0.20), (0.30, 0.10, 0.30), ["metal", "wood"], "on"),
    _c("box", (0.25, 0.20, 0.15), (0.40, 0.30, 0.25), ["cardboard"], "on"),
    _c("teapot", (0.18, 0.14, 0.15), (0.22, 0.18, 0.20), ["ceramic"], "on"),
)

# Room programs by number of rooms: (room type, relative target area).  The first public room
# is the hub the doors connect to.
PROGRAMS: dict[int, tuple[tuple[tuple[str, float], ...], ...]] = {
    2: (
        (("living_room", 3.0), ("kitchen", 2.0)),
        (("living_room", 3.0), ("bedroom", 2.0)),
        (("study", 2.0), ("bedroom", 2.0)),
    ),
    3: (
        (("living_room", 3.0), ("kitchen", 2.0), ("bedroom", 2.0)),
        (("living_room", 3.0), ("bedroom", 2.0), ("bathroom", 1.0)),
        (("kitchen", 2.0), ("dining_room", 2.0), ("study", 1.5)),
    ),
    4: (
        (("living_room", 3.0), ("kitchen", 2.0), ("bedroom", 2.2), ("bathroom", 1.0)),
        (("living_room", 3.0), ("dining_room", 2.0), ("kitchen", 1.8), ("study", 1.5)),
        (("hallway", 1.2), ("living_room", 3.0), ("bedroom", 2.2), ("bathroom", 1.0)),
    ),
    5: (
        (
            ("hallway", 1.3),
            ("living_room", 3.0),
            ("kitchen", 2.0),
            ("bedroom", 2.2),
            ("bathroom", 1.0),
        ),
        (
            ("living_room", 3.0),
            ("kitchen", 2.0),
            ("bedroom", 2.2),
            ("bedroom", 2.0),
            ("bathroom", 1.0),
        ),
        (
            ("hallway", 1.3),
            ("living_room", 3.0),
            ("dining_room", 2.0),
            ("study", 1.6),
            ("bedroom", 2.2),
        ),
    ),
}

PUBLIC_ROOMS = frozenset({"living_room", "hallway", "kitchen", "dining_room"})
ROOM_LABELS = {
    "living_room": "living room",
    "kitchen": "kitchen",
    "bedroom": "bedroom",
    "bathroom": "bathroom",
    "hallway": "hallway",
    "study": "study",
    "dining_room": "dining room",
}
