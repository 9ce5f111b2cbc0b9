"""Which catalogue models furnish which category, with each model's licence and source.

``furniture.json`` beside this module is the one manifest of every model the simulator uses:
per model its library, catalogue id and name, creator, licence, source package and triangle
count.  It is written from :data:`CHOICES` by ``python -m streamspatial.sim.house.assets.manifest``
(reading the installed libraries), and read at run time by :func:`manifest`.

Models were picked per category for looking like the category at room scale and for a
triangle budget (most under 8k; a few bathroom fixtures and plants up to ~20k), since every
10k triangles in view cost about 1 ms a frame on a software renderer.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from streamspatial.sim.house.assets.sh3f import all_entries

MANIFEST = Path(__file__).with_name("furniture.json")
SOURCE = "Debian package sweethome3d-furniture 1.8 (/usr/share/sweethome3d/furniture)"

# category → catalogue ids, in preference order.
CHOICES: dict[str, tuple[str, ...]] = {
    # living room
    "sofa": (
        "Kator Legaz#mid-century-sofa",
        "Scopia#simple_sofa",
        "Blend Swap CC-0#sofa2",
        "Scopia#clear_sofa",
        "Kator Legaz#futon-couch",
        "Scopia#burlap_sofa",
    ),
    "armchair": (
        "Scopia#armchair3",
        "Scopia#armchair",
        "Blend Swap CC-BY#fotel",
        "Blend Swap CC-0#armchair2",
        "Blend Swap CC-BY#armChair2",
        "Kator Legaz#mid-century-chair",
    ),
    "coffee_table": (
        "Blend Swap CC-BY#coffeeTable",
        "Scopia#saloon_table",
        "Scopia#coffee_table",
        "Scopia#table_wood_and_iron",
        "Scopia#coffee-table2",
    ),
    "tv_stand": ("Blend Swap CC-BY#tvStand", "Blend Swap CC-0#shelves", "Scopia#box_room"),
    "bookshelf": (
        "Blend Swap CC-0#bookcase",
        "Blend Swap CC-BY#bookcase",
        "Kator Legaz#full-bookcase",
        "Blend Swap CC-0#verticalShelves",
    ),
    "potted_plant": ("Scopia#maceta", "Scopia#bonsai-tree", "Blend Swap CC-0#plant"),
    "floor_lamp": (
        "Scopia#living_lamp",
        "Kator Legaz#pedestal-vase-lamp",
        "Scopia#little_lamp3",
    ),
    "side_table": (
        "Blend Swap CC-0#bedsideTable2",
        "Blend Swap CC-BY#bedsideTable",
        "Blend Swap CC-BY#cafe_set_tonon_table",
        "Blend Swap CC-BY#cafe_set_mota_table",
    ),
    "rug": ("Kator Legaz#oriental-rug", "Scopia#round-carpet", "Scopia#tatami"),
    # kitchen
    "counter": (
        "Blend Swap CC-BY#kitchenLowerCabinet",
        "Blend Swap CC-BY#kitchenSink",
        "Blend Swap CC-0#islandExtension",
        "Blend Swap CC-BY#kitchenIsland",
    ),
    "refrigerator": (
        "Kator Legaz#fridge",
        "Blend Swap CC-0#largeFridge",
        "Blend Swap CC-0#refrigerator",
    ),
    "stove": ("Kator Legaz#propane-stove", "Blend Swap CC-0#oven", "Scopia#dryer_machine"),
    "dining_table": (
        "Blend Swap CC-BY#table",
        "Scopia#table4",
        "Scopia#wooden_table_office",
        "Scopia#white_kitchen_table",
        "Scopia#table-with-leaning-feet",
        "Blend Swap CC-0#oakTable",
        "Scopia#round-table",
        "Kator Legaz#glass-dining-table",
    ),
    "chair": (
        "Scopia#chair3",
        "Scopia#chair4",
        "Scopia#chair",
        "Blend Swap CC-0#chair2",
        "Blend Swap CC-BY#plaidChair",
        "Blend Swap CC-BY#kitchenChair",
        "Kator Legaz#dining-chair",
        "Blend Swap CC-BY#chair3",
        "Scopia#white_kitchen_chair",
        "Blend Swap CC-0#osakaChair",
    ),
    "trash_can": ("Kator Legaz#bullet-trash-can", "Blend Swap CC-0#dustbin", "Scopia#cone"),
    "kitchen_cabinet": (
        "Blend Swap CC-BY#kitchenSmallLowerCabinet",
        "Blend Swap CC-0#lowerCabinet",
        "Blend Swap CC-0#drawersCabinet",
    ),
    "washing_machine": (
        "Scopia#clothes_washing_machine",
        "Blend Swap CC-BY#washing_machine",
        "Scopia#dryer_machine",
    ),
    # bedroom
    "bed": (
        "Scopia#bed1",
        "Scopia#captains-bed",
        "Scopia#futon",
        "Scopia#convertible-sofa-BZ-opened",
    ),
    "nightstand": (
        "Blend Swap CC-0#bedsideTable2",
        "Blend Swap CC-BY#bedsideTable",
        "Blend Swap CC-0#upperShelves",
    ),
    "wardrobe": (
        "Blend Swap CC-0#wardrobeWithSlidingDoors",
        "Blend Swap CC-BY#wardrobe",
        "Blend Swap CC-BY#wardrobe2",
        "Scopia#wardrobe1",
    ),
    "desk": (
        "Blend Swap CC-BY#simpleDesk",
        "Blend Swap CC-0#desk",
        "Blend Swap CC-BY#officeTable",
        "Scopia#wooden_office_pear_table_rect",
        "Scopia#kids_wooden_desk",
    ),
    "dresser": (
        "Blend Swap CC-BY#dresserWithDrawers",
        "Blend Swap CC-BY#chest",
        "Scopia#changing-table",
        "Scopia#dressing-table",
    ),
    # bathroom
    "bathtub": ("Scopia#corner_bathtub", "Scopia#islandBath", "Blend Swap CC-0#showerStall"),
    "toilet": (
        "Blend Swap CC-BY#modernToilet",
        "Blend Swap CC-0#toiletsUnit",
        "Blend Swap CC-0#bidet",
    ),
    "sink_cabinet": (
        "Blend Swap CC-0#modernVanity",
        "Scopia#basin",
        "Blend Swap CC-0#sinkCabinet",
    ),
    "laundry_basket": (
        "Scopia#clothes-basket",
        "Scopia#shopping-basket",
        "Kator Legaz#bullet-trash-can",
    ),
    # hallway
    "shoe_rack": ("Blend Swap CC-0#shelves", "Blend Swap CC-0#upperShelves", "Scopia#box_room"),
    "coat_rack": (
        "Scopia#clothes-rack",
        "Kator Legaz#hanging-clothes1",
        "Kator Legaz#hanging-clothes2",
    ),
    "bench": ("Kator Legaz#bench", "Blend Swap CC-BY#chest", "Scopia#puff"),
    # study
    "office_chair": (
        "Scopia#office_chair",
        "Blend Swap CC-0#armchair",
        "Kator Legaz#office-chair",
    ),
    "filing_cabinet": (
        "Kator Legaz#filing-cabinet",
        "Blend Swap CC-0#cupboard",
        "Blend Swap CC-0#glassDoorCabinet",
    ),
    # dining room
    "sideboard": (
        "Blend Swap CC-BY#dresserWithDrawers",
        "Scopia#box_room",
        "Blend Swap CC-BY#tvStand",
    ),
    # small objects
    "mug": ("Kator Legaz#coffee-mug", "Blend Swap CC-BY#coffee_cup", "Blend Swap CC-0#caffe_final"),
    "book": ("Blend Swap CC-BY#book", "Kator Legaz#newspaper", "Blend Swap CC-0#cardGame"),
    "vase": ("Scopia#vase1", "Scopia#vase3", "Scopia#jar", "Scopia#old_jar"),
    "table_lamp": (
        "Blend Swap CC-0#desklamp",
        "Scopia#desk_lamp2",
        "Scopia#little_lamp2",
        "Blend Swap CC-0#JapaneseLantern",
    ),
    "laptop": ("Blend Swap CC-BY#laptop", "Scopia#tablet", "Kator Legaz#apple-imac-1998"),
    "bowl": ("Scopia#bowl", "Kator Legaz#bowl", "Scopia#bowlWithSalad", "Scopia#bowlWithFruits"),
    "bottle": (
        "Scopia#wine_bottle",
        "Kator Legaz#red-wine-bottle-01",
        "Blend Swap CC-0#tetrapak",
        "Scopia#com_bath2_jabon_pijo",
    ),
    "box": (
        "Scopia#cardboard-box",
        "Blend Swap CC-0#box",
        "Blend Swap CC-0#crate",
        "Blend Swap CC-0#ammoBox",
    ),
    "toaster": ("Scopia#toaster", "Scopia#sandwichMaker", "Blend Swap CC-BY#breadBox"),
    "picture_frame": ("Scopia#frame1", "Scopia#frame2", "Blend Swap CC-0#kalender"),
    "plant": ("Blend Swap CC-0#littlePlant", "Scopia#pottery", "Scopia#maceta"),
    "speaker": ("Blend Swap CC-0#speaker2", "Scopia#mini_stereo", "Scopia#mp3_base_for_ipad"),
    "phone": ("Scopia#phone", "Blend Swap CC-BY#wirelessOfficePhone3", "Scopia#electronicScale"),
    # structure
    "ceiling_lamp": ("Scopia#ceiling-lamp",),
    "curtain": ("Scopia#curtain",),
}


def build_manifest() -> dict:
    """The manifest of :data:`CHOICES` from the installed libraries (converting each model)."""
    from streamspatial.sim.house.assets.convert import load_model

    entries = all_entries()
    models: dict[str, dict] = {}
    for ids in CHOICES.values():
        for id_ in ids:
            if id_ in models:
                continue
            e = entries[id_]
            m = load_model(e)
            models[id_] = {
                "library": e.library,
                "name": e.name,
                "catalogue_category": e.category,
                "creator": e.creator,
                "licence": e.licence,
                "source": SOURCE,
                "model": e.model,
                "size_m": [round(v, 3) for v in (e.width, e.depth, e.height)],
                "triangles": m.triangles,
                "textured": bool(m.textures),
            }
    return {
        "note": (
            "3D models from the Sweet Home 3D furniture libraries, converted for rendering; "
            "each keeps its library's licence (CC0 or CC-BY 3.0): attribute the creator and "
            "library as listed when redistributing frames or models."
        ),
        "categories": {k: list(v) for k, v in CHOICES.items()},
        "models": models,
    }


@cache
def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def models_for(category: str) -> tuple[str, ...]:
    return tuple(manifest()["categories"].get(category, ()))


if __name__ == "__main__":  # pragma: no cover - maintenance tool
    MANIFEST.write_text(json.dumps(build_manifest(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {MANIFEST}")
