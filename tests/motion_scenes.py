"""Hand-made dynamic episodes for the motion and change families (not rendered).

A real house, a scripted camera and a :class:`~streamspatial.scene.schedule.Schedule`, with
``FrameRecord.visible``/``dynamic`` filled by a field-of-view test (no occlusion): all that the
generators and ground-truth perception read.  ``scene(seed)`` is the fixed script the tests
assert on; ``scene(seed, rng)`` varies it (heading, the person's moves, which change happens
on each surface, prop kinds, which side the second table is on) for blind checks.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from streamspatial.scene.schedule import Actor, Event, Schedule, Waypoint
from streamspatial.scene.types import CameraPose, EpisodeMeta, FrameRecord, Intrinsics, Visible
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.qa.naming import object_ref

FPS = 10.0
HFOV = math.radians(70)
PROP_KINDS = (
    "mug",
    "cup",
    "vase",
    "bowl",
    "bottle",
    "teapot",
    "jar",
    "candle",
    "apple",
    "kettle",
    "toy",
)
# person moves, in (ahead, left) metres from the camera: start → end over 3 s
MOVES = {
    "toward": ((3.6, 0.0), (2.0, 0.0)),
    "left": ((3.5, -0.9), (3.5, 0.9)),
    "right": ((3.5, 0.9), (3.5, -0.9)),
    "away": ((2.0, 0.0), (4.4, 0.0)),
}
CHANGES = ("removed", "added", "moved", "unchanged")


def surfaces(house):
    out = [
        o
        for o in house.objects
        if o.kind == "furniture" and object_ref(house, o) is not None and 0.4 < o.size[2] < 1.0
    ]
    return sorted(out, key=lambda o: (-o.size[0] * o.size[1], o.instance_id))


def _in_view(pose: CameraPose, p, far: float = 9.0) -> float | None:
    dx, dy = p[0] - pose.position[0], p[1] - pose.position[1]
    b = math.atan2(dy, dx) - pose.yaw
    b = (b + math.pi) % (2 * math.pi) - math.pi
    d = math.hypot(dx, dy)
    return d if abs(b) < HFOV / 2 - 0.05 and 0.3 < d < far else None


def _prop(aid: int, cat: str, color: str, *track: Waypoint) -> Actor:
    return Actor(aid, "prop", cat, color, (0.1, 0.1, 0.1), tuple(track))


def _change(aid, cat, color, pos, shift, kind: str, t: float) -> Actor:
    """A prop at ``pos`` to which ``kind`` happens at ``t`` (moved: by ``shift``)."""
    if kind == "removed":
        return _prop(aid, cat, color, Waypoint(0.0, pos), Waypoint(t, pos, present=False))
    if kind == "added":
        return _prop(aid, cat, color, Waypoint(0.0, pos, present=False), Waypoint(t, pos))
    if kind == "moved":
        moved = (pos[0] + shift[0], pos[1] + shift[1], pos[2])
        return _prop(aid, cat, color, Waypoint(0.0, pos), Waypoint(t, pos), Waypoint(t, moved))
    return _prop(aid, cat, color, Waypoint(0.0, pos))


def scene(
    seed: int = 11,
    rng: random.Random | None = None,
    *,
    hide_person: bool = False,
    second_change: bool = False,
    floor_carry: bool = False,
    carry_back: bool = False,
    twin: bool = False,
    ball: bool = False,
):
    """Camera at C facing table S (S2 beside it, S3 on the other side holding a prop that
    stays put): a person stands, then makes three moves in
    front; while the camera looks away (15–21 s) something happens to a prop on S, and again
    (25–28 s) on S2; then the person carries a cup from S to S2 (31–35 s), and the camera
    walks backward facing S (41–45 s).  ``second_change``: a prop of another kind also
    appears on S while the camera looks away the first time.  ``floor_carry``: the cup is
    set down on the floor beside S2 instead of on S2.  ``carry_back``: at 38–41 s the cup is
    carried on, to the floor behind the camera (out of view).  ``twin``: a second prop of the
    first one's kind, beside it, has the same change at the same time (two removed, say).
    ``ball``: a ball comes to lie on S while the camera looks away the first time."""
    house = generate_house(seed, n_rooms=4)
    s, s2, s3 = surfaces(house)[:3]
    sx, sy = s.position[0], s.position[1]
    yaw0 = rng.uniform(-math.pi, math.pi) if rng else 0.3
    side = rng.choice((-1.0, 1.0)) if rng else -1.0  # S2 to the camera's left (+) or right
    moves = rng.sample(list(MOVES), 3) if rng else ["toward", "left", "away"]
    ch1 = rng.choice(CHANGES) if rng else "removed"
    ch2 = rng.choice(CHANGES) if rng else "added"
    used = {o.category for o in house.objects}
    kinds = [k for k in PROP_KINDS if k not in used]
    if rng:
        rng.shuffle(kinds)
    cam = (sx - 3.2 * math.cos(yaw0), sy - 3.2 * math.sin(yaw0))
    fx, fy = math.cos(yaw0), math.sin(yaw0)  # camera forward
    lx, ly = -fy, fx  # camera left
    s2pos = (sx + side * 1.5 * lx, sy + side * 1.5 * ly)
    s3pos = (sx - side * 1.5 * lx + 0.8 * fx, sy - side * 1.5 * ly + 0.8 * fy)  # other side
    s2 = replace(s2, position=(s2pos[0], s2pos[1], s.aabb()[1][2] - s2.size[2] / 2))
    s3 = replace(s3, position=(s3pos[0], s3pos[1], s.aabb()[1][2] - s3.size[2] / 2))
    moved = {s2.instance_id: s2, s3.instance_id: s3}
    house = replace(house, objects=tuple(moved.get(o.instance_id, o) for o in house.objects))
    top = s.aabb()[1][2] + 0.05

    def at(a: float, b: float) -> tuple[float, float, float]:  # a ahead of C, b to its left
        return (cam[0] + a * fx + b * lx, cam[1] + a * fy + b * ly, 0.9)

    first = MOVES[moves[0]][0]
    track = [Waypoint(0.0, at(*first)), Waypoint(3.0, at(*first))]
    events = []
    t = 3.0
    for m in moves:
        a, b = MOVES[m]
        track += [Waypoint(t, at(*a)), Waypoint(t + 3.0, at(*b))]
        events.append(Event("motion", t, t + 3.0, 1000, detail={"camera_relative": m}))
        t += 4.0  # a 1-s transition to the next move's start
    track += [
        Waypoint(29.0, track[-1].position),
        Waypoint(31.0, (sx, sy, 0.9)),
        Waypoint(35.0, (s2pos[0], s2pos[1], 0.9)),
        Waypoint(60.0, (s2pos[0], s2pos[1], 0.9)),
    ]
    person = Actor(1000, "person", "person", "blue", (0.4, 0.3, 1.7), tuple(track))
    shift = (0.3 * fx, 0.3 * fy)
    a1 = _change(1001, kinds[0], "red", (sx + 0.2 * lx, sy + 0.2 * ly, top), shift, ch1, 18.0)
    on_s2 = (s2pos[0], s2pos[1], top)
    a2 = _change(1003, kinds[1], "white", on_s2, shift, ch2, 26.0)
    from_s = (sx - 0.2 * lx, sy - 0.2 * ly, top)
    to_s2 = (s2pos[0] + 0.2 * fx, s2pos[1] + 0.2 * fy, top)
    if floor_carry:  # on the floor in front of S2, nearer the camera
        to_s2 = (s2pos[0] - 0.8 * fx, s2pos[1] - 0.8 * fy, 0.05)
    cup = _prop(
        1002,
        kinds[2],
        "green",
        Waypoint(0.0, from_s),
        Waypoint(31.0, from_s),
        Waypoint(35.0, to_s2),
        *(
            [Waypoint(38.0, to_s2), Waypoint(41.0, (cam[0] - 1.5 * fx, cam[1] - 1.5 * fy, 0.05))]
            if carry_back
            else []
        ),
    )
    for ch, t, aid, surf in ((ch1, 18.0, 1001, s), (ch2, 26.0, 1003, s2)):
        if ch != "unchanged":
            events.append(Event(ch, t, t, aid, detail={"surface": surf.instance_id}))  # type: ignore[arg-type]
    events.append(Event("carried", 31.0, 35.0, 1002, detail={"from_surface": s.instance_id}))
    if carry_back:
        events.append(Event("carried", 38.0, 41.0, 1002, detail={"from_surface": None}))
    events.sort(key=lambda e: e.end)
    still = _prop(1004, kinds[3], "black", Waypoint(0.0, (s3pos[0], s3pos[1], top)))
    actors = [person, a1, cup, a2, still]
    if twin:
        spot = (sx - 0.2 * lx, sy - 0.2 * ly, top)
        actors.append(_change(1006, kinds[0], "orange", spot, shift, ch1, 18.0))
    if ball:
        spot = (sx + 0.2 * fx, sy - 0.2 * fy, top)
        track = (Waypoint(0.0, spot, present=False), Waypoint(18.0, spot))
        actors.append(Actor(1007, "ball", "ball", "red", (0.22, 0.22, 0.22), track))
    if second_change:
        spot = (sx + 0.2 * fx, sy + 0.2 * fy, top)
        actors.append(_change(1005, kinds[4], "yellow", spot, shift, "added", 18.0))
    sched = Schedule(actors=tuple(actors), events=tuple(events))

    def yaw_at(t: float) -> float:
        away = 15.0 <= t < 21.0 or 24.0 <= t < 28.0
        return yaw0 + math.pi if away else yaw0

    def cam_at(t: float) -> tuple[float, float]:
        back = max(0.0, min(t, 45.0) - 41.0) * 0.8  # walks backward at 0.8 m/s from 41 s
        return (cam[0] - back * fx, cam[1] - back * fy)

    frames = []
    for i in range(int(47 * FPS)):
        t = round(i / FPS, 4)
        x, y = cam_at(t)
        pose = CameraPose(t, (x, y, 1.5), yaw_at(t))
        vis = []
        for o in (s, s2, s3):
            d = _in_view(pose, o.position)
            if d is not None:
                vis.append(Visible(o.instance_id, 900, (40, 60, 90, 100), d))
        dyn = []
        for a in sched.actors:
            ap = a.pose_at(t)
            if hide_person and a.kind == "person":
                continue
            d = _in_view(pose, ap.position)
            if ap.present and d is not None:
                dyn.append(Visible(a.actor_id, 300, (50, 40, 70, 90), d))
        frames.append(FrameRecord(i, pose, house.room_at(x, y), tuple(vis), dynamic=tuple(dyn)))
    return EpisodeMeta(
        house=house,
        intrinsics=Intrinsics.from_vfov(160, 120, 55.0),
        fps=FPS,
        frames=tuple(frames),
        video=f"house-{seed}-dyn.mp4",
        schedule=sched,
    )
