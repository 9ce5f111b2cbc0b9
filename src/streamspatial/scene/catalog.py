"""What goes in each kind of room: room programs, furniture and small-object categories.

Every category is furnished from several textured catalogue models (see
:mod:`streamspatial.sim.house.assets.manifest`), drawn at the model's real size (the catalogue's
dimensions) times a small random scale.  Sizes here are realistic ranges in metres (width
across the front, depth, height): what the box-world fallback draws, and the sanity range
the catalogue models are checked against.  ``tints`` says how an instance may be recoloured
(upholstery dyed any colour, furniture painted in household colours, plants and screens
never): the colour a question uses is then *measured* from the rendered pixels
(:mod:`streamspatial.sim.house.colors`), never declared here.  :data:`COLORS` are the names that
measurement chooses from.

Over 400 lines on purpose: it is data — every room program and category with its size
range and tints, in one table a reader checks at once, as ProcTHOR keeps its constants.
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
    tints: str = "any"  # key of TINTS: the colours an instance may be recoloured to


def _c(
    name, smin, smax, materials, placement="wall", support=False, max_count=1, tints="any"
) -> Category:
    return Category(name, smin, smax, tuple(materials), placement, support, max_count, tints)


# Recolouring policies: palette names an instance's dominant material may take ("" keeps the
# model's own colours).  Upholstery and small objects come in any colour; furniture in the
# colours furniture is painted or stained; appliances and fixtures in theirs.
TINTS: dict[str, tuple[str, ...]] = {
    "any": ("", *tuple(COLORS)),
    "paint": ("", "white", "black", "gray", "brown", "beige", "navy", "teal", "green", "red"),
    "appliance": ("", "white", "gray", "black", "beige", "red", "teal"),
    "pot": ("", "green", "teal"),  # plants: the leaves are most of what is seen
    "none": ("",),
}
# The window curtains the structure hangs (drawn per window by name, not by a category's policy).
CURTAIN_TINTS = ("", "beige", "white", "navy", "red", "teal", "gray", "green", "orange")


_SOFA = _c("sofa", (1.5, 0.70, 0.75), (2.4, 1.0, 1.0), ["fabric", "leather"])
_ARMCHAIR = _c("armchair", (0.55, 0.6, 0.7), (1.0, 0.95, 1.05), ["fabric"], max_count=2)
_CHAIR = _c("chair", (0.38, 0.42, 0.78), (0.58, 0.62, 1.0), ["wood", "plastic"], max_count=4)
_PLANT = _c(
    "potted_plant", (0.4, 0.35, 0.45), (0.85, 0.75, 1.25), ["ceramic"], max_count=2, tints="pot"
)
_DESK = _c("desk", (1.0, 0.55, 0.72), (1.9, 0.85, 1.05), ["wood"], support=True, tints="paint")
_BOOKSHELF = _c(
    "bookshelf", (0.4, 0.3, 1.4), (1.7, 0.4, 2.25), ["wood"], max_count=2, tints="paint"
)
_RUG = _c("rug", (0.8, 0.8, 0.01), (2.6, 2.0, 0.06), ["fabric"], "free", tints="paint")
_DINING = _c("dining_table", (1.0, 0.7, 0.72), (1.7, 1.25, 0.8), ["wood"], "free", True, 1, "paint")

FURNITURE: dict[str, tuple[Category, ...]] = {
    "living_room": (
        _SOFA,
        _ARMCHAIR,
        _c("coffee_table", (0.9, 0.45, 0.4), (1.5, 0.8, 0.52), ["wood"], "free", True, 1, "paint"),
        _c("tv_stand", (0.75, 0.35, 0.5), (1.6, 0.5, 1.05), ["wood"], support=True, tints="paint"),
        _BOOKSHELF,
        _PLANT,
        _c("floor_lamp", (0.27, 0.27, 0.7), (0.6, 0.6, 1.5), ["metal"]),
        _c(
            "side_table", (0.45, 0.4, 0.45), (0.7, 0.6, 0.66), ["wood"], support=True, tints="paint"
        ),
        _RUG,
    ),
    "kitchen": (
        _c("counter", (0.6, 0.6, 0.82), (1.25, 1.0, 0.98), ["stone"], support=True, tints="paint"),
        _c("refrigerator", (0.6, 0.59, 1.2), (0.95, 0.97, 1.9), ["metal"], tints="appliance"),
        _c("stove", (0.58, 0.52, 0.57), (0.62, 0.62, 0.86), ["metal"], tints="appliance"),
        _DINING,
        _CHAIR,
        _c("trash_can", (0.23, 0.23, 0.35), (0.4, 0.4, 0.75), ["plastic", "metal"]),
        _c(
            "kitchen_cabinet",
            (0.49, 0.6, 0.86),
            (0.62, 0.63, 0.9),
            ["wood"],
            support=True,
            tints="paint",
        ),
    ),
    "bedroom": (
        _c("bed", (0.95, 1.9, 0.18), (1.75, 2.2, 1.15), ["fabric"]),
        _c(
            "nightstand",
            (0.35, 0.35, 0.45),
            (0.52, 0.5, 0.74),
            ["wood"],
            support=True,
            tints="paint",
        ),
        _c("wardrobe", (0.9, 0.52, 1.95), (2.2, 0.7, 2.4), ["wood"], tints="paint"),
        _DESK,
        _c("chair", (0.38, 0.42, 0.78), (0.58, 0.62, 1.0), ["wood", "plastic"]),
        _c("dresser", (0.85, 0.45, 0.8), (1.6, 0.56, 1.4), ["wood"], support=True, tints="paint"),
        _PLANT,
        _RUG,
    ),
    "bathroom": (
        _c("bathtub", (0.9, 0.9, 0.75), (1.75, 1.65, 2.05), ["ceramic"], tints="appliance"),
        _c("toilet", (0.38, 0.52, 0.5), (0.47, 0.88, 0.8), ["ceramic"], tints="appliance"),
        _c(
            "sink_cabinet",
            (0.55, 0.45, 0.26),
            (0.95, 0.75, 1.25),
            ["ceramic"],
            support=True,
            tints="appliance",
        ),
        _c("laundry_basket", (0.3, 0.3, 0.6), (0.62, 0.55, 0.76), ["fabric"]),
        _c(
            "washing_machine",
            (0.58, 0.58, 0.72),
            (0.62, 0.65, 0.86),
            ["metal"],
            support=True,
            tints="appliance",
        ),
    ),
    "hallway": (
        _c("shoe_rack", (0.35, 0.35, 0.7), (1.6, 0.5, 1.05), ["wood"], support=True, tints="paint"),
        _c("coat_rack", (0.3, 0.35, 1.1), (1.15, 0.62, 1.45), ["metal"]),
        _PLANT,
        _c("bench", (0.85, 0.45, 0.45), (1.45, 0.9, 0.85), ["wood"]),
        _RUG,
    ),
    "study": (
        _DESK,
        _c("office_chair", (0.58, 0.6, 0.88), (0.7, 0.7, 1.1), ["fabric"]),
        _BOOKSHELF,
        _c(
            "filing_cabinet",
            (0.38, 0.38, 0.6),
            (1.05, 0.56, 1.55),
            ["metal"],
            support=True,
            tints="paint",
        ),
        _ARMCHAIR,
        _RUG,
    ),
    "dining_room": (
        _DINING,
        _CHAIR,
        _c("sideboard", (1.3, 0.45, 0.5), (1.7, 0.56, 1.1), ["wood"], support=True, tints="paint"),
        _PLANT,
        _RUG,
    ),
}

SMALL: tuple[Category, ...] = (
    _c("mug", (0.08, 0.08, 0.04), (0.12, 0.13, 0.14), ["ceramic"], "on"),
    _c("book", (0.1, 0.2, 0.01), (0.3, 0.3, 0.04), ["paper"], "on"),
    _c("vase", (0.2, 0.2, 0.25), (0.3, 0.3, 0.45), ["ceramic", "glass"], "on"),
    _c("table_lamp", (0.15, 0.15, 0.3), (0.45, 0.45, 0.5), ["metal"], "on"),
    _c("laptop", (0.16, 0.2, 0.01), (0.55, 0.45, 0.42), ["metal"], "on", tints="none"),
    _c("bowl", (0.2, 0.2, 0.1), (0.45, 0.45, 0.22), ["ceramic"], "on"),
    _c("bottle", (0.05, 0.05, 0.13), (0.1, 0.1, 0.32), ["glass", "plastic"], "on"),
    _c("box", (0.3, 0.3, 0.2), (0.7, 0.6, 0.35), ["cardboard"], "on"),
    _c("toaster", (0.12, 0.2, 0.06), (0.3, 0.6, 0.3), ["metal"], "on"),
    _c("picture_frame", (0.07, 0.1, 0.1), (0.2, 0.2, 0.22), ["wood"], "on"),
    _c("plant", (0.1, 0.1, 0.08), (0.35, 0.35, 0.35), ["ceramic"], "on", tints="pot"),
    _c("speaker", (0.15, 0.2, 0.12), (0.28, 0.5, 0.4), ["plastic"], "on"),
    _c("phone", (0.1, 0.15, 0.02), (0.25, 0.25, 0.1), ["plastic"], "on"),
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

_W = {
    "living_room": 3.0,
    "kitchen": 2.0,
    "dining_room": 2.0,
    "bedroom": 2.1,
    "bathroom": 1.0,
    "hallway": 1.3,
    "study": 1.5,
}


def _program(*types: str) -> tuple[tuple[str, float], ...]:
    # Repeated types shrink a little (a second bedroom is usually the smaller one).
    seen: dict[str, int] = {}
    out = []
    for t in types:
        k = seen.get(t, 0)
        seen[t] = k + 1
        out.append((t, round(_W[t] * (1.0 - 0.08 * k), 2)))
    return tuple(out)


# Larger homes (benchmark scale): a hub, then private rooms; two layouts per size, each the
# room types in the order their rooms are grown.
_LARGE = {
    6: (
        "hallway living_room kitchen bedroom bedroom bathroom",
        "living_room dining_room kitchen study bedroom bathroom",
    ),
    7: (
        "hallway living_room kitchen dining_room bedroom bedroom bathroom",
        "living_room kitchen study bedroom bedroom bathroom bathroom",
    ),
    8: (
        "hallway living_room kitchen dining_room study bedroom bedroom bathroom",
        "hallway living_room kitchen bedroom bedroom bedroom bathroom bathroom",
    ),
    9: (
        "hallway living_room kitchen dining_room study bedroom bedroom bathroom bathroom",
        "hallway living_room kitchen dining_room bedroom bedroom bedroom bathroom hallway",
    ),
    10: (
        "hallway living_room kitchen dining_room study bedroom bedroom bedroom bathroom bathroom",
        "hallway living_room kitchen dining_room bedroom bedroom study bathroom hallway bathroom",
    ),
    11: (
        "hallway living_room kitchen dining_room study "
        "bedroom bedroom bedroom bathroom bathroom hallway",
        "hallway living_room kitchen dining_room study "
        "study bedroom bedroom bedroom bathroom bathroom",
    ),
    12: (
        "hallway living_room kitchen dining_room study bedroom "
        "bedroom bedroom bedroom bathroom bathroom hallway",
        "hallway living_room kitchen dining_room living_room study "
        "bedroom bedroom bedroom bathroom bathroom bathroom",
    ),
}
for _n, _layouts in _LARGE.items():
    PROGRAMS[_n] = tuple(_program(*t.split()) for t in _layouts)

DEFAULT_ROOMS = (4, 12)  # rooms per house when not given: drawn uniformly from this range

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
