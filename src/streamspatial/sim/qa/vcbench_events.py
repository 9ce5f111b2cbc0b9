"""VCBench event counting (§3, E1/E2): how many times something *happened* so far.

E1-Action counts instantaneous completed actions (a door leaf swung open or shut), E1-Transit
hard state changes (a room's lights switched off or on), E2-Periodic complete cycles (a
pendulum back where it started, moving the same way) and E2-Episode semantically complete
activity segments (a person walking into view and out again).  As in VCBench, one question is
asked at several query points of a stream and "the answer at a query point equals the number
completed before that moment" (App. annotation protocol).

What counts is what the stream showed, whole (:mod:`.vcbench_seen`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from streamspatial.bench.conventions import SIGHTING_GAP_S
from streamspatial.core.schema import TaskLabels
from streamspatial.scene.schedule import Event

from .draft import Draft
from .naming import plural
from .prefix import Prefix, runs_of
from .registry import Episode, family
from .vcbench_seen import (
    CYCLE_MARGIN_S,
    CYCLE_SPACING_S,
    MARGIN_S,
    MIN_HISTORY_S,
    TAIL_S,
    Plan,
    Span,
    actor_seen,
    counting_draft,
    door_seen,
    light_seen,
    merged_runs,
    plan,
)

FEW_EVENTS_MIN = 2  # E1-Action, E1-Transit, E2-Episode: the last point counts at least this many


def labels(sub: str) -> TaskLabels:
    return TaskLabels(category=sub.split("-")[0], subcategory=sub, task=sub)


def event_family(key: str, sub: str, *, timed: bool = False):
    """Register an event family (VCBench ``sub``): a count, asked only in a dynamic episode's
    prefixes, from ``MIN_HISTORY_S + 6`` s on; the generator gets the prefix at ``k``;
    ``timed``: counts balanced over the shares of the walk (``registry.Family.timed``)."""

    def deco(fn: Callable[[Episode, Prefix, random.Random], list[Draft]]):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            p = ep.prefix(k)
            return fn(ep, p, rng) if p.dynamic else []

        register = family(f"vc.{key}", "vcbench", labels(sub), "number", dynamic=True,
                          min_history_s=MIN_HISTORY_S + 6, timed=timed)  # fmt: skip
        return register(generate)

    return deco


def _one_category(p: Prefix, events: list[Event]) -> str | None:
    """The category every event's subject is of; None without events or with several."""
    cats = {p.actor(e.subject).category for e in events}
    return cats.pop() if len(cats) == 1 else None


def words(category: str) -> str:
    return category.replace("_", " ")


# -- the four families ---------------------------------------------------------------------------

DOOR_KINDS = {
    "opened": ("door_open",),
    "closed": ("door_close",),
    "opened or closed": ("door_open", "door_close"),
}
LIGHT_KINDS = {
    "off": ("light_off",),
    "on": ("light_on",),
    "off or on": ("light_off", "light_on"),
}


@event_family("e1_action", "E1-Action", timed=True)
def e1_action(ep: Episode, p: Prefix, rng: random.Random) -> list[Draft]:
    """How many times a door has been opened / closed / either so far."""
    verb = rng.choice(sorted(DOOR_KINDS))
    kinds = DOOR_KINDS[verb]
    events = [e for e in p.events(("door_open", "door_close"))]
    cat = _one_category(p, events)
    if cat is None:
        return []
    # events of the other direction still block query points (a swing in progress)
    pl = plan(p, events, door_seen)
    counted = Plan([e for e in pl.events if e.kind in kinds], pl.horizon, pl.blocked, pl.spans)
    return counting_draft(
        ep,
        p,
        counted,
        rng,
        key="vc.e1_action",
        question=f"How many times have you seen a {words(cat)} being {verb} so far?",
        task="e1_action",
        min_last=FEW_EVENTS_MIN,
        label=words(cat),
        kinds=list(kinds),
    )


@event_family("e1_transit", "E1-Transit", timed=True)
def e1_transit(ep: Episode, p: Prefix, rng: random.Random) -> list[Draft]:
    """How many times the lights (of one room, or anywhere) went off / on / either so far."""
    events = p.events(("light_off", "light_on"))
    if not events:
        return []
    rooms = sorted({e.room_id if e.room_id is not None else e.subject for e in events})
    room = rng.choice([None, *rooms])
    if room is not None:
        events = [e for e in events if (e.room_id if e.room_id is not None else e.subject) == room]
    which = rng.choice(sorted(LIGHT_KINDS))
    kinds = LIGHT_KINDS[which]
    pl = plan(p, events, light_seen)
    counted = Plan([e for e in pl.events if e.kind in kinds], pl.horizon, pl.blocked, pl.spans)
    where = f" in the {p.room_name(room)}" if room is not None else ""
    params: dict[str, object] = {"kinds": list(kinds)}
    if room is not None:
        params["room"] = p.room_name(room)
    return counting_draft(
        ep,
        p,
        counted,
        rng,
        key="vc.e1_transit",
        question=f"How many times have you seen the lights{where} being switched {which} so far?",
        task="e1_transit",
        min_last=FEW_EVENTS_MIN,
        **params,
    )


@event_family("e2_periodic", "E2-Periodic", timed=True)
def e2_periodic(ep: Episode, p: Prefix, rng: random.Random) -> list[Draft]:
    """How many complete swings of a pendulum (of every one of its kind, together) were seen.

    Pendulums of one kind look alike (the planner's metronomes are all black), so the count
    is over all of them: "the metronome" while one has swung so far, "the metronomes" after.
    """
    cycles = p.events(("cycle",))
    cats = sorted({p.actor(e.subject).category for e in cycles})
    if not cats:
        return []
    cat = rng.choice(cats)
    mine = [e for e in cycles if p.actor(e.subject).category == cat]
    pl = plan(p, mine, actor_seen, margin=CYCLE_MARGIN_S, ends_only=True)
    swung = {e.subject for e in mine if e.start < pl.horizon}
    one = len(swung) <= 1
    name = f"the {words(cat)}" if one else f"the {plural(words(cat))}"
    return counting_draft(
        ep,
        p,
        pl,
        rng,
        key="vc.e2_periodic",
        question=f"How many complete swings of {name} have you seen so far"
        + ("?" if one else ", all together?"),
        task="e2_periodic",
        spacing=CYCLE_SPACING_S,
        burst=True,
        label=words(cat),
    )


def _episode_plan(p: Prefix, events: list[Event]) -> Plan | None:
    """Person visits matched to sighting runs: a visit seen as one run counts, one seen as
    several (a long occlusion) stops the query points, and so does a run that belongs to no
    finished visit (someone still about)."""
    actors = sorted({e.subject for e in events})
    runs = {a: merged_runs(p, a) for a in actors}
    spans: dict[Event, Span] = {}
    off: list[Event] = []
    used: set[tuple[int, int]] = set()
    horizon = p.time - TAIL_S
    for e in events:
        hit = [
            r
            for r in runs[e.subject]
            if p.t(r.start) <= e.end + MARGIN_S and p.t(r.end) >= e.start - MARGIN_S
        ]
        if not hit:
            off.append(e)  # wholly off screen: not in the video
            continue
        if len(hit) != 1 or (e.subject, hit[0].start) in used:
            horizon = min(horizon, e.start - MARGIN_S)
            continue
        used.add((e.subject, hit[0].start))
        spans[e] = (p.t(hit[0].start), p.t(hit[0].end))
    for a, rs in runs.items():
        for r in rs:
            if (a, r.start) not in used:
                horizon = min(horizon, p.t(r.start) - MARGIN_S)
    kept = [e for e in events if e in spans and min(e.start, spans[e][0]) - MARGIN_S < horizon]
    blocked = [
        (min(e.start, spans[e][0]) - MARGIN_S, max(e.end, spans[e][1]) + SIGHTING_GAP_S + MARGIN_S)
        for e in kept
    ] + [(e.start - MARGIN_S, e.end + SIGHTING_GAP_S + MARGIN_S) for e in off]
    return Plan(kept, horizon, blocked, spans)


def person_visits(p: Prefix) -> list[Event]:
    """Each stretch a person was in the house (its track ``present``), ended before the
    query frame, as an ``episode``: the planner's walks across a view, and its other comings
    and goings (a carry, a leg of motion) alike, since a viewer sees each as someone walking
    into view and out again."""
    ids = {v.instance_id for f in p.frames for v in f.dynamic}
    ids |= {e.subject for e in p.events(("episode", "motion", "carried"))}
    out = []
    for a in sorted(ids):
        try:
            if p.actor(a).kind != "person":
                continue
        except KeyError:
            continue
        here = [i for i in range(len(p.frames)) if p.actor_pose(a, i).present]
        for r in runs_of(a, here):
            if r.end < len(p.frames) - 1:  # gone again by the query frame
                out.append(Event("episode", p.t(r.start), p.t(r.end), a))
    return sorted(out, key=lambda e: (e.end, e.start))


@event_family("e2_episode", "E2-Episode", timed=True)
def e2_episode(ep: Episode, p: Prefix, rng: random.Random) -> list[Draft]:
    """How many times a person was seen walking into view and out again so far."""
    visits = person_visits(p)
    cat = _one_category(p, visits)
    if cat is None:
        return []
    pl = _episode_plan(p, visits)
    if pl is None:
        return []
    return counting_draft(
        ep,
        p,
        pl,
        rng,
        key="vc.e2_episode",
        question=f"How many times have you seen a {words(cat)} walk into view and out again "
        "so far?",
        task="e2_episode",
        min_last=FEW_EVENTS_MIN,
        label=words(cat),
    )
