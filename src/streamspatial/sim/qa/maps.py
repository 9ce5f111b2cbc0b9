"""Trajectory–map alignment (OVO-S 4.3): which top-down map shows the path you walked?

Options are small PNG maps (data URLs drawn with Pillow): the floor plan of the rooms entered
so far with the walked path, a green start dot and a red end arrow.  Distractors perturb one
thing each, and never by a rigid motion of the whole drawing (a rotated copy of the true map
would be just as consistent with an egocentric video, which has no absolute north):

* *orientation* — the path rotated 90° about its centre while the plan stays;
* *shape* — the path mirrored across its own vertical axis, plan kept;
* *visit order* — the same path walked backwards (start and end swapped).
"""

from __future__ import annotations

import base64
import io
import math
import random

from PIL import Image, ImageDraw

from streamspatial.bench.conventions import END_RGB, PATH_RGB, START_RGB

from .common import intent
from .draft import Draft, DraftQuery
from .ovos import labels
from .prefix import Prefix
from .registry import Episode, family

SIZE = 192
MARGIN = 12

Pt = tuple[float, float]


def _frame(p: Prefix, rooms: list[int], path: list[Pt]):
    xs = [q[0] for r in rooms for q in p.house.room(r).polygon] + [q[0] for q in path]
    ys = [q[1] for r in rooms for q in p.house.room(r).polygon] + [q[1] for q in path]
    x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    scale = (SIZE - 2 * MARGIN) / max(x1 - x0, y1 - y0, 1e-6)

    def to_px(q: Pt) -> Pt:  # y up in the world, down in the image
        return (MARGIN + (q[0] - x0) * scale, SIZE - MARGIN - (q[1] - y0) * scale)

    return to_px


def draw_map(p: Prefix, rooms: list[int], path: list[Pt], frame_path: list[Pt]) -> str:
    """PNG data URL of the plan of ``rooms`` with ``path`` drawn over it."""
    to_px = _frame(p, rooms, frame_path)
    img = Image.new("RGB", (SIZE, SIZE), "white")
    d = ImageDraw.Draw(img)
    for r in rooms:
        poly = [to_px(q) for q in p.house.room(r).polygon]
        d.polygon(poly, fill=(235, 235, 235), outline=(90, 90, 90))
    pts = [to_px(q) for q in path]
    d.line(pts, fill=PATH_RGB, width=3, joint="curve")
    sx, sy = pts[0]
    d.ellipse((sx - 5, sy - 5, sx + 5, sy + 5), fill=START_RGB)
    (ax, ay), (bx, by) = pts[max(0, len(pts) - 4)], pts[-1]
    ang = math.atan2(by - ay, bx - ax)
    tip = (bx + 7 * math.cos(ang), by + 7 * math.sin(ang))
    left = (bx + 6 * math.cos(ang + 2.5), by + 6 * math.sin(ang + 2.5))
    right = (bx + 6 * math.cos(ang - 2.5), by + 6 * math.sin(ang - 2.5))
    d.polygon([tip, left, right], fill=END_RGB)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _rotate(path: list[Pt], ang: float) -> list[Pt]:
    cx = sum(q[0] for q in path) / len(path)
    cy = sum(q[1] for q in path) / len(path)
    c, s = math.cos(ang), math.sin(ang)
    return [(cx + c * (x - cx) - s * (y - cy), cy + s * (x - cx) + c * (y - cy)) for x, y in path]


def _mirror(path: list[Pt]) -> list[Pt]:
    cx = sum(q[0] for q in path) / len(path)
    return [(2 * cx - x, y) for x, y in path]


def path_extent(path: list[Pt]) -> float:
    xs, ys = [q[0] for q in path], [q[1] for q in path]
    return max(max(xs) - min(xs), max(ys) - min(ys))


def asymmetry(a: list[Pt], b: list[Pt]) -> float:
    """Mean distance between corresponding points: how visibly two paths differ."""
    return sum(math.dist(x, y) for x, y in zip(a, b, strict=True)) / len(a)


PERTURBATIONS = ("true", "rotated", "mirrored", "reversed")
MIN_SEPARATION_PX = 12.0


def _visibly_distinct(variants: dict[str, list[Pt]], to_px) -> bool:
    """Whether every pair of drawn maps differs where a reader looks: start dot or end arrow.

    A nearly straight walk mirrored across its own axis draws the same line as the walk
    reversed, so two options would be the same map; such prefixes yield no item.
    """
    ends = {k: (to_px(v[0]), to_px(v[-1])) for k, v in variants.items()}
    keys = list(ends)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            (sa, ea), (sb, eb) = ends[a], ends[b]
            if max(math.dist(sa, sb), math.dist(ea, eb)) < MIN_SEPARATION_PX:
                return False
    true_end = ends["true"][1]
    # Only the reversed walk may start where the true walk ends.
    return all(
        math.dist(ends[k][0], true_end) >= MIN_SEPARATION_PX for k in ("rotated", "mirrored")
    )


@family("ovos.trajectory_map", "ovos", labels("4.3.1"), "choice", min_history_s=15.0)
def trajectory_map(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    step = max(1, p.frames_back(0.5))
    path = [p.camera_xy(i) for i in range(0, p.k + 1, step)]
    if len(path) < 8 or path_extent(path) < 2.0:
        return []
    if math.dist(path[0], path[-1]) < 1.0:
        return []  # a loop: walking it backwards would look the same
    rot = _rotate(path, rng.choice((math.pi / 2, -math.pi / 2)))
    mir = _mirror(path)
    scale = path_extent(path)
    if asymmetry(path, mir) < 0.15 * scale or asymmetry(path, rot) < 0.15 * scale:
        return []  # too symmetric for the perturbation to show
    rooms = p.visited_rooms
    variants = {"true": path, "rotated": rot, "mirrored": mir, "reversed": path[::-1]}
    frame_pts = path + rot + mir
    if not _visibly_distinct(variants, _frame(p, rooms, frame_pts)):
        return []
    images = {key: draw_map(p, rooms, v, frame_pts) for key, v in variants.items()}
    if len(set(images.values())) < 4:
        return []
    order = list(PERTURBATIONS)
    return [
        Draft(
            family="ovos.trajectory_map",
            question="Which of the following top-down maps matches the path you have walked so "
            "far? (Gray: rooms; blue: path; green dot: start; red arrow: where you are now.)",
            queries=[DraftQuery(p.time, images["true"], p.spans(range(0, p.k + 1)))],
            intent=intent("trajectory_map", room_ids=rooms, distractors=order[1:]),
            choices=[images[key] for key in order],
            images=True,
        )
    ]
