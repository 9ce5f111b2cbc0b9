"""Rooms as textured surfaces: floors, walls with door and window openings, ceilings, frames,
windows onto an outside, lamps — with the lighting baked into each surface's image.

Each room gets its own floor, wall and ceiling images (see :mod:`streamspatial.sim.house.materials`)
covering exactly its surfaces, which is what lets occlusion and lamp light be baked in: the
image *is* the lit surface.  Walls are drawn per room as the inner faces of the plan's wall
boxes (half a thickness in from the polygon edge), so depth and ids agree with the box
geometry the tests ray-cast.  Geom names carry the room they belong to (``s_<room>_…``,
``w_<room>_…``; ``d_<door>_…`` for door frames, which belong to both sides) for per-view
culling.  Where doors, windows and the house's outer walls go is decided in
:mod:`streamspatial.sim.house.facade`.  Everything is a pure function of the house.

Over 400 lines on purpose: floors, walls with openings, ceilings, frames and lamps are
baked into the same per-room images from the same lighting, so the surfaces of a room are
built and lit in one place.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from streamspatial.sim.house import materials as mat
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
from streamspatial.sim.render.mjcf import SceneBuilder, grain_texture, instance_model
from streamspatial.sim.house.occupancy import FLAT, _in_polygon
from streamspatial.sim.render.scene import _rectangles
from streamspatial.sim.types import House, Room

FRAME = 0.06  # width of door casings and window frames
LAMP_DROP = 0.15  # lamp light sits this far below the ceiling
EXTERIOR = (0.82, 0.8, 0.74)  # render colour of the house's outer walls


@dataclass
class Lighting:
    """Where light comes from, for baking and for the runtime lights."""

    lamps: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # room → pos
    windows: list[tuple[int, tuple[float, float], tuple[float, float], float]] = field(
        default_factory=list
    )  # (room, centre xy, inward normal xy, width)


# ----------------------------------------------------------------------------- geometry


def _quads(rects, origin, along, up, normal, uv_of):
    """Vertices, normals, uvs, faces of axis rectangles (s0, s1, z0, z1) on a plane."""
    verts, uvs, faces = [], [], []
    for s0, s1, z0, z1 in rects:
        k = len(verts)
        for s, z in ((s0, z0), (s1, z0), (s1, z1), (s0, z1)):
            verts.append(origin + along * s + up * z)
            uvs.append(uv_of(s, z))
        faces += [[k, k + 1, k + 2], [k, k + 2, k + 3]]
    v = np.array(verts, dtype=np.float32)
    f = np.array(faces, dtype=np.int32)
    # Wind every triangle to face ``normal``.
    if len(f):
        tri = v[f]
        cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        flip = cross @ normal < 0
        f[flip] = f[flip][:, ::-1]
    n = np.tile(np.asarray(normal, dtype=np.float32), (len(v), 1))
    return v, n, np.array(uvs, dtype=np.float32), f


def box_mesh(center, half, yaw: float = 0.0):
    """A box as 24 vertices (flat normals) with box-projected uvs; centred at the origin."""
    hx, hy, hz = half
    vs, ns, fs = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            nrm = np.zeros(3)
            nrm[axis] = sign
            u_ax, v_ax = [a for a in range(3) if a != axis]
            k = len(vs)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis] = sign * half[axis]
                p[u_ax] = du * half[u_ax]
                p[v_ax] = dv * half[v_ax]
                vs.append(p)
                ns.append(nrm)
            tri = [[k, k + 1, k + 2], [k, k + 2, k + 3]]
            a = np.array(vs[k + 1]) - np.array(vs[k])
            b = np.array(vs[k + 2]) - np.array(vs[k])
            if np.cross(a, b) @ nrm < 0:
                tri = [t[::-1] for t in tri]
            fs += tri
    del hx, hy, hz
    v = np.array(vs, dtype=np.float32)
    return v, np.array(ns, dtype=np.float32), np.array(fs, dtype=np.int32)


# ----------------------------------------------------------------------------- baking


def _lamp_term(points: np.ndarray, normals: np.ndarray, lamp) -> np.ndarray:
    d = np.asarray(lamp, dtype=np.float32) - points
    dist2 = (d**2).sum(axis=-1) + 0.25
    cos = np.clip((d * normals).sum(axis=-1) / np.sqrt(dist2), 0, 1)
    return cos / dist2


def _window_term(points: np.ndarray, normals: np.ndarray, windows, room: int) -> np.ndarray:
    out = np.zeros(points.shape[:-1], dtype=np.float32)
    for r, c, n, w in windows:
        if r != room:
            continue
        src = np.array([c[0] - n[0] * 0.1, c[1] - n[1] * 0.1, 1.5], dtype=np.float32)
        d = src - points
        dist2 = (d**2).sum(axis=-1) + 0.3
        nd = np.array([n[0], n[1], 0.0], dtype=np.float32)
        out += (
            w
            * np.clip(-(d @ nd) / np.sqrt(dist2), 0, 1)
            * np.clip((d * normals).sum(-1) / np.sqrt(dist2), 0, 1)
            / dist2
        )
    return out


def _shade(ao: np.ndarray, direct: np.ndarray) -> np.ndarray:
    return np.clip(0.8 * ao + 0.6 * direct, 0.3, 1.3)[..., None]


def floor_image(rng, house: House, room: Room, look: mat.RoomLook, light: Lighting):
    (x0, y0), (x1, y1) = _bbox(room)
    ppm = mat.FLOOR_PPM
    w, h = _texels(x1 - x0, y1 - y0, ppm)
    img = mat.PATTERNS[look.floor](rng, h, w, ppm, look.floor_rgb)  # rows = +y
    xs = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
    ys = y0 + (np.arange(h) + 0.5) * (y1 - y0) / h
    gx, gy = np.meshgrid(xs, ys)
    inside = _in_polygon(gx, gy, room.polygon)
    t = 0.05
    px = (x1 - x0) / w
    d_wall = ndimage.distance_transform_edt(inside) * px - t
    ao = 1 - 0.4 * np.exp(-np.clip(d_wall, 0, None) / 0.18)
    foot = np.zeros_like(inside)
    for o in house.objects:
        if o.room_id != room.room_id or o.kind != "furniture" or o.size[2] < FLAT:
            continue
        (ax, ay, _), (bx, by, _) = o.aabb()
        foot |= (gx >= ax) & (gx <= bx) & (gy >= ay) & (gy <= by)
    if foot.any():
        d_f = ndimage.distance_transform_edt(~foot) * px
        ao *= 1 - 0.5 * np.exp(-d_f / 0.09) - 0.12 * np.exp(-d_f / 0.4)
    pts = np.stack([gx, gy, np.zeros_like(gx)], axis=-1).astype(np.float32)
    nrm = np.zeros_like(pts)
    nrm[..., 2] = 1
    direct = 0.9 * _lamp_term(pts, nrm, light.lamps[room.room_id])
    direct += 1.4 * _window_term(pts, nrm, light.windows, room.room_id)
    return mat.to_u8(img * _shade(ao, direct)), (x0, y0, x1, y1)


def ceiling_image(rng, room: Room, light: Lighting, height: float):
    (x0, y0), (x1, y1) = _bbox(room)
    ppm = mat.WALL_PPM
    w, h = _texels(x1 - x0, y1 - y0, ppm)
    img = mat.plaster(rng, h, w, ppm, mat.CEILING)
    xs = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
    ys = y0 + (np.arange(h) + 0.5) * (y1 - y0) / h
    gx, gy = np.meshgrid(xs, ys)
    inside = _in_polygon(gx, gy, room.polygon)
    d_wall = ndimage.distance_transform_edt(inside) * (x1 - x0) / w
    ao = 1 - 0.3 * np.exp(-d_wall / 0.25)
    lx, ly, _ = light.lamps[room.room_id]
    glow = 0.35 * np.exp(-np.hypot(gx - lx, gy - ly) / 1.2)
    pts = np.stack([gx, gy, np.full_like(gx, 1.0)], axis=-1).astype(np.float32)
    nrm = np.zeros_like(pts)
    nrm[..., 2] = 1  # daylight bounces up from the floor below the window
    direct = glow + 0.5 * _window_term(pts, nrm, light.windows, room.room_id)
    return mat.to_u8(img * _shade(ao, direct)), (x0, y0, x1, y1)


def wall_image(rng, house: House, faces: list[Face], look: mat.RoomLook, light: Lighting):
    """One atlas for all faces of a room: faces side by side along u, height along v."""
    ppm = mat.WALL_PPM
    height = house.wall_height
    total = sum(f.length for f in faces)
    w, h = _texels(total, height, ppm)
    scale = w / total
    if look.wall == "tile":
        img = mat.plaster(rng, h, w, ppm, look.wall_rgb)
        low = int(1.2 * h / height)
        img[:low] = mat.tile(rng, low, w, ppm, look.wainscot_rgb)
    else:
        img = mat.PATTERNS[look.wall](rng, h, w, ppm, look.wall_rgb)
        skirt = max(3, round(0.08 * h / height))  # a skirting board with its top edge
        board = mat.SKIRTING[int(rng.integers(len(mat.SKIRTING)))]
        img[:skirt] = mat.plaster(rng, skirt, w, ppm, board)
        img[skirt - 1 : skirt + 1] *= 0.6
    zs = (np.arange(h) + 0.5) * height / h
    shade = np.ones((h, w), dtype=np.float32)
    offsets = []
    u = 0.0
    room = faces[0].room
    for f in faces:
        c0, c1 = round(u * scale), round((u + f.length) * scale)
        offsets.append(u)
        u += f.length
        if c1 <= c0:
            continue
        s = (np.arange(c1 - c0) + 0.5) / (c1 - c0) * f.length
        gs, gz = np.meshgrid(s, zs)
        d_corner = np.minimum(gs, f.length - gs)
        ao = (1 - 0.35 * np.exp(-gz / 0.14)) * (1 - 0.22 * np.exp(-(height - gz) / 0.14))
        ao *= 1 - 0.3 * np.exp(-d_corner / 0.18)
        d = np.subtract(f.b, f.a) / max(f.length, 1e-9)
        nrm3 = np.array([f.normal[0], f.normal[1], 0.0], dtype=np.float32)
        for o in house.objects:  # soft shadow behind furniture standing against this wall
            if o.room_id != room or o.kind != "furniture" or o.size[2] < FLAT:
                continue
            (x0, y0, _), (x1, y1, z1) = o.aabb()
            corners = np.array([[x0, y0], [x1, y1], [x0, y1], [x1, y0]]) - np.array(f.a)
            gap = float((corners @ np.array(f.normal)).min())
            if gap > 0.3:
                continue
            ss = corners @ d
            ds = np.maximum(np.maximum(ss.min() - gs, gs - ss.max()), 0)
            dz = np.maximum(gz - z1, 0)
            dist = np.hypot(ds, dz) + gap
            ao *= 1 - 0.35 * np.exp(-dist / 0.12)
        px = np.asarray(f.a)[None, None, :] + gs[..., None] * d[None, None, :]
        pts = np.concatenate([px, gz[..., None]], axis=-1).astype(np.float32)
        nrm = np.broadcast_to(nrm3, pts.shape)
        direct = 0.9 * _lamp_term(pts, nrm, light.lamps[room])
        direct += 0.9 * _window_term(pts, nrm, light.windows, room)
        shade[:, c0:c1] = _shade(ao, direct)[..., 0]
    return mat.to_u8(img * shade[..., None]), offsets, total


def _bbox(room: Room):
    xs = [p[0] for p in room.polygon]
    ys = [p[1] for p in room.polygon]
    return (min(xs), min(ys)), (max(xs), max(ys))


def _texels(w_m: float, h_m: float, ppm: float) -> tuple[int, int]:
    return (
        max(8, min(mat.MAX_SIDE, round(w_m * ppm))),
        max(8, min(mat.MAX_SIDE, round(h_m * ppm))),
    )


def _outside_image(rng) -> np.ndarray:
    """Sky over trees and a lawn: what a window looks onto."""
    h, w = 192, 256
    v = np.linspace(1, 0, h)[:, None] * np.ones((1, w))
    img = np.empty((h, w, 3), dtype=np.float32)
    sky = np.stack([0.62 + 0.25 * v, 0.75 + 0.18 * v, 0.95 + 0.05 * v], axis=-1)
    img[:] = sky
    treeline = 0.45 + 0.12 * mat.noise(rng, (1, w), 2)[0] + 0.05 * mat.noise(rng, (1, w), 1)[0]
    rows = np.arange(h)[:, None] / h
    trees = rows > (1 - treeline)[None, :]
    leaf = 0.5 + 0.12 * mat.noise(rng, (h, w), 0) + 0.1 * mat.noise(rng, (h, w), 1)
    img[trees] = np.stack([0.22 * leaf, 0.42 * leaf, 0.18 * leaf], axis=-1)[trees]
    lawn = rows > 0.78
    grass = 0.55 + 0.08 * mat.noise(rng, (h, w), 0)
    img[lawn[:, 0]] = np.stack([0.35 * grass, 0.55 * grass, 0.25 * grass], axis=-1)[lawn[:, 0]]
    return mat.to_u8(img)


def _art_image(rng) -> np.ndarray:
    """A picture for a frame: an abstract of colour blocks, or a landscape."""
    h, w = 96, 128
    if rng.random() < 0.4:
        return _outside_image(rng)[::2, ::2]
    img = np.empty((h, w, 3), dtype=np.float32)
    img[:] = rng.uniform(0.5, 0.95, size=3)
    rows, cols = np.mgrid[0:h, 0:w]
    for _ in range(int(rng.integers(3, 8))):
        c = rng.uniform(0.05, 0.95, size=3)
        if rng.random() < 0.5:
            r0, c0 = int(rng.integers(h)), int(rng.integers(w))
            sel = (rows >= r0) & (rows < r0 + rng.integers(8, h // 2)) & (cols >= c0)
            sel &= cols < c0 + rng.integers(8, w // 2)
        else:
            cy, cx, rad = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(6, h / 3)
            sel = np.hypot(rows - cy, cols - cx) < rad
        img[sel] = c
    img *= 1 + 0.05 * mat.noise(rng, (h, w), 0)[..., None]
    return mat.to_u8(img)


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
    _frame_box(b, f"{name}_frame", (c[0], c[1], z), (w / 2, 0.015, hgt / 2), yaw, frame_rgb, grain)
    inner = 0.035
    front = np.array([c[0], c[1], 0.0]) + np.array([nrm[0], nrm[1], 0.0]) * 0.0165
    origin = front - np.array([d[0], d[1], 0.0]) * (w / 2 - inner)
    v, n, uv, f = _quads(
        [(0, w - 2 * inner, z - hgt / 2 + inner, z + hgt / 2 - inner)],
        origin,
        np.array([d[0], d[1], 0.0]),
        np.array([0, 0, 1.0]),
        [nrm[0], nrm[1], 0.0],
        lambda s, zz: (s / (w - 2 * inner), (zz - (z - hgt / 2 + inner)) / (hgt - 2 * inner)),
    )
    tex = b.texture(f"{name}_art", _art_image(rng))
    b.mesh_geom(f"{name}_art", v, n, f, uv, (1, 1, 1, 1), tex)
    return (s0 - 0.15, s0 + w + 0.15)


# ----------------------------------------------------------------------------- assembly


def build_structure(b: SceneBuilder, house: House) -> Lighting:
    """Add every room's surfaces, frames, windows and lamps to ``b``; returns the lights."""
    rng = np.random.default_rng([house.seed, 77])
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
    outside = b.texture("outside", _outside_image(rng))
    skin = b.texture("skin", _skin_image(np.random.default_rng([house.seed, 78])))
    for r in house.rooms:
        k = r.room_id
        look = looks[k]
        img, (x0, y0, x1, y1) = floor_image(rng, house, r, look, light)
        tex = b.texture(f"floor{k}", img[::-1])
        rects = [(q[0], q[2], q[1], q[3]) for q in _rectangles(r)]

        def uv_xy(s, z, x0=x0, y0=y0, x1=x1, y1=y1):
            return ((s - x0) / (x1 - x0), (z - y0) / (y1 - y0))

        v, n, uv, f = _quads(
            rects, np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), [0, 0, 1.0], uv_xy
        )
        b.mesh_geom(f"s_{k}_floor", v, n, f, uv, (1, 1, 1, 1), tex)
        img, _ = ceiling_image(rng, r, light, house.wall_height)
        tex = b.texture(f"ceil{k}", img[::-1])
        v, n, uv, f = _quads(
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

            v, n, uv, f = _quads(
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
        _door_leaf(b, house, door, grain)
    return light


def _frame_box(b, name, center, half, yaw, rgb, grain):
    v, n, f = box_mesh((0, 0, 0), half)
    from streamspatial.sim.render.mjcf import box_uv

    b.mesh_geom(name, v, n, f, box_uv(v, n), (*rgb, 1.0), grain, pos=center, yaw=yaw)


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
        _frame_box(
            b,
            f"d_{door.door_id}_{k}",
            (*p, DOOR_HEIGHT / 2),
            (0.015, t / 2 + 0.01, DOOR_HEIGHT / 2),
            yaw,
            rgb,
            grain,
        )
        k += 1
    _frame_box(
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
            _frame_box(
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
        _frame_box(
            b,
            f"d_{door.door_id}_{k}",
            (*p, DOOR_HEIGHT + FRAME / 2 - 0.015),
            (hw + FRAME - 0.015, 0.01, FRAME / 2),
            yaw,
            rgb,
            grain,
        )
        k += 1


LEAF_THICKNESS = 0.04


def _door_leaf(b: SceneBuilder, house: House, door, grain) -> None:
    """The door itself, opened flat against the wall of one of its rooms.

    Of the four ways it can hang (either room, either jamb) the first whose swing is all
    inside that room and clear of furniture and of other doorways is used; a door with no such
    way is left off (an opening without a leaf, as many homes have).
    """
    t = 0.1
    along = np.array([1.0, 0.0]) if door.axis == "x" else np.array([0.0, 1.0])
    across = np.array([0.0, 1.0]) if door.axis == "x" else np.array([1.0, 0.0])
    centre = np.array(door.center)
    hw = door.width / 2
    leaf = door.width - 0.08
    rng = np.random.default_rng([house.seed, 91, door.door_id])
    options = [(a, s) for a in (1, -1) for s in (1, -1)]
    rng.shuffle(options)
    for side_across, side_along in options:
        off = t / 2 + 0.012 + LEAF_THICKNESS / 2
        mid = centre + along * side_along * (hw + leaf / 2) + across * side_across * off
        room = house.room_at(*(mid + across * side_across * 0.1))
        if room is None or room not in (door.room_a, door.room_b):
            continue
        probe = [
            centre + along * side_along * (hw + k) + across * side_across * 0.15
            for k in np.linspace(0.05, leaf + 0.05, 8)
        ]
        if any(house.room_at(*p) != room for p in probe):
            continue  # a corner or another room within the swing
        lo = np.minimum(mid - along * leaf / 2, mid + along * leaf / 2) - 0.05
        hi = np.maximum(mid - along * leaf / 2, mid + along * leaf / 2) + 0.05
        lo = np.minimum(lo, mid - across * 0.1)
        hi = np.maximum(hi, mid + across * 0.1)
        clash = False
        for o in house.objects:
            if o.kind != "furniture" or o.size[2] < FLAT:
                continue
            (ax, ay, _), (bx, by, _) = o.aabb()
            if ax < hi[0] and bx > lo[0] and ay < hi[1] and by > lo[1]:
                clash = True
                break
        for other in house.doors:
            if other.door_id != door.door_id and np.all(np.abs(np.array(other.center) - mid) < 1.0):
                clash = True
        if clash:
            continue
        yaw = 0.0 if door.axis == "x" else math.pi / 2
        wood = door.door_id % 3 == 0
        rgb = (0.55, 0.38, 0.24) if wood else (0.93, 0.92, 0.88)
        half = (leaf / 2, LEAF_THICKNESS / 2, 1.02)
        v, n, f = box_mesh((0, 0, 0), half)
        uv = np.stack([(v[:, 0] + half[0]) / (2 * half[0]), (v[:, 2] + half[2]) / (2 * half[2])], 1)
        sides = np.abs(n[:, 1]) < 0.5  # the leaf's edges: plain grain
        uv[sides] = np.stack([v[sides, 1] * 8, v[sides, 2] * 2], 1)
        tex = b.texture(f"door{door.door_id}", mat.to_u8(mat.door_panels(rng, rgb, wood)))
        b.mesh_geom(
            f"d_{door.door_id}_leaf",
            v,
            n,
            f,
            uv.astype(np.float32),
            (1, 1, 1, 1),
            tex,
            pos=(*mid, 1.02),
            yaw=yaw,
        )
        knob = mid + along * side_along * (leaf / 2 - 0.07) + across * side_across * 0.035
        _frame_box(
            b,
            f"d_{door.door_id}_knob",
            (*knob, 1.0),
            (0.05, 0.012, 0.012),
            yaw,
            (0.7, 0.68, 0.6),
            grain,
        )
        return


def _window(b: SceneBuilder, name: str, face: Face, s0: float, s1: float, reach, grain, outside):
    """Frame, sill, mullion and the picture of an outside beyond the opening, reaching
    ``reach`` = (s0, s1) along the face (see :func:`~streamspatial.sim.house.facade.backdrop_span`)."""
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
        _frame_box(b, f"{name}_{j}", (float(p[0]), float(p[1]), z), half, yaw, white, grain)
    # The outside: an emissive picture a little beyond the wall, wider than the opening; the
    # image spans the opening and a metre either side, repeating further out.
    back = np.array(face.at(reach[0])) - nrm * (t + OUTSIDE_GAP)
    width, height = reach[1] - reach[0], 3.0
    u0, u_len = reach[0] - (s0 + s1) / 2, (s1 - s0) + 2.0
    origin = np.array([*back, WINDOW_SILL - 1.0])
    v, n, uv, f = _quads(
        [(0, width, 0, height)],
        origin,
        np.array([d[0], d[1], 0.0]),
        np.array([0, 0, 1.0]),
        [nrm[0], nrm[1], 0.0],
        lambda s, z: ((u0 + s) / u_len + 0.5, z / height),
    )
    b.mesh_geom(f"{name}_outside", v, n, f, uv, (1, 1, 1, 1), outside, emission=0.9)
    _curtains(b, name, face, s0, s1)


SKIN_PPM = 32  # texels per metre of the outer walls' render


def _skin_image(rng) -> np.ndarray:
    """A render for the house's outer walls: 2 m square, tiled by its uvs."""
    side = 2 * SKIN_PPM
    return mat.to_u8(mat.plaster(rng, side, side, SKIN_PPM, EXTERIOR))


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
        v, n, uv, f = _quads(
            rects, origin, along, np.array([0, 0, 1.0]), nrm, lambda s, z: (s / 2.0, z / 2.0)
        )
        b.mesh_geom(f"s_{face.room}_skin{i}_{j}", v, n, f, uv, (1, 1, 1, 1), skin)


CURTAIN_TINTS = ("", "beige", "white", "navy", "red", "teal", "gray", "green", "orange")


def _curtains(b: SceneBuilder, name: str, face: Face, s0: float, s1: float) -> None:
    """A curtain either side of a window, hung against the wall, overlapping the frame."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    tint = CURTAIN_TINTS[int(rng.integers(len(CURTAIN_TINTS)))]
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
