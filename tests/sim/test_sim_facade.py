"""Walls, windows and the outside: no opening reaches the floor except a door, walls cover
their whole length but for openings, and the outside never stands inside the house."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from streamspatial.scene.types import House
from streamspatial.sim.house import materials as mat
from streamspatial.sim.house.assets.mjcf import SceneBuilder
from streamspatial.sim.house.facade import (
    DOOR_HEIGHT,
    OUTSIDE_GAP,
    WINDOW_SILL,
    backdrop_span,
    choose_windows,
    openings,
    room_faces,
    skin_spans,
    split_wall,
    thickness,
)
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.structure import build_structure

SEEDS = range(1000, 1024)  # 1000 (five rooms) is an L-shaped bedroom whose inside corner
# once had the outside standing in the room at floor level


def _layout(house: House):
    """Faces and windows as :func:`build_structure` draws them (same random stream)."""
    rng = np.random.default_rng([house.seed, 77])
    for r in house.rooms:
        mat.room_look(rng, r.room_type)
    out = []
    for r in house.rooms:
        faces = room_faces(house, r)
        for i, f in enumerate(faces):
            out.append((faces, i, choose_windows(rng, house, f)))
    return out


@pytest.fixture(scope="module")
def layouts():
    houses = [generate_house(1000, n_rooms=5, furniture="boxes")]
    houses += [generate_house(s, furniture="boxes") for s in SEEDS]
    return [(h, _layout(h)) for h in houses]


def _outside(house: House, p, margin: float = 0.0) -> bool:
    ring = [(0, 0), (margin, 0), (-margin, 0), (0, margin), (0, -margin)]
    return all(house.room_at(p[0] + dx, p[1] + dy) is None for dx, dy in ring)


def test_walls_cover_every_face_but_its_openings_and_only_doors_reach_the_floor(layouts):
    checked = 0
    for house, layout in layouts:
        for faces, i, windows in layout:
            f = faces[i]
            holes = openings(house, f, windows)
            rects = split_wall(f.length, house.wall_height, holes)
            for h in holes:
                assert h[2] > 0 or h[3] == DOOR_HEIGHT, (house.seed, f, h)
            for s0, s1 in windows:  # wall under the sill all along the window
                for s in np.linspace(s0 + 0.01, s1 - 0.01, 9):
                    for z in (0.01, WINDOW_SILL / 2, WINDOW_SILL - 0.01):
                        assert any(a < s < b and c < z < d for a, b, c, d in rects), (house.seed, f)
            # Every point of the face is in exactly one wall rectangle or in an opening.
            ss = np.linspace(0.013, f.length - 0.013, 97)
            zs = np.linspace(0.011, house.wall_height - 0.011, 37)
            gs, gz = np.meshgrid(ss, zs)
            n_wall = sum(
                ((gs > a) & (gs < b) & (gz > c) & (gz < d)).astype(int) for a, b, c, d in rects
            )
            in_hole = np.zeros_like(gs, dtype=bool)
            for a, b, c, d in holes:
                in_hole |= (gs >= a) & (gs <= b) & (gz >= c) & (gz <= d)
            edges = [v for r in [*rects, *holes] for v in r[:2]]
            clear = np.min(np.abs(gs[..., None] - np.asarray(edges)), axis=-1) > 1e-6
            assert np.all((n_wall + in_hole == 1)[clear]), (house.seed, f)
            checked += 1
    assert checked > 400


def test_windows_have_the_outside_behind_them_and_their_picture_stays_outside(layouts):
    n_windows = 0
    for house, layout in layouts:
        t = thickness(house)
        for faces, i, windows in layout:
            f = faces[i]
            n = np.asarray(f.normal)
            for s0, s1 in windows:
                n_windows += 1
                for s in np.linspace(s0 - 0.1, s1 + 0.1, 25):  # nothing but outside behind
                    assert _outside(house, np.asarray(f.at(s)) - n * (t + 0.1)), (house.seed, f)
                lo, hi = backdrop_span(house, f, s0, s1)
                assert lo <= s0 - 0.1 and hi >= s1 + 0.1
                for s in np.linspace(lo, hi, 60):  # the picture: clear of every room's walls
                    p = np.asarray(f.at(s)) - n * (t + OUTSIDE_GAP)
                    assert _outside(house, p, t / 2), (house.seed, f, s)
    assert n_windows > 100


def test_outer_walls_close_around_the_house(layouts):
    joined = handed_over = 0
    for house, layout in layouts:
        t = thickness(house)
        ends = []  # (world point, direction the outer wall runs out of it, face)
        for faces, i, _ in layout:
            f = faces[i]
            n, d = np.asarray(f.normal), f.along
            for s0, s1 in skin_spans(house, faces, i):
                for s in np.linspace(s0 + 0.02, s1 - 0.02, 20):  # on the outline, facing out
                    assert _outside(house, np.asarray(f.at(s)) - n * (t + 0.02)), (house.seed, f)
                ends.append((np.asarray(f.at(s0)) - n * t, -d, f))
                ends.append((np.asarray(f.at(s1)) - n * t, d, f))
        # Each end of an outer wall meets the end of another at a corner of the house, or a
        # neighbouring room's wall carries the outline on from there (straight on, or turning
        # out of the house).
        for p, e, f in ends:
            if sum(np.allclose(p, q, atol=1e-6) for q, _, _ in ends) == 2:
                joined += 1
                continue
            n = np.asarray(f.normal)
            ahead = [p + e * 0.1 + n * (t / 2 + 0.1), p + e * 0.1 - n * 0.1]  # in line, or out
            assert any(house.room_at(*q) not in (None, f.room) for q in ahead), (house.seed, f, p)
            handed_over += 1
    assert joined > 100 and handed_over > 5


def test_built_outside_pictures_never_stand_in_a_room():
    """The compiled scene: every window's outside picture keeps clear of every room."""
    house = generate_house(1000, n_rooms=5, furniture="boxes")
    b = SceneBuilder(64, 48, extent_center=(3.0, 3.0, 1.3))
    build_structure(b, house)
    m = b.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    t = thickness(house)
    pictures = skins = 0
    for g in range(m.ngeom):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or ""
        if not (name.endswith("_outside") or "_skin" in name):
            continue
        mesh = m.geom_dataid[g]
        a, k = m.mesh_vertadr[mesh], m.mesh_vertnum[mesh]
        verts = m.mesh_vert[a : a + k] @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
        lo, hi = verts[:, :2].min(0), verts[:, :2].max(0)
        for u in np.linspace(0.0, 1.0, 40):
            p = lo + (hi - lo) * u
            if name.endswith("_outside"):
                assert _outside(house, p, t / 2 - 1e-3), (name, p)
        pictures += name.endswith("_outside")
        skins += "_skin" in name
    assert pictures >= 3 and skins >= 8
