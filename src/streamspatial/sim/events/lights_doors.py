"""Events that need no manoeuvre: lights switched in the camera's room, door leaves swinging.

Both are placed on the finished (edited) walk: a light switch only while the camera stands in
that room for the whole time the lights are off (VCBench E1-Transit: the transition is seen);
a door swing only while the door is predicted visible for the whole swing (E1-Action) and never
within ±3 s of the camera, or the person, going through that door (a shut door would block
the walk).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import binary_dilation

from streamspatial.scene.doors import DOOR_OPEN, door_hinge, door_leaf_actor, door_leaf_track
from streamspatial.scene.schedule import Actor, Event, LightSwitch
from streamspatial.scene.types import House, Trajectory
from streamspatial.sim.events.params import (
    DOOR_CLOSED,
    DOOR_PASS_GUARD,
    DOOR_SWING,
    DOOR_SWINGS,
    DOOR_VIEW_DIST,
    LIGHT_OFF,
    LIGHT_PAIRS,
)
from streamspatial.sim.events.sightline import visible

PASS_RADIUS = 0.9  # m: the camera within this of a door's centre is going through it


def plan_lights(
    house: House, traj: Trajectory, rng: np.random.Generator, scale: float
) -> tuple[list[LightSwitch], list[Event]]:
    """Off/on pairs, each inside one stretch of the walk spent in one room."""
    fps, n = traj.fps, len(traj.poses)
    rooms = [house.room_at(p.position[0], p.position[1]) for p in traj.poses]
    runs = []  # (first, last) frame of each stay in one room
    a = 0
    for i in range(1, n + 1):
        if i == n or rooms[i] != rooms[a]:
            if rooms[a] is not None and (i - a) / fps >= LIGHT_OFF[0] + 1.0:
                runs.append((a, i - 1))
            a = i
    want = int(rng.integers(LIGHT_PAIRS[0], LIGHT_PAIRS[1] + 1) * scale + 0.5)
    switches: list[LightSwitch] = []
    events: list[Event] = []
    taken: list[tuple[float, float]] = []
    for _ in range(4 * want):
        if len(events) >= 2 * want or not runs:
            break
        lo, hi = runs[int(rng.integers(len(runs)))]
        span = (hi - lo) / fps - 0.6
        if span < LIGHT_OFF[0]:  # at 2 fps a 2-s stay leaves 0.9 s: no off that fits
            continue
        off = float(rng.uniform(LIGHT_OFF[0], min(LIGHT_OFF[1], span)))
        # Switch half-way between frames: frame i is lit, frame i+1 is dark.
        t_off = (lo + 0.3 * fps + math.floor(float(rng.uniform(0, span - off)) * fps) + 0.5) / fps
        t_on = (math.floor((t_off + off) * fps) + 0.5) / fps
        if any(t_off < b + 1.0 and t_on > a - 1.0 for a, b in taken):
            continue
        taken.append((t_off, t_on))
        room = rooms[lo]
        switches += [
            LightSwitch(round(t_off, 5), room, False),
            LightSwitch(round(t_on, 5), room, True),
        ]
        events += [
            Event("light_off", round(t_off, 5), round(t_off, 5), room, room),
            Event("light_on", round(t_on, 5), round(t_on, 5), room, room),
        ]
    switches.sort(key=lambda s: s.time)
    return switches, events


def plan_doors(
    house: House,
    traj: Trajectory,
    rng: np.random.Generator,
    scale: float,
    next_id,
    busy: list[tuple[float, float, np.ndarray]],
    aspect: float,
) -> tuple[list[Actor], list[Event]]:
    """A leaf in every door, open; some swing shut and open again while seen.

    ``busy`` holds (start, end, floor points) of the person's walks: no door is shut while
    the person walks through it.
    """
    fps, n = traj.fps, len(traj.poses)
    cam = np.array([p.position[:2] for p in traj.poses])
    want = int(rng.integers(DOOR_SWINGS[0], DOOR_SWINGS[1] + 1) * scale + 0.5)
    swing_frames = math.ceil(DOOR_SWING * fps)
    guard = round(DOOR_PASS_GUARD * fps)
    actors: list[Actor] = []
    events: list[Event] = []
    plans = []
    for door in house.doors:
        c = np.array(door.center)
        near = np.hypot(*(cam - c).T) < PASS_RADIUS
        for t0, t1, pts in busy:
            if (np.hypot(*(pts - c).T) < PASS_RADIUS).any():
                near[max(0, math.floor(t0 * fps)) : math.ceil(t1 * fps) + 1] = True
        # dilated by the guard either side (a convolution "same" would outgrow a walk shorter
        # than its kernel: a 6-second walk at 5 fps broke here)
        blocked = binary_dilation(near, np.ones(2 * guard + 1, dtype=bool))
        # too close to watch: a swing or a shut leaf there would fill the frame
        blocked |= np.hypot(*(cam - c).T) < DOOR_VIEW_DIST
        seen = visible(house, traj.poses, (c[0], c[1], 1.0), aspect=aspect)
        # The leaf opens into the room where its open swing keeps clearest of the camera's path
        # (scene.doors' convention: the leaf runs along yaw + angle from the hinge).
        best = None
        for room in (door.room_a, door.room_b):
            hinge, yaw = door_hinge(door, room, house)
            mid = np.array(hinge[:2]) + door.width / 2 * np.array(
                [math.cos(yaw + DOOR_OPEN), math.sin(yaw + DOOR_OPEN)]
            )
            score = float(np.sum(np.hypot(*(cam - mid).T) < door.width / 2 + 0.4))
            if best is None or score < best[0]:
                best = (score, room, hinge, yaw)
        plans.append([door, best[1:], seen, blocked, []])
    order = rng.permutation(len(plans)) if plans else []
    made = 0
    for k in order:
        door, (into, hinge, yaw), seen, blocked, swings = plans[int(k)]
        leaf_id = next_id()
        i = 0
        while made < want and i < n - swing_frames:
            ok_close = (
                seen[i : i + swing_frames + 1].all() and not blocked[i : i + swing_frames + 1].any()
            )
            if not ok_close or rng.random() < 0.5:
                i += 1
                continue
            shut = round(float(rng.uniform(*DOOR_CLOSED)) * fps)
            j = i + swing_frames + shut  # the reopening starts here, once it is seen
            while j < n - swing_frames and not (
                seen[j : j + swing_frames + 1].all() and not blocked[i : j + swing_frames + 1].any()
            ):
                if blocked[j]:
                    break
                j += 1
            reopen = (
                j < n - swing_frames
                and seen[j : j + swing_frames + 1].all()
                and not blocked[i : j + swing_frames + 1].any()
            )
            if not reopen and (made + 1 >= want) and not blocked[i:].any():
                reopen = None  # the last swing may leave the door shut to the end
            elif not reopen:
                i += 1
                continue
            # the leaf shuts from frame i on, and (unless left shut) opens again from frame j on
            turns = [(i, "door_close", DOOR_OPEN, 0.0), (j, "door_open", 0.0, DOOR_OPEN)]
            for frame, kind, a0, a1 in turns[: 1 if reopen is None else 2]:
                t = frame / fps
                swings.append((t, t + DOOR_SWING, a0, a1))
                room = _room(house, traj, frame, door)
                events.append(
                    Event(kind, t, round(t + DOOR_SWING, 5), leaf_id, room, {"door": door.door_id})
                )
                made += 1
            if reopen is None:
                break
            i = j + swing_frames + round(float(rng.uniform(1.0, 4.0)) * fps)
        track = door_leaf_track(hinge, yaw, swings, start_angle=DOOR_OPEN)
        actors.append(door_leaf_actor(door, leaf_id, house=house, into_room=into, track=track))
    return actors, events


def _room(house: House, traj: Trajectory, i: int, door) -> int:
    """The room of a door the camera sees it from (one of the two it joins)."""
    x, y, _ = traj.poses[i].position
    r = house.room_at(x, y)
    return r if r in (door.room_a, door.room_b) else door.room_a


__all__ = ["plan_doors", "plan_lights"]
