"""Procedural surface materials (wood, tile, carpet, plaster, wallpaper) and their lighting.

Floors, walls and ceilings get one image each per room, sized to the surface at a fixed
texel density, so shading can be *baked* into them: ambient occlusion in corners and along
the floor, soft contact shadows under and behind furniture, the pool of light under the
room's lamp and the patch of daylight below each window.  Baking costs nothing per frame,
where a runtime shadow map costs ~65 ms on a software renderer.

Patterns are built from a few seeded multi-octave noise fields cropped at random offsets, so
a house's textures are a pure function of its seed.  Grain is kept strong enough (several
grey levels at 1–5 cm scale) to survive H.264 at crf 23, which smooths away anything fainter.
Every constant that sets a look is here, with the surface types each room type draws from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from streamspatial.scene import streams

FLOOR_PPM = 100  # texels per metre on floors (1 cm)
WALL_PPM = 64  # on walls and ceilings
MAX_SIDE = 2048

# Surface choices per room type: (floors, walls).  Wall "tile" is a tiled wainscot with
# paint above it.
ROOM_SURFACES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "living_room": (("wood", "wood", "carpet"), ("plaster", "wallpaper", "wallpaper")),
    "kitchen": (("tile", "tile", "wood"), ("tile", "plaster")),
    "bedroom": (("carpet", "wood"), ("wallpaper", "plaster")),
    "bathroom": (("tile",), ("tile",)),
    "hallway": (("wood", "tile"), ("plaster", "wallpaper")),
    "study": (("wood", "carpet"), ("wallpaper", "plaster")),
    "dining_room": (("wood", "tile"), ("wallpaper", "plaster")),
}
WOODS = ((0.62, 0.44, 0.28), (0.55, 0.36, 0.22), (0.72, 0.56, 0.38), (0.45, 0.30, 0.20))
TILES = ((0.85, 0.84, 0.80), (0.70, 0.68, 0.64), (0.78, 0.74, 0.66), (0.62, 0.66, 0.70))
CARPETS = ((0.60, 0.56, 0.50), (0.45, 0.48, 0.52), (0.62, 0.52, 0.44), (0.50, 0.45, 0.52))
PAINTS = (
    (0.95, 0.92, 0.85),
    (0.92, 0.88, 0.76),
    (0.84, 0.90, 0.86),
    (0.95, 0.86, 0.74),
    (0.86, 0.88, 0.95),
    (0.92, 0.82, 0.72),
    (0.80, 0.86, 0.74),
    (0.95, 0.80, 0.78),
)
SKIRTING = ((0.95, 0.95, 0.93), (0.45, 0.30, 0.2), (0.3, 0.3, 0.32))
CEILING = (0.93, 0.93, 0.91)


@lru_cache(maxsize=1)
def _noise_bank() -> tuple[np.ndarray, ...]:
    """Three 1024² zero-mean unit-variance noise fields: fine, medium, coarse (tileable)."""
    rng = np.random.default_rng(streams.NOISE_BANK)
    n = 1024
    f = np.fft.fftfreq(n)
    fx, fy = np.meshgrid(f, f)
    r = np.hypot(fx, fy) + 1e-4
    out = []
    for lo, hi in ((0.08, 0.5), (0.015, 0.08), (0.002, 0.015)):
        band = ((r >= lo) & (r < hi)) / np.sqrt(r)
        z = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
        g = np.real(np.fft.ifft2(z * band)).astype(np.float32)
        out.append((g - g.mean()) / g.std())
    return tuple(out)


def noise(rng: np.random.Generator, shape: tuple[int, int], octave: int) -> np.ndarray:
    """A crop of the bank's field ``octave`` (0 fine … 2 coarse), tiled as needed."""
    bank = _noise_bank()[octave]
    n = bank.shape[0]
    h, w = shape
    r0, c0 = int(rng.integers(n)), int(rng.integers(n))
    rows = (np.arange(h) + r0) % n
    cols = (np.arange(w) + c0) % n
    return bank[np.ix_(rows, cols)]


def _rgb(base, field: np.ndarray) -> np.ndarray:
    return np.clip(field[..., None] * np.asarray(base, dtype=np.float32), 0, 1)


def wood(rng: np.random.Generator, h: int, w: int, ppm: float, base) -> np.ndarray:
    """Planks along the image's x: staggered lengths, per-plank tone, grain and seams."""
    plank_w = float(rng.uniform(0.12, 0.2)) * ppm
    rows = np.arange(h)
    lane = (rows / plank_w).astype(int)
    n_lanes = int(lane.max()) + 1
    lengths = rng.uniform(0.8, 1.8, size=n_lanes) * ppm
    offsets = rng.uniform(0, 1, size=n_lanes) * lengths
    cols = np.arange(w)[None, :]
    pos = cols + offsets[lane][:, None]
    board = (pos // lengths[lane][:, None]).astype(np.int64)
    tone = 1.0 + 0.1 * np.sin(board * 12.9898 + lane[:, None] * 78.233) * np.cos(board * 4.1)
    g1 = noise(rng, (h, w), 0)
    g2 = noise(rng, (h, w // 8 + 1), 1)
    streak = np.repeat(g2, 8, axis=1)[:, :w]  # stretched along the plank: grain lines
    field = tone * (1.0 + 0.08 * streak + 0.05 * g1)
    seam = (rows % plank_w < 1.2)[:, None] | (np.mod(pos, lengths[lane][:, None]) < 1.2)
    field = np.where(seam, field * 0.55, field)
    return _rgb(base, field.astype(np.float32))


def tile(rng: np.random.Generator, h: int, w: int, ppm: float, base) -> np.ndarray:
    size = float(rng.choice([0.2, 0.3, 0.45, 0.6])) * ppm
    rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
    ti, tj = (rows // size).astype(int), (cols // size).astype(int)
    tone = 1.0 + 0.06 * np.sin(ti * 91.7 + tj * 47.3)
    field = tone * (1.0 + 0.04 * noise(rng, (h, w), 0) + 0.03 * noise(rng, (h, w), 1))
    grout = (rows % size < 1.5) | (cols % size < 1.5)
    field = np.where(grout, 0.6, field)
    return _rgb(base, field.astype(np.float32))


def carpet(rng: np.random.Generator, h: int, w: int, ppm: float, base) -> np.ndarray:
    field = 1.0 + 0.10 * noise(rng, (h, w), 0) + 0.05 * noise(rng, (h, w), 1)
    field += 0.04 * noise(rng, (h, w), 2)
    return _rgb(base, field.astype(np.float32))


def plaster(rng: np.random.Generator, h: int, w: int, ppm: float, base) -> np.ndarray:
    field = 1.0 + 0.07 * noise(rng, (h, w), 0) + 0.055 * noise(rng, (h, w), 1)
    field += 0.025 * noise(rng, (h, w), 2)
    return _rgb(base, field.astype(np.float32))


def wallpaper(rng: np.random.Generator, h: int, w: int, ppm: float, base) -> np.ndarray:
    """Vertical stripes with a small repeating motif, on paper grain."""
    period = float(rng.uniform(0.1, 0.25)) * ppm
    cols = np.arange(w)[None, :]
    rows = np.arange(h)[:, None]
    stripe = (np.mod(cols, period) < period * float(rng.uniform(0.3, 0.6))).astype(np.float32)
    motif = (np.cos(2 * np.pi * cols / (period / 2)) * np.cos(2 * np.pi * rows / period)) > 0.6
    field = 1.0 - 0.18 * stripe - 0.1 * (motif & (stripe > 0))
    field = field + 0.06 * noise(rng, (h, w), 0) + 0.02 * noise(rng, (h, w), 1)
    tint = np.asarray(base, dtype=np.float32) * np.asarray(
        [1.0, float(rng.uniform(0.92, 1.0)), float(rng.uniform(0.8, 0.95))], dtype=np.float32
    )
    return _rgb(tint, field.astype(np.float32))


PATTERNS = {
    "wood": wood,
    "tile": tile,
    "carpet": carpet,
    "plaster": plaster,
    "wallpaper": wallpaper,
}


@dataclass(frozen=True)
class RoomLook:
    """The surfaces one room was given."""

    floor: str
    floor_rgb: tuple[float, float, float]
    wall: str
    wall_rgb: tuple[float, float, float]
    wainscot_rgb: tuple[float, float, float]


def room_look(rng: np.random.Generator, room_type: str) -> RoomLook:
    floors, walls = ROOM_SURFACES.get(room_type, (("wood",), ("plaster",)))
    floor = floors[int(rng.integers(len(floors)))]
    palette = {"wood": WOODS, "tile": TILES, "carpet": CARPETS}[floor]
    wall = walls[int(rng.integers(len(walls)))]
    return RoomLook(
        floor=floor,
        floor_rgb=palette[int(rng.integers(len(palette)))],
        wall=wall,
        wall_rgb=PAINTS[int(rng.integers(len(PAINTS)))],
        wainscot_rgb=TILES[int(rng.integers(len(TILES)))],
    )


def to_u8(img: np.ndarray) -> np.ndarray:
    return (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)


def door_panels(rng: np.random.Generator, base, wood: bool) -> np.ndarray:
    """A panelled door leaf (front view, 1 px ≈ 4 mm): stiles, rails, bevelled panels, grain."""
    h, w = 512, 232
    if wood:
        field = 1.0 + 0.08 * np.repeat(noise(rng, (h, w // 4 + 1), 1), 4, axis=1)[:, :w]
        field += 0.05 * noise(rng, (h, w), 0)
    else:
        field = 1.0 + 0.06 * noise(rng, (h, w), 0) + 0.04 * noise(rng, (h, w), 1)
    rows, cols = np.mgrid[0:h, 0:w]
    n_rows = int(rng.choice([2, 3, 4]))
    margin, gap = 28, 22
    ph = (h - 2 * margin - (n_rows - 1) * gap) / n_rows
    pw = (w - 2 * margin - gap) / 2
    shade = np.ones((h, w), dtype=np.float32)
    for i in range(n_rows):
        for j in range(2):
            r0, c0 = margin + i * (ph + gap), margin + j * (pw + gap)
            r1, c1 = r0 + ph, c0 + pw
            inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
            edge = np.minimum.reduce([rows - r0, r1 - rows, cols - c0, c1 - cols])
            bevel = inside & (edge < 6)
            lit = bevel & ((rows - r0 < 6) | (cols - c0 < 6))  # light from the upper left
            shade[bevel] = 0.72
            shade[lit] = 1.15
            shade[inside & (edge >= 6) & (edge < 8)] = 0.85
    return _rgb(base, (field * shade).astype(np.float32))
