"""Motion and change families on hand-made dynamic episodes: answers recomputed from the
schedule, the rules agent (ground-truth perception) agrees, and unseen motion asks nothing.

The episodes are not rendered: a real house, a scripted camera and a schedule, with
``FrameRecord.visible``/``dynamic`` filled by a field-of-view test (no occlusion), which is all
the generators and ground-truth perception read.
"""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace

import pytest

from agent_helpers import decide
from motion_scenes import FPS, scene, surfaces
from streamspatial.agents import Answer
from streamspatial.agents.rules import SceneGraphRulesAgent
from streamspatial.grading.extract import extract_choice
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.scene.types import EpisodeMeta
from streamspatial.sim.qa import Episode, QuestionGenerator
from streamspatial.sim.qa.balance import OPEN_CLASSES
from streamspatial.sim.qa.changes import (
    _frame_after,
    _frame_before,
    object_trajectory,
    quantity_change,
)
from streamspatial.sim.qa.motion import surface_change, surface_changes, visits
from streamspatial.sim.qa.naming import plural
from streamspatial.sim.qa.ovos_motion import (
    DIRECTION_TEXT,
    motion_separation,
    motion_state,
    relative_speed,
)

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


def episode(seed: int = 11, *, hide_person: bool = False) -> EpisodeMeta:
    return scene(seed, hide_person=hide_person)


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
    expect = {4.5: "toward", 8.5: "left", 12.5: "away", 2.5: "stationary"}
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
    s, s2 = (o.instance_id for o in surfaces(meta.house)[:2])
    assert surface_change(ep.prefix(round(13 * FPS)), s) is None  # one visit so far
    p = ep.prefix(round(22 * FPS))
    assert len(visits(p, s)) == 2
    assert (surface_change(p, s).cls, surface_change(p, s).delta) == ("removed", -1)
    p = ep.prefix(round(30 * FPS))
    assert (surface_change(p, s2).cls, surface_change(p, s2).delta) == ("added", 1)
    assert surface_change(ep.prefix(round(37 * FPS)), s) is None  # carried away in view


def test_a_ball_on_the_surface_leaves_its_change_unasked():
    """A ball is no prop, but it is on the top: "nothing changed" (or "a mug was removed",
    as if nothing else had) would not be the whole truth, and the rules agent sees it."""
    s = surfaces(scene().house)[0].instance_id
    at = round(22 * FPS)
    assert surface_change(Episode(scene(), min_pixels=1).prefix(at), s).cls == "removed"
    assert surface_changes(Episode(scene(ball=True), min_pixels=1).prefix(at), s) == []


def test_each_category_gets_its_own_change_when_several_happen():
    meta = scene(second_change=True)
    ep = Episode(meta, min_pixels=1)
    s = surfaces(meta.house)[0].instance_id
    got = {
        (c.category, c.cls, c.delta)
        for c in surface_changes(ep.prefix(round(22 * FPS)), s)
        if c.cls  # the cup stayed: no class of its own while others changed
    }
    cats = {a.actor_id: a.category for a in meta.schedule.actors}
    # the mug went and a jar came; the cup stayed, but "nothing changed" would be false
    assert got == {(cats[1001], "removed", -1), (cats[1005], "added", 1)}
    assert surface_change(ep.prefix(round(22 * FPS)), s) is None  # two classes: no one answer


def _hidden(meta: EpisodeMeta, actor: int, t0: float, t1: float) -> EpisodeMeta:
    """The episode with ``actor`` never seen from ``t0`` to ``t1`` (behind another prop)."""
    frames = [
        replace(f, dynamic=tuple(v for v in f.dynamic if v.instance_id != actor))
        if t0 <= f.pose.time <= t1
        else f
        for f in meta.frames
    ]
    return replace(meta, frames=tuple(frames))


def test_a_hidden_prop_leaves_out_its_own_category_only():
    base = scene(second_change=True)
    s = surfaces(base.house)[0].instance_id
    cats = {a.actor_id: a.category for a in base.schedule.actors}
    # the jar that appeared (1005) hidden throughout the second visit
    ep = Episode(_hidden(base, 1005, 21.0, 23.0), min_pixels=1)
    got = {(c.category, c.cls) for c in surface_changes(ep.prefix(round(22 * FPS)), s)}
    assert got == {(cats[1001], "removed"), (cats[1002], "")}
    # nothing changed between two later visits, but a prop unseen in one: no "unchanged"
    meta = scene()
    ep = Episode(_hidden(meta, 1002, 0.0, 15.0), min_pixels=1)
    got = {(c.category, c.cls) for c in surface_changes(ep.prefix(round(22 * FPS)), s)}
    assert got == {(cats[1001], "removed")}
    assert all(c.cls != "unchanged" for c in surface_changes(ep.prefix(round(22 * FPS)), s))


def test_two_props_of_a_kind_removed_together_are_one_change_asked_and_answered():
    meta = scene(twin=True)
    ep = Episode(meta, min_pixels=1)
    s = surfaces(meta.house)[0].instance_id
    c = surface_change(ep.prefix(round(22 * FPS)), s)
    assert (c.cls, c.delta) == ("removed", -2)
    gen = QuestionGenerator(5, per_family=6, families=["ovos.change_detection"])
    items = [
        it
        for it in gen.items(meta, video=meta.video, episode_id="t")
        if 21 < it.queries[0].time < 25 and it.intent["instances"] == [s]
    ]
    assert items, "the two-prop removal is asked"
    cat = meta.schedule.actors[1].category  # the first prop, whose twin went with it
    agent = SceneGraphRulesAgent(
        provider_factory=lambda it, m=meta: SimGroundTruth(m, key=m.video, min_pixels=1)
    )
    for it in items:
        assert correct_text(it) == f"One or more {plural(cat)} have disappeared from it"
        d = decide(agent, None, it, it.queries[0], Adapter())
        assert extract_choice(d.text, it.letters) == it.queries[0].answer


@pytest.mark.parametrize("variant", [1, 2, 3])
def test_rules_agent_agrees_on_varied_scenes(variant):
    meta = scene(
        100 + variant, random.Random(variant), second_change=variant == 2, floor_carry=variant == 3
    )
    gen = QuestionGenerator(variant, per_family=6, families=MOTION)
    items = gen.items(meta, video=meta.video, episode_id="v")
    assert len({it.intent["task"] for it in items}) >= 4
    agent = SceneGraphRulesAgent(
        provider_factory=lambda it, m=meta: SimGroundTruth(m, key=m.video, min_pixels=1)
    )
    todo = sorted(((q.time, it.id, it, q) for it in items for q in it.queries), key=lambda x: x[:2])
    for _t, _id, it, q in todo:
        d = decide(agent, None, it, q, Adapter())
        assert extract_choice(d.text, it.letters) == q.answer, (it.question, correct_text(it))


def test_every_family_but_the_impossible_ones_is_generated(items):
    tasks = {it.intent["task"] for it in items}
    assert {"motion_separation", "motion_state", "relative_speed", "object_trajectory"} <= tasks


def test_a_carry_to_the_floor_is_asked_and_answered():
    meta = scene(floor_carry=True)
    gen = QuestionGenerator(5, per_family=6, families=["ucs.object_trajectory"])
    items = gen.items(meta, video=meta.video, episode_id="f")
    assert items
    for it in items:
        truth = correct_text(it)
        assert "to the floor on the" in truth, truth
        assert "floor" in it.meta["answer"]
        named = [o.text for o in it.options if "floor" in o.text and o.text != truth]
        assert len(named) == 2  # half the foils name the floor too
    agent = SceneGraphRulesAgent(
        provider_factory=lambda it, m=meta: SimGroundTruth(m, key=m.video, min_pixels=1)
    )
    for it in items:
        d = decide(agent, None, it, it.queries[0], Adapter())
        assert extract_choice(d.text, it.letters) == it.queries[0].answer


def test_only_the_latest_carry_is_asked_about():
    """Once the cup is carried again (to the floor behind the camera), "its trajectory from
    pick-up to set-down" is the second carry's: after the second lift no item describes the
    first (from S to S2), and the second is asked about only once it is seen set down."""
    ep = Episode(scene(carry_back=True), min_pixels=1)
    asked = [
        (d.queries[0].time, str(d.queries[0].answer))
        for k in range(round(30 * FPS), round(47 * FPS), 2)
        for s in range(6)
        for d in object_trajectory(ep, k, random.Random(s))
    ]
    assert asked and min(t for t, _ in asked) < 38.0
    for t, answer in asked:  # the second lift starts at 38 s and sets down at 41 s
        assert ("to the floor" in answer) == (t > 38.0), (t, answer)
        assert not 38.0 < t < 41.0, (t, answer)


def test_unseen_motion_asks_nothing():
    """The person walks as scripted but is never on screen: nothing is asked about them."""
    meta = episode(hide_person=True)
    ep = Episode(meta, min_pixels=1)
    for k in range(20, 150, 3):
        assert motion_state(ep, k, random.Random(k)) == []
        for fam in (motion_separation, relative_speed):
            assert all("person" not in d.question for d in fam(ep, k, random.Random(k)))


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


def test_a_carry_is_read_at_the_frames_that_bracket_it():
    """The prop rests at the last frame at or before the lift and the first at or after the
    set-down; the nearest frame to a set-down at 58.43 s (58.4 s) still shows it moving."""
    p = SimpleNamespace(fps=10.0, frames=[None] * 600)
    assert _frame_after(p, 58.43) == 585 and _frame_before(p, 58.43) == 584
    assert _frame_after(p, 58.4) == 584 and _frame_before(p, 58.4) == 584  # on a frame
    assert _frame_after(p, 0.1 * 3) == 3  # 0.30000000000000004 s is frame 3
    assert _frame_after(p, 99.0) == 599 and _frame_before(p, -1.0) == 0


def test_a_change_is_asked_on_the_return_and_later(meta):
    """Quantity Change Tracking asks "while I looked away" on the camera's return to the desk
    (a mug gone, seen again from 21 s), and "the last time I looked away from it" once the
    camera has turned from it (25-27 s), until the desk is seen again; the rules agent
    answers both from the same two visits."""
    ep = Episode(meta, min_pixels=1)
    gen = QuestionGenerator(3, families=["ucs.quantity_change"])
    agent = SceneGraphRulesAgent(
        provider_factory=lambda it, m=meta: SimGroundTruth(m, key=m.video, min_pixels=1)
    )
    token = OPEN_CLASSES.set("-1".__eq__)
    try:
        asked = {t: quantity_change(ep, round(t * FPS), random.Random(0)) for t in range(14, 40)}
    finally:
        OPEN_CLASSES.reset(token)
    when = {t: d[0].question.split("desk ")[-1] for t, d in asked.items() if d}
    assert when == {
        **dict.fromkeys(range(21, 25), "while I looked away?"),
        **dict.fromkeys(range(25, 28), "the last time I looked away from it?"),
    }
    for t in (22, 26):
        (draft,) = asked[t]
        draft.meta["family"] = "ucs.quantity_change"
        (it,) = gen._finish([draft], video=meta.video, episode_id="later")
        assert correct_text(it) == "One mug was removed."
        d = decide(agent, None, it, it.queries[0], Adapter())
        assert extract_choice(d.text, it.letters) == it.queries[0].answer
