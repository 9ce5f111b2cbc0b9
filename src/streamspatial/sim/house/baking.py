"""Each room surface's image, with its lighting baked in: the looks of a house.

Floors, walls and ceilings get one image each per room (patterns from :mod:`.materials`),
sized to the surface at a fixed texel density and covering exactly its surfaces, which is what
lets shading be *baked* in: ambient occlusion in corners and along the floor, soft contact
shadows under and behind furniture, the pool of light under the room's lamp and the patch of
daylight below each window.  The image *is* the lit surface; the renderer
(:mod:`streamspatial.sim.render.structure`) only lays it on the geometry.  Also here: the
picture of an outside a window looks onto, the pictures in frames and the render of the
house's outer walls.  Everything is a pure function of the random stream it is handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from streamspatial.scene.types import House, Room
from streamspatial.sim.house import materials as mat
from streamspatial.sim.house.facade import Face
from streamspatial.sim.house.occupancy import FLAT, _in_polygon

EXTERIOR = (0.82, 0.8, 0.74)  # render colour of the house's outer walls
SKIN_PPM = 32  # texels per metre of the outer walls' render


@dataclass
class Lighting:
    """Where light comes from, for baking and for the runtime lights."""

    lamps: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # room → pos
    windows: list[tuple[int, tuple[float, float], tuple[float, float], float]] = field(
        default_factory=list
    )  # (room, centre xy, inward normal xy, width)


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


def outside_image(rng) -> np.ndarray:
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


def art_image(rng) -> np.ndarray:
    """A picture for a frame: an abstract of colour blocks, or a landscape."""
    h, w = 96, 128
    if rng.random() < 0.4:
        return outside_image(rng)[::2, ::2]
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


def skin_image(rng) -> np.ndarray:
    """A render for the house's outer walls: 2 m square, tiled by its uvs."""
    side = 2 * SKIN_PPM
    return mat.to_u8(mat.plaster(rng, side, side, SKIN_PPM, EXTERIOR))
