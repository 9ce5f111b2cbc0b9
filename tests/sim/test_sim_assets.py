"""The furniture pipeline: catalogue reading, conversion into the object frame, the manifest."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from streamspatial.scene import catalog
from streamspatial.sim.house.assets import sh3f
from streamspatial.sim.house.assets.convert import load_model
from streamspatial.sim.house.assets.manifest import CHOICES, manifest, models_for
from streamspatial.sim.house.layout import generate_house

COMMON = ("sofa", "chair", "dining_table", "bed", "wardrobe", "bookshelf", "table_lamp")


def test_properties_parser_handles_escapes_continuations_and_comments():
    text = "# comment\n! other\nname#1=Caf\\u00e9 \\\n  table\nwidth#1 = 91.5\nid#1:Lib#x\n"
    props = sh3f.parse_properties(text)
    assert props == {"name#1": "Café table", "width#1": "91.5", "id#1": "Lib#x"}


def test_missing_libraries_name_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv(sh3f.ENV_VAR, str(tmp_path))
    with pytest.raises(sh3f.FurnitureMissing) as e:
        generate_house(1)
    msg = str(e.value)
    assert "apt-get install -y sweethome3d-furniture" in msg and "\n" not in msg
    assert "--furniture boxes" in msg
    generate_house(1, n_rooms=3, furniture="boxes")  # the box world needs no libraries


def test_a_library_of_our_own_is_read_and_converted(tmp_path, monkeypatch):
    # A one-model library written here: a 2 × 1 × 0.5 unit block, front +z, y up; the
    # catalogue says it is 120 cm wide, 60 deep and 45 high.
    obj = "\n".join(
        [f"v {x} {y} {z}" for x in (0, 2) for y in (0, 0.5) for z in (0, 1)]
        + ["f 1 2 4 3", "f 5 7 8 6", "f 1 5 6 2", "f 3 4 8 7", "f 1 3 7 5", "f 2 6 8 4"]
    )
    props = (
        "id=Test\nlicense=CC0\n"
        "id#1=Test#block\nname#1=Block\ncategory#1=Living room\nmodel#1=/t/block.obj\n"
        "width#1=120\ndepth#1=60\nheight#1=45\ncreator#1=Us\n"
    )
    with zipfile.ZipFile(tmp_path / "Test.sh3f", "w") as z:
        z.writestr("PluginFurnitureCatalog.properties", props)
        z.writestr("t/block.obj", obj)
    monkeypatch.setenv(sh3f.ENV_VAR, str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sh3f.read_catalog.cache_clear()
    (entry,) = sh3f.read_catalog(tmp_path / "Test.sh3f")
    assert (entry.width, entry.depth, entry.height) == (1.2, 0.6, 0.45)
    assert entry.licence == "CC0" and entry.creator == "Us"
    m = load_model(entry)
    v = np.concatenate([p.vert for p in m.parts])
    # Object frame: x is the model's depth (its z), y its width (x), z its height (y).
    assert np.allclose(v.min(axis=0), [-0.3, -0.6, -0.225], atol=1e-6)
    assert np.allclose(v.max(axis=0), [0.3, 0.6, 0.225], atol=1e-6)
    assert m.size == pytest.approx((0.6, 1.2, 0.45))
    again = load_model(entry)  # from the cache now
    assert (tmp_path / "cache" / "streamspatial" / "furniture").is_dir()
    assert np.array_equal(np.concatenate([p.vert for p in again.parts]), v)


def test_manifest_covers_every_category_with_licence_and_source():
    man = manifest()
    cats = {c.name for group in catalog.FURNITURE.values() for c in group}
    cats |= {c.name for c in catalog.SMALL}
    for cat in cats:
        assert len(models_for(cat)) >= 3, cat
    for cat in COMMON:
        assert len(set(models_for(cat))) >= 3, cat
    for mid, info in man["models"].items():
        assert info["licence"] and info["creator"] is not None and info["source"], mid
        assert any(w in info["licence"] for w in ("Creative Commons", "Public domain")), mid
    assert set(man["categories"]) == set(CHOICES)


def test_every_manifest_model_is_installed_and_within_budget():
    entries = sh3f.all_entries()
    man = manifest()["models"]
    for mid, info in man.items():
        assert mid in entries, mid
        assert entries[mid].licence == info["licence"]
        assert info["triangles"] <= 25_000, mid  # the per-model triangle budget


def test_converted_models_match_their_catalogue_box():
    entries = sh3f.all_entries()
    for mid in ("Scopia#chair3", "Kator Legaz#oriental-rug", "Scopia#armchair1"):
        e = entries[mid]
        m = load_model(e)
        v = np.concatenate([p.vert for p in m.parts])
        ext = v.max(axis=0) - v.min(axis=0)
        assert ext == pytest.approx([e.depth, e.width, max(e.height, 0.01)], rel=1e-4)
        assert np.allclose((v.max(axis=0) + v.min(axis=0)) / 2, 0, atol=1e-4)
        for p in m.parts:
            assert np.allclose(np.linalg.norm(p.normal, axis=1), 1, atol=1e-3)
    rug = load_model(entries["Kator Legaz#oriental-rug"])
    assert rug.textures, "the rug's image is found although its MTL names an author's path"
