"""VCBench event counting: E1-Action, E1-Transit, E2-Periodic, E2-Episode.

Answers are recomputed here from the schedule alone (events with ``end <= t_q``), the query
points are checked to stop before any event the camera missed, and the rules agent with
ground-truth perception must give every answer exactly, as an integer.
"""

from __future__ import annotations

import itertools
import random

import pytest

from agent_helpers import decide
from event_fixtures import DOOR, KITCHEN, METRONOME, PERSON, event_meta
from streamspatial.agents import Answer
from streamspatial.agents.rules import SceneGraphRulesAgent, answer
from streamspatial.agents.scene_graph import SceneGraphMemory
from streamspatial.core.schema import Item
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.scene.schedule import Event
from streamspatial.scene.types import EpisodeMeta
from streamspatial.sim.qa import FAMILIES, Episode, QuestionGenerator
from streamspatial.sim.qa.draft import Draft, DraftQuery, LetterDealer, to_item
from streamspatial.sim.qa.vcbench_events import labels

KEYS = ("vc.e1_action", "vc.e1_transit", "vc.e2_periodic", "vc.e2_episode")
KINDS = {
    "e1_action": ("door_open", "door_close"),
    "e1_transit": ("light_off", "light_on"),
    "e2_periodic": ("cycle",),
    "e2_episode": ("episode",),
}


def generate(meta: EpisodeMeta, seed: int = 3) -> list[Item]:
    gen = QuestionGenerator(seed, per_family=8, families=KEYS)
    return gen.items(meta, video="ev.mp4", episode_id="ev")


def on_screen(meta: EpisodeMeta, e: Event) -> str:
    """Written from frame times: "seen" (whole), "unseen" (not at all) or "partial"."""
    times = [f.time for f in meta.frames]
    if e.kind == "episode":  # sightings of the person within the walk, split by ≥ 0.5 s gaps
        seen = [f.time for f in meta.frames if e.subject in f.dynamic_ids(minpx(meta))]
        near = [t for t in seen if e.start - 0.5 <= t <= e.end + 0.5]
        gaps = sum(b - a >= 0.5 - 1e-6 for a, b in itertools.pairwise(near))
        return "unseen" if not near else "seen" if gaps == 0 else "partial"
    if e.kind.startswith("door_"):  # from the last frame in the old state to the first in the new
        leaf = meta.schedule.actor(e.subject)

        def zone(t: float) -> str:
            x = abs(leaf.pose_at(t).angle)
            return "shut" if x < 0.2 else "open" if x > 1.0 else "between"

        old, new = zone(e.start), zone(e.end)
        shown = {f.time: e.subject in f.dynamic_ids(minpx(meta)) for f in meta.frames}
        a = max(t for t in times if t <= e.end and zone(t) == old)
        b = min(t for t in times if t > a and zone(t) == new)
        if all(shown[t] for t in times if a <= t <= b):
            return "seen"
        return "partial" if any(shown[t] for t in times if a - 1 <= t <= b + 1) else "unseen"
    before = max(t for t in times if t < e.start)
    if e.kind.startswith("light_"):
        after = min(t for t in times if t >= e.end)
        flags = [f.room_id == e.room_id for f in meta.frames if before <= f.time <= after]
    else:
        after = min(t for t in times if t > e.end)
        flags = [
            e.subject in f.dynamic_ids(minpx(meta))
            for f in meta.frames
            if before <= f.time <= after
        ]
    return "seen" if all(flags) else "unseen" if not any(flags) else "partial"


def minpx(meta: EpisodeMeta) -> int:
    return max(12, round(60 * meta.intrinsics.width * meta.intrinsics.height / (320 * 240)))


def asked(meta: EpisodeMeta, it: Item) -> list[Event]:
    """The schedule's events of the kinds (and room) an item asks about."""
    assert meta.schedule is not None
    params = it.intent["params"]
    kinds = set(params.get("kinds", KINDS[it.intent["task"]]))
    rooms = {r.name: r.room_id for r in meta.house.rooms}
    room = rooms.get(params.get("room")) if "room" in params else None
    return [
        e for e in meta.schedule.events if e.kind in kinds and (room is None or e.room_id == room)
    ]


def expected(meta: EpisodeMeta, it: Item, t_q: float) -> int:
    """The count from the schedule: events asked about, seen whole, ended by t_q."""
    return sum(1 for e in asked(meta, it) if e.end <= t_q and on_screen(meta, e) == "seen")


def check_items(meta: EpisodeMeta, items: list[Item]) -> None:
    assert meta.schedule is not None
    for it in items:
        times = [q.time for q in it.queries]
        assert 3 <= len(times) <= 6 and times == sorted(times)
        kinds = KINDS[it.intent["task"]]
        spacing = 1.0 if kinds == ("cycle",) else 2.0  # cycles come in bursts of 0.8-1.6 s
        assert all(b - a >= spacing - 1e-6 for a, b in itertools.pairwise(times))
        margin = 0.25 if kinds == ("cycle",) else 0.5
        partial = [e.start for e in asked(meta, it) if on_screen(meta, e) == "partial"]
        assert times[-1] < min(partial, default=999.0)
        for q in it.queries:
            assert q.answer == expected(meta, it, q.time), (it.question, q.time)
            assert all(0 <= s <= e < q.time for s, e in q.evidence)
            assert len(q.evidence) <= q.answer  # one span per counted event (or per walk)
            for e in meta.schedule.events:
                if e.kind in kinds:
                    lo = (e.end if e.kind == "cycle" else e.start) - margin
                    assert not lo < q.time < e.end + margin, (it.question, q.time)


@pytest.fixture(scope="module")
def base() -> tuple[EpisodeMeta, list[Item]]:
    meta = event_meta()
    return meta, generate(meta)


def test_every_family_makes_several_items_with_answers_from_the_schedule(base):
    meta, items = base
    per = {k: [it for it in items if it.intent["task"] == k.split(".")[1]] for k in KEYS}
    assert {k: len(v) >= 3 for k, v in per.items()} == dict.fromkeys(KEYS, True), per
    check_items(meta, items)
    assert all(it.benchmark == "vcbench" for it in items)
    assert {it.task.subcategory for it in items} == {
        "E1-Action",
        "E1-Transit",
        "E2-Periodic",
        "E2-Episode",
    }
    # the first query point comes before any event sometimes, not always
    firsts = [it.queries[0].answer for it in items]
    assert 0 in firsts and any(a > 0 for a in firsts)


@pytest.mark.parametrize(
    ("task", "kw", "stop"),
    [
        ("e1_action", {"hidden": [(DOOR, 30.3, 30.4)]}, 30.0),  # the third swing half seen
        ("e1_transit", {"away": (44.0, 47.0)}, 44.0),  # walked out as the lights went off
        ("e2_periodic", {"hidden": [(METRONOME, 15.2, 16.0)]}, 15.0),  # a cycle half seen
        ("e2_episode", {"hidden": [(PERSON, 53.0, 54.0)]}, 52.0),  # a walk seen as two
    ],
)
def test_query_points_stop_before_an_event_seen_in_part(task, kw, stop):
    meta = event_meta(**kw)
    items = [it for it in generate(meta) if it.intent["task"] == task]
    assert items
    check_items(meta, items)
    assert max(q.time for it in items for q in it.queries) < stop


@pytest.mark.parametrize(
    ("task", "kw", "event"),
    [
        ("e1_action", {"hidden": [(DOOR, 28.5, 32.5)]}, 30.8),  # the third swing off screen
        ("e1_transit", {"away": (42.0, 47.0)}, 44.0),  # switched off while in the hallway
        ("e2_periodic", {"hidden": [(METRONOME, 30.5, 41.0)]}, 32.6),  # a swing not watched
        ("e2_episode", {"hidden": [(PERSON, 32.0, 38.5)]}, 37.0),  # the second walk unseen
    ],
)
def test_an_event_wholly_off_screen_is_not_counted(task, kw, event):
    meta = event_meta(**kw)
    ep = Episode(meta)
    drafts = [
        d
        for k in range(round(event * 10) + 40, 600, 2)
        for d in FAMILIES["vc." + task].generate(ep, k, random.Random(k))
    ]
    items = [
        to_item(
            d, item_id=f"x{i}", benchmark="vcbench", video="ev.mp4", labels=labels("E1-Action"),
            dealer=LetterDealer(random.Random(0)), rng=random.Random(0),
        )
        for i, d in enumerate(drafts)
    ]  # fmt: skip
    check_items(meta, items)
    unseen = [
        (q.answer, expected(event_meta(), it, q.time))
        for it in items
        if any(abs(e.end - event) < 1e-6 for e in asked(meta, it))
        for q in it.queries
        if q.time > event
    ]
    assert unseen and all(got < everything for got, everything in unseen)


def test_generators_see_nothing_after_the_query_frame():
    meta = event_meta()
    for key in KEYS:
        for k in (200, 350, 480):
            cut = EpisodeMeta(
                meta.house, meta.intrinsics, meta.fps, meta.frames[: k + 1],
                video=meta.video, schedule=meta.schedule,
            )  # fmt: skip
            full = FAMILIES[key].generate(Episode(meta), k, random.Random(k))
            short = FAMILIES[key].generate(Episode(cut), k, random.Random(k))
            assert full == short


def test_static_episodes_get_no_event_items():
    meta = event_meta()
    static = EpisodeMeta(meta.house, meta.intrinsics, meta.fps, meta.frames, video=meta.video)
    assert all(FAMILIES[k].generate(Episode(static), 500, random.Random(0)) == [] for k in KEYS)


# -- the rules ---------------------------------------------------------------------------------


class Adapter:
    def prompt(self, item, query, **kw):
        return item.question


def rules_answers(meta: EpisodeMeta, items: list[Item]) -> dict[tuple[str, int], str]:
    agent = SceneGraphRulesAgent(provider_factory=lambda it: SimGroundTruth(meta, key=meta.video))
    todo = sorted(((q.time, it.id, it, q) for it in items for q in it.queries), key=lambda x: x[:2])
    out = {}
    for _t, _id, it, q in todo:
        d = decide(agent, None, it, q, Adapter())
        assert isinstance(d, Answer)
        out[(it.id, q.index)] = d.text
    return out


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"hidden": [(DOOR, 29.5, 31.5), (METRONOME, 15.2, 16.0), (PERSON, 50.0, 56.0)]},
        {"away": (42.0, 47.0)},
    ],
)
def test_rules_with_ground_truth_give_every_answer_as_an_integer(kw):
    meta = event_meta(**kw)
    items = generate(meta)
    got = rules_answers(meta, items)
    want = {(it.id, q.index): str(int(q.answer)) for it in items for q in it.queries}
    assert got == want


def memory_until(meta: EpisodeMeta, t: float) -> tuple[SceneGraphMemory, SimGroundTruth]:
    gt = SimGroundTruth(meta, key=meta.video)
    mem = SceneGraphMemory()
    for i, rec in enumerate(meta.frames):
        if rec.time > t + 1e-9:
            break
        mem.ingest(gt.observation_of(rec, i, rec.time))
    return mem, gt


def ask(meta: EpisodeMeta, t_q: float, task: str, **params: object) -> str:
    draft = Draft("vc." + task, "How many so far?", [DraftQuery(t_q, 0.0)], {
        "task": task, "instances": [], "params": params,
    })  # fmt: skip
    item = to_item(
        draft, item_id="x", benchmark="vcbench", video="ev.mp4", labels=labels("E1-Action"),
        dealer=LetterDealer(random.Random(0)), rng=random.Random(0),
    )  # fmt: skip
    mem, gt = memory_until(meta, t_q)
    text, _ = answer(mem, item, labels=set(gt.labels), attributes=gt.attributes)
    return text


def test_an_event_ending_exactly_at_the_query_time_counts():
    meta = event_meta()
    door = {"label": "door", "kinds": ["door_open"]}
    assert ask(meta, 10.5, "e1_action", **door) == "0"  # still swinging (0.94 rad)
    assert ask(meta, 10.8, "e1_action", **door) == "1"  # the swing's last frame
    # the metronome's first cycle ends at 13.5, back at rest-angle 0 moving up
    assert ask(meta, 13.4, "e2_periodic", label="metronome") == "0"
    assert ask(meta, 13.5, "e2_periodic", label="metronome") == "1"
    assert ask(meta, 15.5, "e1_transit", kinds=["light_off"], room="kitchen") == "1"
    assert ask(meta, 15.4, "e1_transit", kinds=["light_off"], room="kitchen") == "0"


def test_an_event_not_seen_is_not_counted():
    hidden = event_meta(hidden=[(DOOR, 29.5, 31.5), (METRONOME, 15.2, 16.0)])
    # open at 10, (close at 20), open at 30 unseen: the leaf is seen open again at 31.6
    assert ask(hidden, 35.0, "e1_action", label="door", kinds=["door_open"]) == "1"
    # cycles ending 13.5 and 15 seen; the one ending 16.5 half seen (hidden 15.2-16.0); the
    # one ending 18 seen whole again: its start, 16.5, was watched
    assert ask(hidden, 17.9, "e2_periodic", label="metronome") == "2"
    assert ask(hidden, 18.2, "e2_periodic", label="metronome") == "3"
    away = event_meta(away=(42.0, 47.0))
    # switched off while the camera was in the hallway; walking back into the dark kitchen
    # is not a switch
    assert ask(away, 50.0, "e1_transit", kinds=["light_off"], room="kitchen") == "1"
    assert ask(away, 50.0, "e1_transit", kinds=["light_off", "light_on"]) == "2"


def test_a_brief_occlusion_is_one_walk_through():
    meta = event_meta()
    assert ask(meta, 35.2, "e2_episode", label="person") == "1"  # hidden 35.0-35.3: ongoing
    assert ask(meta, 37.4, "e2_episode", label="person") == "1"  # seen until 37.0: not over
    assert ask(meta, 37.6, "e2_episode", label="person") == "2"
    assert ask(meta, 60.0, "e2_episode", label="person") == "3"


def test_rooms_are_named_by_the_kitchen():
    assert event_meta().house.room(KITCHEN).name == "kitchen"


def test_event_count_ladders_have_no_bin_below_the_fewest_counted():
    """The bin cap is a share of *every* bin: a bin no item can reach throttles the family
    (E1-Action's 1 | 2 | 3+ ladder, with items counting two or more, stopped at six items
    on twelve houses)."""
    from streamspatial.sim.qa.balance import bin_of, bins_of
    from streamspatial.sim.qa.vcbench_events import FEW_EVENTS_MIN

    for fam in ("vc.e1_action", "vc.e1_transit"):
        assert bin_of(fam, FEW_EVENTS_MIN) == "bin0", fam
        assert bin_of(fam, FEW_EVENTS_MIN + 1) == bins_of(fam)[1], fam
    assert bin_of("vc.e2_periodic", 1) == "bin0"
    assert len(bins_of("vc.e2_periodic")) == 3
