"""The gallery block in the docs and the footage frames in the HTML report."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from streamspatial.report.html import _footage_section
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.episode import render_episode
from streamspatial.sim.render.gallery import END, START, Shot, make_gallery, markdown, update_doc
from streamspatial.sim.walk.nav import plan_trajectory


def test_gallery_block_replaces_only_what_is_between_the_markers(tmp_path: Path):
    doc = tmp_path / "sim.md"
    doc.write_text(f"# Title\n\nbefore\n{START}\nold\n{END}\nafter\n", encoding="utf-8")
    img = tmp_path / "img" / "kitchen.png"
    shots = [Shot("kitchen", 7, "kitchen", img), Shot("bedroom", 8, "bedroom 2", img)]
    assert update_doc(doc, markdown(shots, tmp_path))
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nbefore\n") and text.endswith("\nafter\n")
    assert "old" not in text and "![kitchen](img/kitchen.png)" in text
    assert "house seed 8" in text
    other = tmp_path / "none.md"
    other.write_text("no markers\n", encoding="utf-8")
    assert not update_doc(other, markdown(shots, tmp_path))


def test_report_shows_frames_of_simulator_footage(tmp_path: Path):
    house = generate_house(2, n_rooms=2, furniture="boxes")
    walk = plan_trajectory(house, duration=1.0, fps=4)
    render_episode(house, walk, tmp_path / "videos" / "sim", (64, 48), name="ep")
    rep = SimpleNamespace(meta={"config": {"videos": str(tmp_path / "videos")}})
    html = _footage_section([rep])
    assert html.count("<img") == 1 and "ep" in html
    empty = SimpleNamespace(meta={"config": {"videos": str(tmp_path)}})
    (tmp_path / "nothing").mkdir()
    empty.meta["config"]["videos"] = str(tmp_path / "nothing")
    assert "no simulator footage" in _footage_section([empty])


@pytest.mark.slow
def test_gallery_has_a_frame_of_every_room_type(tmp_path: Path):
    shots = make_gallery(tmp_path, (96, 72))
    assert {s.room_type for s in shots} == {
        "living_room", "kitchen", "bedroom", "bathroom", "hallway", "study", "dining_room"
    }  # fmt: skip
    assert all(s.path.is_file() for s in shots)
