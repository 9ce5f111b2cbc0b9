"""Rooms as textured surfaces in the MuJoCo scene: floors, walls with door and window openings,
ceilings, frames, windows onto an outside, lamps, pictures and curtains.

Each room gets its own floor, wall and ceiling images, lit in advance
(:mod:`streamspatial.sim.house.baking`), laid on exactly its surfaces.  Walls are drawn per room
as the inner faces of the plan's wall boxes (half a thickness in from the polygon edge), so
depth and ids agree with the box geometry the tests ray-cast.  Geom names carry the room they
belong to (``s_<room>_…``, ``w_<room>_…``; ``d_<door>_…`` for door frames, which belong to both
sides) for per-view culling.  Where doors, windows and the house's outer walls go is decided in
:mod:`streamspatial.sim.house.facade`.  Everything is a pure function of the house.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from streamspatial.scene import catalog, streams
from streamspatial.scene.types import House
from streamspatial.sim.house import materials as mat
from streamspatial.sim.house.assets.mjcf import SceneBuilder, grain_texture, instance_model
from streamspatial.sim.house.baking import (
    Lighting,
    art_image,
    ceiling_image,
    floor_image,
    outside_image,
    skin_image,
    wall_image,
)
from streamspatial.sim.house.facade import (
    DOOR_HEIGHT,
    OUTSIDE_GAP,
    WINDOW_SILL,
    WINDOW_TOP,
    Face,
    backdrop_span,
    choose_windows,
    furniture_spans,
    openings,
    room_faces,
    skin_spans,
    split_wall,
)
from streamspatial.sim.render.door_leaf import house_leaf
from streamspatial.sim.render.meshes import frame_box, quads
from streamspatial.sim.render.scene import _rectangles

FRAME = 0.06  # width of door casings and window frames
LAMP_DROP = 0.15  # lamp light sits this far below the ceiling


def build_structure(b: SceneBuilder, house: House) -> Lighting:
    """Add every room's surfaces, frames, windows and lamps to ``b``; returns the lights."""
    rng = np.random.default_rng([house.seed, streams.STRUCTURE])
    looks = {r.room_id: mat.room_look(rng, r.room_type) for r in house.rooms}
    light = Lighting()
    faces = {r.room_id: room_faces(house, r) for r in house.rooms}
    windows: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for r in house.rooms:
        rects = _rectangles(r)
        big = max(rects, key=lambda q: (q[2] - q[0]) * (q[3] - q[1]))
        light.lamps[r.room_id] = (
            (big[0] + big[2]) / 2,
            (big[1] + big[3]) / 2,
            house.wall_height - LAMP_DROP,
        )
        for i, f in enumerate(faces[r.room_id]):
            windows[(r.room_id, i)] = ws = choose_windows(rng, house, f)
            for s0, s1 in ws:
                c = f.at((s0 + s1) / 2)
                light.windows.append((r.room_id, c, f.normal, s1 - s0))
    grain = b.texture("grain", grain_texture())
    outside = b.texture("outside", outside_image(rng))
    skin = b.texture("skin", skin_image(np.random.default_rng([house.seed, streams.SKIN])))
    for r in house.rooms:
        k = r.room_id
        look = looks[k]
        img, (x0, y0, x1, y1) = floor_image(rng, house, r, look, light)
        tex = b.texture(f"floor{k}", img[::-1])
        rects = [(q[0], q[2], q[1], q[3]) for q in _rectangles(r)]

        def uv_xy(s, z, x0=x0, y0=y0, x1=x1, y1=y1):
            return ((s - x0) / (x1 - x0), (z - y0) / (y1 - y0))

        v, n, uv, f = quads(
            rects, np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), [0, 0, 1.0], uv_xy
        )
        b.mesh_geom(f"s_{k}_floor", v, n, f, uv, (1, 1, 1, 1), tex)
        img, _ = ceiling_image(rng, r, light, house.wall_height)
        tex = b.texture(f"ceil{k}", img[::-1])
        v, n, uv, f = quads(
            rects,
            np.array([0, 0, house.wall_height]),
            np.array([1.0, 0, 0]),
            np.array([0, 1.0, 0]),
            [0, 0, -1.0],
            uv_xy,
        )
        b.mesh_geom(f"s_{k}_ceiling", v, n, f, uv, (1, 1, 1, 1), tex)
        img, offsets, total = wall_image(rng, house, faces[k], look, light)
        tex = b.texture(f"wall{k}", img[::-1])
        for i, face in enumerate(faces[k]):
            holes = openings(house, face, windows[(k, i)])
            along = np.array([*np.subtract(face.b, face.a) / face.length, 0.0])
            origin = np.array([face.a[0], face.a[1], 0.0])
            nrm = [face.normal[0], face.normal[1], 0.0]

            def uv_face(s, z, off=offsets[i], total=total):
                return ((off + s) / total, z / house.wall_height)

            v, n, uv, f = quads(
                split_wall(face.length, house.wall_height, holes),
                origin,
                along,
                np.array([0, 0, 1.0]),
                nrm,
                uv_face,
            )
            if len(f):
                b.mesh_geom(f"s_{k}_wall{i}", v, n, f, uv, (1, 1, 1, 1), tex)
            for j, (s0, s1) in enumerate(windows[(k, i)]):
                reach = backdrop_span(house, face, s0, s1)
                _window(b, f"w_{k}_{i}_{j}", face, s0, s1, reach, grain, outside)
            _skin(b, house, faces[k], i, holes, skin)
            busy = [(h0 - 0.2, h1 + 0.2) for h0, h1, *_ in holes] + furniture_spans(house, face)
            for j in range(1 if face.length < 3.0 else 2):  # long walls may hold two
                span = _paintings(rng, b, house, face, f"w_{k}_{i}_art{j}", busy)
                if span is not None:
                    busy.append(span)
        _lamp(b, k, light.lamps[k], house.wall_height)
    for door in house.doors:
        _door_frame(b, door, grain)
        house_leaf(b, house, door, grain)
    return light


def _paintings(rng, b: SceneBuilder, house: House, face: Face, name: str, busy):
    """A framed picture on a wall face, clear of openings, tall furniture and other pictures;
    returns the (s0, s1) span it took, or None."""
    if face.length < 1.4 or rng.random() < 0.15:
        return None
    w = float(rng.uniform(0.4, min(1.0, face.length / 2)))
    hgt = float(rng.uniform(0.3, 0.7))
    for _ in range(6):
        s0 = float(rng.uniform(0.3, face.length - 0.3 - w))
        if all(s0 + w < b0 or s0 > b1 for b0, b1 in busy):
            break
    else:
        return None
    d = np.subtract(face.b, face.a) / face.length
    nrm = np.array(face.normal)
    c = np.array(face.at(s0 + w / 2)) + nrm * 0.015
    z = float(rng.uniform(1.45, 1.7))
    yaw = math.atan2(d[1], d[0])
    frame_rgb = ((0.1, 0.1, 0.1), (0.45, 0.3, 0.18), (0.75, 0.62, 0.3), (0.93, 0.93, 0.9))[
        int(rng.integers(4))
    ]
    grain = b.texture("grain", grain_texture())
    frame_box(b, f"{name}_frame", (c[0], c[1], z), (w / 2, 0.015, hgt / 2), yaw, frame_rgb, grain)
    inner = 0.035
    front = np.array([c[0], c[1], 0.0]) + np.array([nrm[0], nrm[1], 0.0]) * 0.0165
    origin = front - np.array([d[0], d[1], 0.0]) * (w / 2 - inner)
    v, n, uv, f = quads(
        [(0, w - 2 * inner, z - hgt / 2 + inner, z + hgt / 2 - inner)],
        origin,
        np.array([d[0], d[1], 0.0]),
        np.array([0, 0, 1.0]),
        [nrm[0], nrm[1], 0.0],
        lambda s, zz: (s / (w - 2 * inner), (zz - (z - hgt / 2 + inner)) / (hgt - 2 * inner)),
    )
    tex = b.texture(f"{name}_art", art_image(rng))
    b.mesh_geom(f"{name}_art", v, n, f, uv, (1, 1, 1, 1), tex)
    return (s0 - 0.15, s0 + w + 0.15)


def _door_frame(b: SceneBuilder, door, grain) -> None:
    """Jamb linings and casings on both faces: the opening's reveal is never bare."""
    t = 0.1
    rgb = (0.93, 0.92, 0.88) if door.door_id % 3 else (0.55, 0.38, 0.24)
    yaw = 0.0 if door.axis == "x" else math.pi / 2
    cx, cy = door.center
    along = np.array([1.0, 0.0]) if door.axis == "x" else np.array([0.0, 1.0])
    across = np.array([0.0, 1.0]) if door.axis == "x" else np.array([1.0, 0.0])
    hw = door.width / 2
    k = 0
    for side in (-1, 1):  # jambs
        p = np.array([cx, cy]) + along * side * (hw - 0.015)
        frame_box(
            b,
            f"d_{door.door_id}_{k}",
            (*p, DOOR_HEIGHT / 2),
            (0.015, t / 2 + 0.01, DOOR_HEIGHT / 2),
            yaw,
            rgb,
            grain,
        )
        k += 1
    frame_box(
        b,
        f"d_{door.door_id}_{k}",
        (cx, cy, DOOR_HEIGHT - 0.015),
        (hw, t / 2 + 0.01, 0.015),
        yaw,
        rgb,
        grain,
    )
    k += 1
    for face in (-1, 1):  # casings, proud of each wall face
        off = across * face * (t / 2 + 0.01)
        for side in (-1, 1):
            p = np.array([cx, cy]) + off + along * side * (hw + FRAME / 2 - 0.015)
            frame_box(
                b,
                f"d_{door.door_id}_{k}",
                (*p, (DOOR_HEIGHT + FRAME) / 2),
                (FRAME / 2, 0.01, (DOOR_HEIGHT + FRAME) / 2),
                yaw,
                rgb,
                grain,
            )
            k += 1
        p = np.array([cx, cy]) + off
        frame_box(
            b,
            f"d_{door.door_id}_{k}",
            (*p, DOOR_HEIGHT + FRAME / 2 - 0.015),
            (hw + FRAME - 0.015, 0.01, FRAME / 2),
            yaw,
            rgb,
            grain,
        )
        k += 1


def _window(b: SceneBuilder, name: str, face: Face, s0: float, s1: float, reach, grain, outside):
    """Frame, sill, mullion and the picture of an outside beyond the opening, reaching
    ``reach`` = (s0, s1) along the face (see
    :func:`~streamspatial.sim.house.facade.backdrop_span`)."""
    t = 0.1
    d = np.subtract(face.b, face.a) / face.length
    nrm = np.array(face.normal)
    yaw = math.atan2(d[1], d[0])
    white = (0.95, 0.95, 0.93)
    mid = face.at((s0 + s1) / 2)
    wall_mid = np.array(mid) - nrm * t / 2  # centre line of the wall
    hw = (s1 - s0) / 2
    zc = (WINDOW_SILL + WINDOW_TOP) / 2
    hh = (WINDOW_TOP - WINDOW_SILL) / 2
    parts = [
        (wall_mid + d * (hw - 0.03), zc, (0.03, t / 2 + 0.01, hh)),
        (wall_mid - d * (hw - 0.03), zc, (0.03, t / 2 + 0.01, hh)),
        (wall_mid, WINDOW_TOP - 0.03, (hw, t / 2 + 0.01, 0.03)),
        (wall_mid + nrm * 0.04, WINDOW_SILL + 0.02, (hw + 0.05, t / 2 + 0.05, 0.02)),
        (wall_mid, zc, (0.025, 0.02, hh)),  # mullion
        (wall_mid, WINDOW_SILL + 0.62 * (WINDOW_TOP - WINDOW_SILL), (hw, 0.02, 0.02)),
    ]
    for j, (p, z, half) in enumerate(parts):
        frame_box(b, f"{name}_{j}", (float(p[0]), float(p[1]), z), half, yaw, white, grain)
    # The outside: an emissive picture a little beyond the wall, wider than the opening; the
    # image spans the opening and a metre either side, repeating further out.
    back = np.array(face.at(reach[0])) - nrm * (t + OUTSIDE_GAP)
    width, height = reach[1] - reach[0], 3.0
    u0, u_len = reach[0] - (s0 + s1) / 2, (s1 - s0) + 2.0
    origin = np.array([*back, WINDOW_SILL - 1.0])
    v, n, uv, f = quads(
        [(0, width, 0, height)],
        origin,
        np.array([d[0], d[1], 0.0]),
        np.array([0, 0, 1.0]),
        [nrm[0], nrm[1], 0.0],
        lambda s, z: ((u0 + s) / u_len + 0.5, z / height),
    )
    b.mesh_geom(f"{name}_outside", v, n, f, uv, (1, 1, 1, 1), outside, emission=0.9)
    _curtains(b, name, face, s0, s1)


def _skin(b: SceneBuilder, house: House, faces: list[Face], i: int, holes, skin) -> None:
    """The outer surface of face ``i``'s exterior stretches, with its window openings."""
    face = faces[i]
    t = house.walls[0].thickness if house.walls else 0.1
    along = np.array([*face.along, 0.0])
    nrm = np.array([-face.normal[0], -face.normal[1], 0.0])  # facing out of the house
    origin = np.array([*(np.asarray(face.a) - np.asarray(face.normal) * t), 0.0])
    windows = [h for h in holes if h[2] > 0]
    for j, (s0, s1) in enumerate(skin_spans(house, faces, i)):
        cut = [(h0 - s0, h1 - s0, z0, z1) for h0, h1, z0, z1 in windows if s0 < h0 and h1 < s1]
        rects = [
            (r0 + s0, r1 + s0, z0, z1)
            for r0, r1, z0, z1 in split_wall(s1 - s0, house.wall_height, cut)
        ]
        v, n, uv, f = quads(
            rects, origin, along, np.array([0, 0, 1.0]), nrm, lambda s, z: (s / 2.0, z / 2.0)
        )
        b.mesh_geom(f"s_{face.room}_skin{i}_{j}", v, n, f, uv, (1, 1, 1, 1), skin)


def _curtains(b: SceneBuilder, name: str, face: Face, s0: float, s1: float) -> None:
    """A curtain either side of a window, hung against the wall, overlapping the frame."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    tint = catalog.CURTAIN_TINTS[int(rng.integers(len(catalog.CURTAIN_TINTS)))]
    try:
        model = instance_model(f"Scopia#curtain|{tint}" if tint else "Scopia#curtain")
    except KeyError:  # pragma: no cover - the model is in every copy of the library
        return
    nrm = np.array(face.normal)
    width, depth, height = 0.32, 0.05, min(2.45, WINDOW_TOP + 0.3)
    yaw = math.atan2(nrm[1], nrm[0])  # the curtain's front faces into the room
    for k, s in enumerate((s0 - width / 2 + 0.08, s1 + width / 2 - 0.08)):
        if s - width / 2 < 0.02 or s + width / 2 > face.length - 0.02:
            continue
        c = np.array(face.at(s)) + nrm * (depth / 2 + 0.02)
        b.add_object(
            model,
            instance_id=k,
            pos=(float(c[0]), float(c[1]), height / 2),
            yaw=yaw,
            size=(depth, width, height),
            prefix=f"{name}_curtain",
        )


def _lamp(b: SceneBuilder, room: int, pos, height: float) -> None:
    import mujoco

    try:
        model = instance_model("Scopia#ceiling-lamp")
        b.add_object(
            model,
            instance_id=room,
            pos=(pos[0], pos[1], height - model.size[2] / 2),
            yaw=0.0,
            prefix=f"s_{room}_lamp",
        )
    except KeyError:  # pragma: no cover - the model is in every copy of the library
        pass
    b.spec.worldbody.add_light(
        name=f"lamp{room}",
        type=mujoco.mjtLightType.mjLIGHT_POINT,
        pos=list(pos),
        diffuse=[0.45, 0.43, 0.38],
        specular=[0, 0, 0],
        attenuation=[1.0, 0.0, 0.12],
        castshadow=False,
    )
