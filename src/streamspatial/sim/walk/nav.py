"""Camera trajectories that look like a person scanning a home (S3-Bench §3.1).

Keypoints sit at room corners, at the centres of each room's largest inscribed circle and in
front of target objects.  The walk visits them in a coverage-seeking order (each next stop is
the one that reveals the most not-yet-covered floor per metre walked, with some randomness),
now and then going back to a room already seen (a revisit), walks each doorway not yet
walked between two rooms already seen (it closes a loop: a second way between them is shown),
connects them with A* on the occupancy grid, smooths each leg with a B-spline (kept only if
every sample stays on free cells, otherwise the A* polyline is used), turns in place to face
the path, walks at a human pace, sometimes pauses at a stop, and sweeps around.

On top of that path the head moves as a person's does: it bobs with each step while walking,
glances aside now and then (a smooth turn of up to ~40° and back), looks down at a stop, and
never holds perfectly still (a slow drift of a degree or two).  At some stops the person
crouches or kneels for a few seconds and stands up again (:mod:`.posture`, for OVO-S-Bench's
viewpoint-height questions).  These only change the head (height, yaw, pitch), never where the
camera stands, so the walk stays on free floor.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from streamspatial.core.errors import InputError
from streamspatial.core.geometry import wrap_angle
from streamspatial.scene import streams
from streamspatial.scene.types import CameraPose, House, Trajectory
from streamspatial.sim.house.occupancy import Occupancy, occupancy
from streamspatial.sim.walk.head import head_motion
from streamspatial.sim.walk.motion import Motion
from streamspatial.sim.walk.posture import eye_heights
from streamspatial.sim.walk.route import astar, path_free, smooth_path


@dataclass(frozen=True)
class Keypoint:
    x: float
    y: float
    room_id: int
    kind: str  # "center", "corner", "object"; "door" beside a doorway a walk closes a loop by


# ----------------------------------------------------------------------------- keypoints


def keypoints(house: House, occ: Occupancy, rng: np.random.Generator) -> list[Keypoint]:
    """Candidate stops on the main walkable region of the house."""
    main = occ.main_component()
    out: list[Keypoint] = []
    for room in house.rooms:
        in_room = main & (occ.room == room.room_id)
        if not in_room.any():
            continue
        # Centre of the largest inscribed circle: the free cell farthest from obstacles.
        clear = np.where(in_room, occ.clearance, -1.0)
        r, c = np.unravel_index(int(np.argmax(clear)), clear.shape)
        x, y = occ.to_world(r, c)
        out.append(Keypoint(x, y, room.room_id, "center"))
        # Corners: the nearest cell to each polygon vertex that still has some open space
        # around it (a camera pressed into a corner sees only wall), kept if reasonably close.
        rr, cc = np.nonzero(in_room)
        wx = occ.origin[0] + (cc + 0.5) * occ.resolution
        wy = occ.origin[1] + (rr + 0.5) * occ.resolution
        open_enough = occ.clearance[rr, cc] >= min(0.6, float(occ.clearance[rr, cc].max()))
        for vx, vy in room.polygon:
            d = np.where(open_enough, np.hypot(wx - vx, wy - vy), np.inf)
            i = int(np.argmin(d))
            if d[i] < 1.6:
                out.append(Keypoint(float(wx[i]), float(wy[i]), room.room_id, "corner"))
        # In front of a few objects of the room.
        objs = [o for o in house.objects if o.room_id == room.room_id and o.kind == "furniture"]
        for o in rng.permutation(len(objs))[:2]:
            obj = objs[int(o)]
            d = np.hypot(wx - obj.position[0], wy - obj.position[1])
            ok = (d > 0.8) & (d < 1.6)
            if ok.any():
                i = int(np.flatnonzero(ok)[np.argmin(d[ok])])
                out.append(Keypoint(float(wx[i]), float(wy[i]), room.room_id, "object"))
    return out


def _loop_door(
    adjacency: dict[int, tuple[int, ...]],
    here: int,
    seen: set[int],
    skip: set[frozenset[int]],
) -> tuple[int, int] | None:
    """A doorway not yet walked between two rooms already seen, as (from, to): from ``here``
    when one leads out of it.  Walking it closes a loop, since the seen rooms are all joined
    by walked doorways."""
    doors = sorted(
        (a, b)
        for a in sorted(seen)
        for b in adjacency.get(a, ())
        if b in seen and a < b and frozenset((a, b)) not in skip
    )
    for a, b in doors:
        if here in (a, b):
            return (a, b) if here == a else (b, a)
    return doors[0] if doors else None


def _door_stop(
    house: House, occ: Occupancy, main: np.ndarray, a: int, b: int, side: int
) -> Keypoint | None:
    """A stop ``LOOP_STEP`` m from the doorway between rooms a and b, in a (side 0) or b (1),
    on ``main`` (the walkable region): heading for the room's centre, A* may well take
    another way round."""
    for d in house.doors:
        if {d.room_a, d.room_b} != {a, b}:
            continue
        nx, ny = (0.0, 1.0) if d.axis == "x" else (1.0, 0.0)
        room = (a, b)[side]
        for sign in (1, -1):
            x, y = d.center[0] + sign * LOOP_STEP * nx, d.center[1] + sign * LOOP_STEP * ny
            if house.room_at(x, y) != room:
                continue
            r, c = occ.to_cell(x, y)
            if 0 <= r < occ.shape[0] and 0 <= c < occ.shape[1] and main[r, c]:
                return Keypoint(x, y, room, "door")
    return None


LOOP_STEP = 0.7  # m from a doorway's centre: past the door leaf, clear of the frame


# ----------------------------------------------------------------------------- the walk


def plan_trajectory(
    house: House,
    *,
    duration: float,
    fps: float = 10.0,
    seed: int = 0,
    motion: Motion | None = None,
    occ: Occupancy | None = None,
) -> Trajectory:
    """A walk-through of ``duration`` seconds sampled at ``fps`` (``round(duration*fps)`` poses)."""
    if duration <= 0 or fps <= 0:
        raise InputError(f"duration and fps must be positive, got {duration} and {fps}")
    motion = motion or Motion()
    occ = occ or occupancy(house)
    rng = np.random.default_rng([house.seed, seed, streams.WALK])
    kps = keypoints(house, occ, rng)
    if not kps:
        raise InputError(f"house {house.house_id} has no walkable floor")
    n_frames = max(1, round(duration * fps))
    dt = 1.0 / fps

    poses: list[tuple[float, float, float, str, int]] = []  # x, y, yaw, motion, keypoint
    covered = np.zeros(occ.shape, dtype=bool)
    rr, cc = np.mgrid[0 : occ.shape[0], 0 : occ.shape[1]]
    main = occ.main_component()

    def cover(x: float, y: float) -> np.ndarray:
        r, c = occ.to_cell(x, y)
        return main & (np.hypot(rr - r, cc - c) * occ.resolution < 2.5)

    # Start at the centre of a random room, facing a random direction.
    centres = [k for k in kps if k.kind == "center"]
    cur = centres[int(rng.integers(len(centres)))]
    yaw = float(rng.uniform(-math.pi, math.pi))
    visited: list[tuple[float, float]] = []
    order_index = 0

    centre_of = {k.room_id: k for k in kps if k.kind == "center"}
    adjacency = house.adjacency()
    rooms_seen: set[int] = {cur.room_id}
    walked: set[frozenset[int]] = set()  # room pairs walked between
    tries: dict[frozenset[int], int] = {}  # stops chosen to walk each loop doorway
    given_up: set[frozenset[int]] = set()

    def emit_sweep(x: float, y: float, yaw0: float, kp: int, room_id: int, kind: str) -> float:
        # Full turns only at room centres; elsewhere (corners, in front of objects) a partial
        # sweep centred on the open side of the room, towards its centre.
        full = kind == "center" and rng.random() < motion.full_sweep_prob
        angle = motion.sweep_angle if full else float(rng.uniform(math.pi / 2, math.pi))
        if rng.random() < motion.pause_prob:
            for _ in range(max(1, round(float(rng.uniform(0.5, 2.0)) / dt))):
                poses.append((x, y, yaw0, "still", kp))
        sign = 1 if rng.random() < 0.5 else -1
        total = min(angle, motion.sweep_angle) * sign
        c = centre_of.get(room_id)
        if not full and c is not None and math.hypot(c.x - x, c.y - y) > 0.5:
            yaw0 = emit_turn(x, y, yaw0, math.atan2(c.y - y, c.x - x) - total / 2)
        steps = max(1, math.ceil(abs(total) / (motion.sweep_speed * dt)))
        for i in range(1, steps + 1):
            poses.append((x, y, yaw0 + total * i / steps, "sweep", kp))
        return yaw0 + total

    def emit_turn(x: float, y: float, yaw0: float, yaw1: float) -> float:
        delta = wrap_angle(yaw1 - yaw0)
        steps = math.ceil(abs(delta) / (motion.turn_speed * dt))
        for i in range(1, steps + 1):
            poses.append((x, y, yaw0 + delta * i / steps, "turn", -1))
        return yaw0 + delta

    def emit_walk(path: np.ndarray, yaw0: float) -> float:
        seg = np.hypot(*np.diff(path, axis=0).T)
        s = np.concatenate([[0.0], np.cumsum(seg)])
        total = float(s[-1])
        steps = max(1, math.ceil(total / (motion.walk_speed * dt)))
        max_turn = motion.turn_speed * 1.5 * dt
        prev = path[0]
        for i in range(1, steps + 1):
            d = total * i / steps
            x = float(np.interp(d, s, path[:, 0]))
            y = float(np.interp(d, s, path[:, 1]))
            ahead = min(total, d + 0.4)
            hx = float(np.interp(ahead, s, path[:, 0])) - prev[0]
            hy = float(np.interp(ahead, s, path[:, 1])) - prev[1]
            if hx * hx + hy * hy > 1e-8:
                want = math.atan2(hy, hx)
                yaw0 = yaw0 + float(np.clip(wrap_angle(want - yaw0), -max_turn, max_turn))
            poses.append((x, y, yaw0, "move", -1))
            prev = np.array([x, y])
        return yaw0

    poses.append((cur.x, cur.y, yaw, "still", -1))
    while len(poses) < n_frames:
        yaw = emit_sweep(cur.x, cur.y, yaw, order_index, cur.room_id, cur.kind)
        visited.append((cur.x, cur.y))
        covered |= cover(cur.x, cur.y)
        order_index += 1
        if len(poses) >= n_frames:
            break
        # Next stop: most newly covered floor per metre, among reachable keypoints.
        start = occ.to_cell(cur.x, cur.y)
        best = []
        for k in kps:
            if (k.x, k.y) in visited:
                continue
            gain = float((cover(k.x, k.y) & ~covered).sum())
            dist = math.hypot(k.x - cur.x, k.y - cur.y)
            best.append((gain / (1.0 + dist), k))
        if not best or max(b[0] for b in best) <= 0:
            covered[:] = False  # everything seen: start a second round
            visited = [(cur.x, cur.y)]
            continue
        best.sort(key=lambda b: -b[0])
        top = best[: min(3, len(best))]
        nxt = top[int(rng.integers(len(top)))][1]
        seen_rooms = [c for c in centres if c.room_id != cur.room_id and (c.x, c.y) in visited]
        if seen_rooms and order_index >= 3 and rng.random() < motion.revisit_prob:
            nxt = seen_rooms[int(rng.integers(len(seen_rooms)))]  # back to a room seen before
        loop = _loop_door(adjacency, cur.room_id, rooms_seen, walked | given_up)
        if motion.close_loops and loop is not None:
            door = frozenset(loop)
            tries[door] = tries.get(door, 0) + 1
            if tries[door] >= 2:  # to its near side, then across: walked, or given up
                given_up.add(door)
            stop = _door_stop(house, occ, main, *loop, side=int(cur.room_id == loop[0]))
            nxt = stop or nxt
        cells = astar(occ.free, start, occ.to_cell(nxt.x, nxt.y))
        if len(cells) < 2:
            visited.append((nxt.x, nxt.y))
            continue
        path = smooth_path(occ, cells)
        here = np.array([cur.x, cur.y])
        if path_free(occ, np.stack([here, path[1]]), occ.resolution / 2):
            path[0] = here
        else:  # the straight line from the stop would cut a blocked corner: via its cell
            path = np.vstack([here, path])
        first = path[min(len(path) - 1, 4)] - path[0]
        yaw = emit_turn(cur.x, cur.y, yaw, math.atan2(first[1], first[0]))
        start_pose = len(poses)
        yaw = emit_walk(path, yaw)
        rooms = [house.room_at(p[0], p[1]) for p in poses[start_pose:]]
        rooms = [r for r in rooms if r is not None]
        rooms_seen.update(rooms)
        walked.update(frozenset(e) for e in itertools.pairwise(rooms) if e[0] != e[1])
        cur = nxt
        cur = Keypoint(float(path[-1][0]), float(path[-1][1]), nxt.room_id, nxt.kind)

    poses = poses[:n_frames]
    z, dyaw, dpitch = head_motion(poses, motion, fps, rng)
    if motion.postures:  # its own random stream: the rest of the walk is unchanged
        base, _ = eye_heights(
            [p[3] for p in poses],
            motion.eye_height,
            fps,
            np.random.default_rng([house.seed, seed, streams.POSTURE]),
        )
        z = z - motion.eye_height + base
    out = []
    for i, (x, y, yw, mo, kp) in enumerate(poses):
        out.append(
            CameraPose(
                time=round(i * dt, 5),
                position=(round(float(x), 4), round(float(y), 4), round(float(z[i]), 4)),
                yaw=round(wrap_angle(yw + float(dyaw[i])), 5),
                pitch=round(motion.pitch + float(dpitch[i]), 5),
                motion=mo,
                keypoint=kp,
            )
        )
    return Trajectory(
        house_id=house.house_id,
        fps=fps,
        poses=tuple(out),
        keypoints=tuple((round(x, 4), round(y, 4)) for x, y in visited),
    )
