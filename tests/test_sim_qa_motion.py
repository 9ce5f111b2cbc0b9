"""Motion and change families on hand-made dynamic episodes: answers recomputed from the
schedule, the rules agent (ground-truth perception) agrees, and unseen motion asks nothing.

The episodes are not rendered: a real house, a scripted camera and a schedule, with
``FrameRecord.visible``/``dynamic`` filled by a field-of-view test (no occlusion), which is all
the generators and ground-truth perception read.
"""

from __future__ import annotations

import math
import random

import pytest

from agent_helpers import decide
from streamspatial.agents import Answer
from streamspatial.agents.scene_graph_rules import SceneGraphRulesAgent
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.scoring.extract import extract_choice
from streamspatial.sim.house import generate_house
from streamspatial.sim.qa import Episode, QuestionGenerator
from streamspatial.sim.qa.motion import surface_change, visits
from streamspatial.sim.qa.ovos_motion import (
    DIRECTION_TEXT,
    motion_separation,
    motion_state,
)
from streamspatial.sim.schedule import Actor, Event, Schedule, Waypoint
from streamspatial.sim.types import CameraPose, EpisodeMeta, FrameRecord, Intrinsics, Visible

FPS = 10.0
HFOV = math.radians(70)
MOTION = [
    "ovos.motion_separation",
    "ovos.motion_state",
    "ovos.relative_speed",
    "ovos.change_detection",
    "ucs.quantity_change",
    "ucs.object_trajectory",
]


class Adapter:
    def prompt(self, item, query, **kw):
        return item.question


def _surfaces(house):
    from streamspatial.sim.qa.naming import object_ref

    out = [
        o
        for o in house.objects
        if o.kind == "furniture" and object_ref(house, o) is not None and o.size[2] < 1.0
    ]
    return sorted(out, key=lambda o: -o.size[0] * o.size[1])


def _top(o) -> float:
    return o.aabb()[1][2]


def _in_view(pose: CameraPose, p, far: float = 9.0) -> float | None:
    dx, dy = p[0] - pose.position[0], p[1] - pose.position[1]
    b = math.atan2(dy, dx) - pose.yaw
    b = (b + math.pi) % (2 * math.pi) - math.pi
    d = math.hypot(dx, dy)
    return d if abs(b) < HFOV / 2 - 0.05 and 0.3 < d < far else None


def episode(seed: int = 11, *, hide_person: bool = False) -> EpisodeMeta:
    """Camera at C facing table S; a person walks in front (still, toward, left, away); while
    the camera looks away a mug is removed from S and a cup added; then the person carries
    the cup from S to a second table S2; the camera walks back facing S at the end."""
    house = generate_house(seed, n_rooms=4)
    s, s2 = _surfaces(house)[:2]
    sx, sy = s.position[0], s.position[1]
    yaw0 = 0.3
    cam = (sx - 3.2 * math.cos(yaw0), sy - 3.2 * math.sin(yaw0))
    fx, fy = math.cos(yaw0), math.sin(yaw0)  # camera forward
    lx, ly = -fy, fx  # camera left
    # S2 is put (for this scripted scene) 1.5 m to the camera's right of S, same height
    s2pos = (sx - 1.5 * lx, sy - 1.5 * ly)
    from dataclasses import replace

    s2 = replace(s2, position=(s2pos[0], s2pos[1], _top(s) - s2.size[2] / 2))
    house = replace(
        house, objects=tuple(s2 if o.instance_id == s2.instance_id else o for o in house.objects)
    )
    top = _top(s) + 0.05

    def at(a: float, b: float) -> tuple[float, float, float]:  # a ahead of C, b to its left
        return (cam[0] + a * fx + b * lx, cam[1] + a * fy + b * ly, 0.9)

    person = Actor(
        1000,
        "person",
        "person",
        "blue",
        (0.4, 0.3, 1.7),
        (
            Waypoint(0.0, at(3.6, 0.0)),
            Waypoint(3.0, at(3.6, 0.0)),
            Waypoint(6.0, at(2.0, 0.0)),  # toward (0.53 m/s)
            Waypoint(7.0, at(3.5, -0.9)),
            Waypoint(10.0, at(3.5, 0.9)),  # to the camera's left (0.6 m/s)
            Waypoint(13.0, at(5.5, 1.4)),  # away
            Waypoint(28.0, at(5.5, 1.4)),
            Waypoint(30.0, (sx, sy, 0.9)),
            Waypoint(34.0, (s2pos[0], s2pos[1], 0.9)),
            Waypoint(60.0, (s2pos[0], s2pos[1], 0.9)),
        ),
    )

    def prop(aid: int, cat: str, color: str, *track: Waypoint) -> Actor:
        return Actor(aid, "prop", cat, color, (0.1, 0.1, 0.1), tuple(track))

    on_s, on_s2 = (sx + 0.1, sy, top), (s2pos[0], s2pos[1], top)
    mug = prop(1001, "mug", "red", Waypoint(0.0, on_s), Waypoint(16.0, on_s, present=False))
    cup = prop(
        1002,
        "cup",
        "green",
        Waypoint(0.0, (sx - 0.1, sy, top)),
        Waypoint(30.0, (sx - 0.1, sy, top)),
        Waypoint(34.0, on_s2),
    )
    plate = prop(1003, "plate", "white", Waypoint(0.0, on_s2, present=False), Waypoint(25.0, on_s2))
    events = (
        Event("motion", 3.0, 6.0, 1000, detail={"camera_relative": "toward"}),
        Event("motion", 7.0, 10.0, 1000, detail={"camera_relative": "left"}),
        Event("motion", 10.0, 13.0, 1000, detail={"camera_relative": "away"}),
        Event("removed", 16.0, 16.0, 1001, detail={"surface": s.instance_id}),
        Event("added", 25.0, 25.0, 1003, detail={"surface": s2.instance_id}),
        Event("carried", 30.0, 34.0, 1002, detail={"from_surface": s.instance_id}),
    )
    sched = Schedule(actors=(person, mug, cup, plate), events=events)

    def yaw_at(t: float) -> float:
        away = 14.0 <= t < 20.0 or 24.0 <= t < 27.0
        return yaw0 + math.pi if away else yaw0

    def cam_at(t: float) -> tuple[float, float]:
        back = max(0.0, min(t, 44.0) - 40.0) * 0.8  # walks backward 0.8 m/s from 40 s
        return (cam[0] - back * fx, cam[1] - back * fy)

    frames = []
    for i in range(int(46 * FPS)):
        t = round(i / FPS, 4)
        x, y = cam_at(t)
        pose = CameraPose(t, (x, y, 1.5), yaw_at(t))
        vis = []
        for o in (s, s2):
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
        video=f"dyn{seed}.mp4",
        schedule=sched,
    )


@pytest.fixture(scope="module")
def meta() -> EpisodeMeta:
    return episode()


@pytest.fixture(scope="module")
def items(meta):
    gen = QuestionGenerator(3, per_family=12, families=MOTION)
    return gen.items(meta, video=meta.video, episode_id="dyn")


def correct_text(item) -> str:
    q = item.queries[0]
    return next(o.text for o in item.options if o.letter == q.answer)


def test_direction_is_recomputed_from_the_schedule(meta):
    ep = Episode(meta, min_pixels=1)
    expect = {4.5: "toward", 8.5: "left", 11.5: "away", 2.5: "stationary"}
    for t, cls in expect.items():
        k = round(t * FPS)
        drafts = [d for s in range(60) for d in motion_separation(ep, k, random.Random(s))]
        now = [d for d in drafts if d.queries[0].time == round((k + 0.5) / FPS, 4)]
        person = {d.queries[0].answer for d in now if "person" in d.question}
        props = {d.queries[0].answer for d in now if "person" not in d.question}
        assert person == {DIRECTION_TEXT[cls]}, (t, person)
        assert props <= {DIRECTION_TEXT["stationary"]}, (t, props)


def test_change_on_the_surface_is_recomputed(meta):
    ep = Episode(meta, min_pixels=1)
    s, s2 = (o.instance_id for o in _surfaces(meta.house)[:2])
    assert surface_change(ep.prefix(round(13 * FPS)), s) is None  # one visit so far
    p = ep.prefix(round(22 * FPS))
    assert len(visits(p, s)) == 2
    assert (surface_change(p, s).cls, surface_change(p, s).delta) == ("removed", -1)
    p = ep.prefix(round(29 * FPS))
    assert (surface_change(p, s2).cls, surface_change(p, s2).delta) == ("added", 1)
    assert surface_change(ep.prefix(round(36 * FPS)), s) is None  # carried away in view


def test_every_family_but_the_impossible_ones_is_generated(items):
    tasks = {it.intent["task"] for it in items}
    assert {"motion_separation", "motion_state", "relative_speed", "object_trajectory"} <= tasks


def test_unseen_motion_asks_nothing():
    meta = episode(hide_person=True)
    ep = Episode(meta, min_pixels=1)
    for k in range(20, 130, 3):
        assert motion_state(ep, k, random.Random(k)) == []


def test_rules_agent_agrees_with_every_generated_answer(meta, items):
    agent = SceneGraphRulesAgent(
        provider_factory=lambda it, m=meta: SimGroundTruth(m, key=m.video, min_pixels=1)
    )
    todo = sorted(((q.time, it.id, it, q) for it in items for q in it.queries), key=lambda x: x[:2])
    wrong = []
    for _t, _id, it, q in todo:
        d = decide(agent, None, it, q, Adapter())
        assert isinstance(d, Answer)
        if extract_choice(d.text, it.letters) != q.answer:
            wrong.append((it.question, correct_text(it), d.text))
    assert not wrong, wrong
