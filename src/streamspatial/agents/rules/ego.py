"""Rules over the camera's own path: how it moved over the last second, how high the eye is,
and which top-down map shows the walk.

* translation (forward or staying) and rotation (panning left, right or not) over the last
  second, and the distance moved (OVO-S 1.3.1-1.3.2, S3 camera displacement);
* viewpoint height: the latest pose's height above the floor, matched to the option naming the
  nearest height (none when the perception has no floor);
* the walked path against top-down map options (PNG images): the option whose start dot, end
  arrow and path line the remembered path fits best under a scale and shift.
"""

from __future__ import annotations

import base64
import io
import itertools
import math

import numpy as np

from streamspatial.agents.rules.context import (
    Answer,
    RuleContext,
    nearest_number_option,
    text_option,
)
from streamspatial.bench.conventions import END_RGB, PATH_RGB, START_RGB
from streamspatial.core.geometry import wrap_pi


def _ego_translation(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    a, b = mem.pose_at(mem.time - ctx.seconds(1.0)), mem.pose
    if a is None or b is None:
        return None
    dx, dy = b.position[0] - a.position[0], b.position[1] - a.position[1]
    fwd = dx * math.cos(a.yaw) + dy * math.sin(a.yaw)
    if math.hypot(dx, dy) < 0.15:
        return text_option(ctx, "staying")
    return text_option(ctx, "forward" if fwd > 0 else "backward")


def _ego_rotation(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    since = mem.time - ctx.seconds(1.0)
    poses = [p for p in mem.recent if p.time >= since - 1e-9]
    turn = sum(wrap_pi(b.yaw - a.yaw) for a, b in itertools.pairwise(poses))
    deg = math.degrees(turn)
    if abs(deg) < 10:
        return text_option(ctx, "not panning")
    return text_option(ctx, "panning left" if deg > 0 else "panning right")


def _displacement(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    a = mem.pose_at(mem.time - ctx.seconds(1.0))
    if a is None or mem.pose is None:
        return None
    return math.dist(a.position, mem.pose.position)


def _viewpoint_height(ctx: RuleContext) -> Answer:
    """The latest eye height above the floor.  A perception without a floor estimate (the
    classical dead-reckoned pose sits at z = 0) does not know it: no answer, not "crouching"."""
    pose = ctx.memory.pose
    if pose is None or pose.position[2] <= 0.0:
        return None
    return nearest_number_option(ctx, pose.position[2])


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
