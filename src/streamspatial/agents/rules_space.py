"""Rules over perceived room layouts, the walked path, and multi-turn references.

* rooms: the floor area of the room one stands in, and of the rooms visited so far (a room
  counts once the walk passed within ``COVER_RADIUS`` of ``AREA_SHARE`` of its floor, the
  benchmark's S3 definition), from the layouts perception reported (``memory.rooms``);
* which room holds an object: the perceived room whose floor polygon contains the object;
* the walked path against top-down map options (PNG images): the option whose start dot, end
  arrow and blue line the remembered path fits best under a scale and shift;
* the second turn of an S3 chain: "that object" is the one the reasoner itself named in its
  earlier answer (``RuleContext.previous``).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable

import numpy as np

from streamspatial.agents.rule_context import (
    Answer,
    RuleContext,
    nearest_number_option,
    text_option,
)
from streamspatial.agents.scene_graph import PATH_CELL, ObjectNode

COVER_RADIUS = 1.5  # m (S3 "area": rooms whose floor the walk passed near)
AREA_SHARE = 0.3
FLOOR_CELL = 0.5  # m: the floor grid coverage is counted on


def contains(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    inside = False
    for i in range(len(poly)):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def coverage(ctx: RuleContext, room: dict) -> float:
    """Share of the room's floor cells within COVER_RADIUS of a spot the camera stood on."""
    poly = [tuple(q) for q in room["polygon"]]
    xs, ys = [q[0] for q in poly], [q[1] for q in poly]
    cells = [
        (x, y)
        for x in np.arange(min(xs) + FLOOR_CELL / 2, max(xs), FLOOR_CELL)
        for y in np.arange(min(ys) + FLOOR_CELL / 2, max(ys), FLOOR_CELL)
        if contains(poly, float(x), float(y))
    ]
    if not cells:
        return 0.0
    path = (np.array(sorted(ctx.memory.path_cells), dtype=float) + 0.5) * PATH_CELL
    cc = np.array(cells)
    d2 = ((cc[:, None, :] - path[None, :, :]) ** 2).sum(-1).min(axis=1)
    return float((d2 <= COVER_RADIUS**2).mean())


def _current_room_area(ctx: RuleContext) -> Answer:
    room = ctx.memory.rooms.get(ctx.memory.scene or "")
    return None if room is None else float(room["area"])


def _area(ctx: RuleContext) -> Answer:
    rooms = [r for r in ctx.memory.rooms.values() if coverage(ctx, r) >= AREA_SHARE]
    return float(sum(r["area"] for r in rooms)) if rooms else None


def room_of(ctx: RuleContext, node: ObjectNode) -> str | None:
    """The perceived room whose floor holds the object, else where it was seen from."""
    x, y, _ = node.position
    for name, room in ctx.memory.rooms.items():
        if contains([tuple(q) for q in room["polygon"]], x, y):
            return name
    return node.scene


def _out_of_view(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    room = None if n is None else room_of(ctx, n)
    return None if room is None else text_option(ctx, room)


# -- S3 chains: the object the earlier answer named ------------------------------------------


def _previous(ctx: RuleContext) -> ObjectNode | None:
    return ctx.node(ctx.previous[0]) if ctx.previous else None


QUADRANTS = ("front-left", "front-right", "back-left", "back-right")


def _tem_horizontal_direction(ctx: RuleContext) -> Answer:
    n, pose = _previous(ctx), ctx.memory.pose
    if n is None or pose is None:
        return None
    ahead, left, _ = pose.to_ego(n.position)
    label = ("front-" if ahead >= 0 else "back-") + ("left" if left > 0 else "right")
    return next((letter for letter, t in ctx.options if t.lower() == label), None)


def _tem_spatial_distance_ref(ctx: RuleContext) -> Answer:
    n = _previous(ctx)
    refs = [m for m in ctx.mentions if m.start >= ctx.question.find("distance from that")]
    ref = ctx.node(refs[-1]) if refs else None
    if n is None or ref is None:
        return None
    d = math.dist(n.position, ref.position)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _tem_cam_obj_distance_ref(ctx: RuleContext) -> Answer:
    n, pose = _previous(ctx), ctx.memory.pose
    if n is None or pose is None:
        return None
    return math.dist(pose.position, n.position)


# -- trajectory map alignment -----------------------------------------------------------------

START_RGB = (20, 160, 40)
END_RGB = (210, 30, 30)
PATH_RGB = (30, 80, 200)


def _mask(img: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    return np.abs(img.astype(int) - np.array(rgb)).sum(-1) < 60


def _read_map(data_url: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Start dot centre, end arrow centre and blue path pixels (x, y) of a map option."""
    from PIL import Image

    try:
        raw = base64.b64decode(data_url.split(",", 1)[1])
        img = np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"))
    except (ValueError, OSError, IndexError):
        return None
    out = []
    for rgb in (START_RGB, END_RGB, PATH_RGB):
        ys, xs = np.nonzero(_mask(img, rgb))
        if len(xs) == 0:
            return None
        out.append(np.stack([xs, ys], axis=1).astype(float))
    return out[0].mean(axis=0), out[1].mean(axis=0), out[2]


def _map_misfit(path: np.ndarray, start: np.ndarray, end: np.ndarray, blue: np.ndarray) -> float:
    """How far the path, placed by scale + shift (y flipped) on start and end, lies from the
    drawn line: mean pixel distance; infinite when no positive scale places it."""
    world = np.stack([path[:, 0], -path[:, 1]], axis=1)
    a, b = world[0], world[-1]
    span = b - a
    if np.linalg.norm(span) < 1e-6:
        return math.inf
    scale = float(np.dot(end - start, span) / np.dot(span, span))
    if scale <= 0:
        return math.inf
    shift = (start + end) / 2 - scale * (a + b) / 2
    placed = world * scale + shift
    d = np.sqrt(((placed[:, None, :] - blue[None, ::3, :]) ** 2).sum(-1)).min(axis=1)
    ends = np.linalg.norm(placed[0] - start) + np.linalg.norm(placed[-1] - end)
    return float(d.mean() + ends)


def _trajectory_map(ctx: RuleContext) -> Answer:
    poses = list(ctx.memory.chain)
    if ctx.memory.pose is not None and (not poses or poses[-1] is not ctx.memory.pose):
        poses.append(ctx.memory.pose)
    if len(poses) < 3:
        return None
    path = np.array([p.position[:2] for p in poses], dtype=float)
    best, best_fit = None, math.inf
    for o in ctx.item.options:
        if o.image is None:
            continue
        got = _read_map(o.image)
        if got is None:
            continue
        fit = _map_misfit(path, *got)
        if fit < best_fit:
            best, best_fit = o.letter, fit
    return best


def _explore_room_count(ctx: RuleContext) -> Answer:
    """Objects of the asked label(s) on the floor of the room one stands in: what looking
    around (the exploration views ingested after t_q) adds to what the stream showed."""
    labels = ctx.target_labels()
    room = ctx.memory.rooms.get(ctx.memory.scene or "")
    if labels is None or room is None:
        return None
    poly = [tuple(q) for q in room["polygon"]]
    return float(
        sum(
            1
            for n in ctx.memory.nodes()
            if n.label in labels and contains(poly, n.position[0], n.position[1])
        )
    )


RULES: dict[str, Callable[[RuleContext], Answer]] = {
    "explore_room_count": _explore_room_count,
    "current_room_area": _current_room_area,
    "area": _area,
    "out_of_view": _out_of_view,
    "tem_horizontal_direction": _tem_horizontal_direction,
    "tem_spatial_distance_ref": _tem_spatial_distance_ref,
    "tem_cam_obj_distance_ref": _tem_cam_obj_distance_ref,
    "trajectory_map": _trajectory_map,
}

__all__ = ["RULES", "contains", "coverage", "room_of"]
