"""A hand-made dynamic episode for the event-counting families and rules.

Two rooms (a kitchen, a hallway east of it), a camera standing in the kitchen (or stepping
into the hallway for a while), and a schedule with every counted kind: a door leaf swinging
open and shut, the kitchen's lights switched off and on, a metronome swinging twice and a
person walking through three times (once with a brief occlusion).  Per-frame visibility is
written by hand, so a test can hide an actor over any stretch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from streamspatial.scene.schedule import Actor, Event, LightSwitch, Schedule, Swing, Waypoint
from streamspatial.scene.types import (
    CameraPose,
    EpisodeMeta,
    FrameRecord,
    House,
    Intrinsics,
    Room,
    SceneObject,
    Visible,
)

FPS = 10.0
DURATION = 60.0
KITCHEN, HALLWAY = 1, 2
DOOR, METRONOME, PERSON = 1000, 1001, 1002
SWING_S = 0.8  # a door leaf's swing
DOOR_SWINGS = ((10.0, True), (20.0, False), (30.0, True), (40.0, False), (50.0, True))
LIGHTS = ((15.5, False), (25.5, True), (44.0, False), (56.0, True))  # kitchen
SWINGS = (Swing(12.0, 24.0, 1.5), Swing(31.0, 40.6, 1.6))  # 8 and 6 cycles
WALKS = ((14.0, 18.0), (33.0, 37.0), (52.0, 55.0))  # a person in view
OCCLUDED = (35.0, 35.3)  # behind something for a moment during the second walk

Window = tuple[int, float, float]  # actor id, from, to: not on screen then


def house() -> House:
    rooms = (
        Room(KITCHEN, "kitchen", "kitchen", ((0, 0), (6, 0), (6, 6), (0, 6)), 36.0),
        Room(HALLWAY, "hallway", "hallway", ((6, 0), (10, 0), (10, 6), (6, 6)), 24.0),
    )
    table = SceneObject(
        1, "table", KITCHEN, (3.0, 1.0, 0.4), (1.0, 0.6, 0.8), 0.0, "red", (0.8, 0.1, 0.1), "wood"
    )
    return House("hev", 0, rooms, (), (), (table,))


def schedule() -> Schedule:
    track = [Waypoint(0.0, (6.0, 3.0, 1.0), angle=0.0)]
    events = []
    for t, opens in DOOR_SWINGS:
        a0, a1 = (0.0, 1.5) if opens else (1.5, 0.0)
        hinge = (6.0, 3.0, 1.0)
        track += [Waypoint(t, hinge, angle=a0), Waypoint(t + SWING_S, hinge, angle=a1)]
        events.append(Event("door_open" if opens else "door_close", t, t + SWING_S, DOOR, KITCHEN))
    door = Actor(DOOR, "door_leaf", "door", "white", (0.9, 0.04, 2.0), tuple(track), door_id=0)
    metronome = Actor(
        METRONOME, "pendulum", "metronome", "black", (0.1, 0.1, 0.3),
        (Waypoint(0.0, (2.0, 5.0, 1.0)),), swings=SWINGS,
    )  # fmt: skip
    for s in SWINGS:
        n = round((s.end - s.start) / s.period)
        events += [
            Event("cycle", s.start + j * s.period, s.start + (j + 1) * s.period, METRONOME)
            for j in range(n)
        ]
    walk = [Waypoint(0.0, (1.0, 1.0, 0.9), present=False)]
    for a, b in WALKS:
        walk += [Waypoint(a, (1.0, 1.0, 0.9)), Waypoint(b, (5.0, 1.0, 0.9), present=False)]
        events.append(Event("episode", a, b, PERSON, KITCHEN))
    person = Actor(PERSON, "person", "person", "blue", (0.5, 0.3, 1.7), tuple(walk))
    switches = tuple(LightSwitch(t, KITCHEN, on) for t, on in LIGHTS)
    events += [Event("light_on" if on else "light_off", t, t, KITCHEN, KITCHEN) for t, on in LIGHTS]
    events.sort(key=lambda e: (e.end, e.start))
    return Schedule((door, metronome, person), switches, tuple(events))


def in_view(actor: int, t: float) -> bool:
    if actor == PERSON:
        return any(a <= t <= b for a, b in WALKS) and not OCCLUDED[0] < t < OCCLUDED[1]
    return True


def event_meta(
    *, hidden: Sequence[Window] = (), away: tuple[float, float] | None = None
) -> EpisodeMeta:
    """The episode; ``hidden`` actors are off screen in their windows, and the camera stands in
    the hallway during ``away`` (seeing nothing of the kitchen)."""
    sched = schedule()
    frames = []
    for i in range(round(DURATION * FPS)):
        t = round(i / FPS, 5)
        gone = away is not None and away[0] <= t <= away[1]
        room = HALLWAY if gone else KITCHEN
        pose = CameraPose(t, (8.0 if gone else 3.0, 3.0, 1.5), 0.5 * math.sin(t / 7))
        dyn = tuple(
            Visible(a.actor_id, 400, (10, 10, 40, 60), 2.5)
            for a in sched.actors
            if not gone
            and in_view(a.actor_id, t)
            and not any(h == a.actor_id and lo <= t <= hi for h, lo, hi in hidden)
        )
        lit = room not in sched.lights_off_at(t)
        vis = () if gone else (Visible(1, 300, (50, 50, 90, 80), 2.0),)
        frames.append(FrameRecord(i, pose, room, vis, dyn, lit))
    return EpisodeMeta(
        house(), Intrinsics.from_vfov(160, 120, 60), FPS, tuple(frames), video="ev.mp4",
        schedule=sched,
    )  # fmt: skip
