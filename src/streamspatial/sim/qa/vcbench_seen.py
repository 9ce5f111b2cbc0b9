"""What a stream showed of each event, and the query points a count may be asked at.

What counts is what the stream *showed*, and the questions say so ("have you seen"): an event
wholly off screen is not in the video and is not counted; one seen only in part cannot be
counted from the video either way, so query points stop before the first such event (the
*horizon*).  The answer at a query point is the number of events seen whole with
``end <= t_q``.  Query points keep clear of every event's edges (``MARGIN``) so that a frame or
two of rounding never decides a count.

Seen in full, per kind (the evidence rule; docs/families.md):

* a door leaf or a pendulum: the actor is on screen in every frame from the last frame before
  the event starts to the first frame after it ends (in none: off screen; in some: in part);
* lights: the camera stands in the room in the last frame before the switch and the first
  frame after it (``FrameRecord.lit`` is the camera's room's lighting);
* a person: exactly one run of sightings (gaps shorter than ``SIGHTING_GAP_S`` merged) overlaps the
  episode (none: off screen; two, or a run shared with another episode: in part), and a run
  of sightings that belongs to no episode (the person doing something else in view) stops the
  query points too: a viewer could not tell it from a walk-through.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from streamspatial.bench.conventions import OPEN_RAD, SHUT_RAD, SIGHTING_GAP_S
from streamspatial.scene.schedule import Event

from .common import intent
from .draft import Draft, DraftQuery
from .prefix import Prefix, Run
from .registry import Episode

Span = tuple[float, float]
Seen = Literal["seen", "unseen", "partial"]

# Seconds a query point keeps from an event's start and end: the frame showing the change may
# come up to one frame after the event's end, and a count must never hang on that frame.
MARGIN_S = 0.5
CYCLE_MARGIN_S = 0.25  # pendulum cycles follow each other back to back: a tighter margin
# Sightings of a person closer than conventions.SIGHTING_GAP_S merge into one run (a brief
# occlusion by a door frame or a chair is not a second walk-through); the rules agent merges
# them the same way.
# The last query point sits this far before the prefix's end, so that an event in progress at
# the query point (doors < 1 s, cycles ~1-2 s) has ended by then and is known to the prefix.
TAIL_S = 3.0
MIN_SPACING_S = 2.0  # between query points
CYCLE_SPACING_S = 1.0  # E2-Periodic: cycles last 0.8-1.6 s (sim.events.params.PERIOD)
N_QUERIES = (3, 6)  # query points per item (VCBench asks 3-8 per stream)
MIN_HISTORY_S = 3.0  # the earliest query point
FROM_START = 0.5  # share of items whose query window opens at the stream's start
# How a door leaf reads: conventions.SHUT_RAD and OPEN_RAD (the planner's open leaf stands at
# 1.6 rad).
LOOK_S = 1.0  # a leaf seen this close to an unseen swing shows its change: "in part"


# -- which events were seen ----------------------------------------------------------------------


def _last_before(p: Prefix, t: float) -> int:
    """The last prefix frame strictly before time ``t`` (-1 when none)."""
    i = min(len(p.frames) - 1, max(-1, int(t * p.fps) + 1))
    while i >= 0 and p.t(i) >= t - 1e-9:
        i -= 1
    return i


def _first_from(p: Prefix, t: float, *, strict: bool) -> int | None:
    """The first prefix frame at (or, ``strict``, after) time ``t``; None past the prefix."""
    i = max(0, int(t * p.fps) - 1)
    while i < len(p.frames) and (p.t(i) <= t + 1e-9 if strict else p.t(i) < t - 1e-9):
        i += 1
    return i if i < len(p.frames) else None


def _bracket(p: Prefix, e: Event) -> tuple[int, int] | None:
    """Prefix frames from the last one before ``e`` starts to the first one after it ends."""
    before, after = _last_before(p, e.start), _first_from(p, e.end, strict=True)
    if before < 0 or after is None:
        return None
    return before, after


def _status(flags: list[bool]) -> Seen:
    return "seen" if flags and all(flags) else "unseen" if not any(flags) else "partial"


def actor_seen(p: Prefix, e: Event) -> Seen:
    """A door leaf's swing or a pendulum's cycle: the actor on screen throughout (seen), in
    none of those frames (unseen), or in some (partial)."""
    b = _bracket(p, e)
    if b is None:
        return "partial"  # at the very start, or its last frame lies past the prefix
    return _status([e.subject in p.dynamic_seen(p.frames[i]) for i in range(b[0], b[1] + 1)])


def _leaf(p: Prefix, actor_id: int, i: int) -> str | None:
    a = abs(p.actor_pose(actor_id, i).angle)
    return "shut" if a < SHUT_RAD else "open" if a > OPEN_RAD else None


def door_seen(p: Prefix, e: Event) -> Seen:
    """A door leaf's swing: seen when the leaf is on screen in every frame from the last one
    showing it still in its old state (shut: < ``SHUT_RAD``, open: > ``OPEN_RAD``) to the
    first showing it in its new one; off screen when no frame within ``LOOK_S`` of those
    shows it (else the change could be inferred from before and after: in part)."""
    old, new = ("open", "shut") if e.kind == "door_close" else ("shut", "open")
    end = _first_from(p, e.end, strict=False)
    if end is None:
        return "partial"
    a = end
    while a >= 0 and _leaf(p, e.subject, a) != old:
        a -= 1
    b = a + 1
    while b < len(p.frames) and _leaf(p, e.subject, b) != new:
        b += 1
    if a < 0 or b >= len(p.frames):
        return "partial"
    if all(e.subject in p.dynamic_seen(p.frames[i]) for i in range(a, b + 1)):
        return "seen"
    near = range(
        max(0, a - p.frames_back(LOOK_S)), min(len(p.frames), b + p.frames_back(LOOK_S) + 1)
    )
    return "partial" if any(e.subject in p.dynamic_seen(p.frames[i]) for i in near) else "unseen"


def light_seen(p: Prefix, e: Event) -> Seen:
    """A switch: the camera in that room just before and just after it (seen), in neither
    frame (unseen: another room's lights), or in one (partial: walking in as it happens)."""
    room = e.room_id if e.room_id is not None else e.subject
    before, after = _last_before(p, e.start), _first_from(p, e.end, strict=False)
    if before < 0 or after is None:
        return "partial"
    return _status([p.frames[i].room_id == room for i in range(before, after + 1)])


def merged_runs(p: Prefix, actor_id: int) -> list[Run]:
    """The actor's sighting runs with gaps shorter than ``SIGHTING_GAP_S`` merged."""
    out: list[Run] = []
    for r in p.dynamic_runs(actor_id):
        if out and p.t(r.start) - p.t(out[-1].end) < SIGHTING_GAP_S - 1e-6:
            out[-1] = Run(actor_id, out[-1].start, r.end)
        else:
            out.append(r)
    return out


# -- choosing query points ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What one item counts, up to where it may be asked, and where not."""

    events: list[Event]  # counted, completed by the prefix's end, every one seen
    horizon: float  # query points before this time
    blocked: list[Span]  # nor inside these
    spans: dict[Event, Span]  # evidence per counted event


def plan(
    p: Prefix,
    events: Sequence[Event],
    seen: Callable[[Prefix, Event], Seen],
    *,
    margin: float = MARGIN_S,
    ends_only: bool = False,
) -> Plan:
    """Which events count (those seen whole), the horizon (the first event seen in part, less
    ``margin``) and the stretches query points avoid: each event with ``margin`` around it,
    or only around its end (``ends_only``: back-to-back cycles, where a point mid-cycle is
    fine).  An event wholly off screen is not in the video: it neither counts nor stops.
    """
    ok = [seen(p, e) for e in events]
    part = [e.start - margin for e, s in zip(events, ok, strict=True) if s == "partial"]
    horizon = min([p.time - TAIL_S, *part])
    kept = [
        e for e, s in zip(events, ok, strict=True) if s == "seen" and e.start - margin < horizon
    ]
    # off-screen events keep their margins too: what a frame at the edge shows is not asked
    blocked = [
        ((e.end if ends_only else e.start) - margin, e.end + margin)
        for e, s in zip(events, ok, strict=True)
        if s != "partial" and e.start - margin < horizon
    ]
    return Plan(kept, horizon, blocked, {e: (e.start, e.end) for e in kept})


def query_frames(
    p: Prefix, pl: Plan, rng: random.Random, *, spacing: float = MIN_SPACING_S, burst: bool = False
) -> list[int]:
    """3-6 query frames inside a random window before the horizon, clear of every event.

    The window's start is drawn, not fixed, so the first query point sometimes precedes every
    event (answer 0) and sometimes follows several.  Points are drawn level by level (a level:
    the stretch between two counted events, where the answer is one number), round-robin over
    the levels in random order, so an item's answers spread over every count it passes
    through rather than piling up where the stretches are long: a constant guess (the blind
    training median) then scores little.
    """
    hi = pl.horizon
    lo0 = max(MIN_HISTORY_S, 0.0)
    if hi - lo0 < spacing * (N_QUERIES[0] - 1):
        return []
    # from the start of the stream half the time (the zero count before the first event is
    # a level like any other), else from a random later moment; events that come in one
    # burst (a pendulum's cycles) open the window just before the burst instead, or the
    # long wait before it would hold most of the points
    late = max(lo0, hi - spacing * (N_QUERIES[0] - 1) - rng.uniform(0, 20))
    if burst and pl.events:
        lo = max(lo0, min(e.start for e in pl.events) - rng.uniform(0.5, 4.0))
    else:
        lo = lo0 if rng.random() < FROM_START else rng.uniform(lo0, late)
    cands = [
        i
        for i in range(len(p.frames))
        if lo <= (i + 0.5) / p.fps <= hi
        and not any(a <= (i + 0.5) / p.fps <= b for a, b in pl.blocked)
    ]
    ends = sorted(e.end for e in pl.events)
    levels: dict[int, list[int]] = {}
    for i in cands:
        levels.setdefault(bisect.bisect_right(ends, (i + 0.5) / p.fps), []).append(i)
    order = sorted(levels)
    rng.shuffle(order)
    for v in levels.values():
        rng.shuffle(v)
    n = rng.randint(*N_QUERIES)
    chosen: list[int] = []
    while len(chosen) < n and any(levels.values()):
        for lv in order:
            pool = levels[lv]
            while pool:
                i = pool.pop()
                if all(abs(i - j) / p.fps >= spacing for j in chosen):
                    chosen.append(i)
                    break
            if len(chosen) == n:
                break
    return sorted(chosen) if len(chosen) >= N_QUERIES[0] else []


def counting_draft(
    ep: Episode,
    p: Prefix,
    pl: Plan,
    rng: random.Random,
    *,
    key: str,
    question: str,
    task: str,
    min_last: int = 1,
    spacing: float = MIN_SPACING_S,
    burst: bool = False,
    **params: object,
) -> list[Draft]:
    """The item: at each query point, the events of ``pl`` completed by then.

    ``min_last``: the fewest events the last point may count.  Families whose walks show few
    events (1-3 light pairs, 1-3 comings and goings) ask only where at least two were seen, or
    their answers pile up on 1 and the training median guesses well (qc blind)."""
    frames = query_frames(p, pl, rng, spacing=spacing, burst=burst)
    if not frames:
        return []
    queries = []
    for kk in frames:
        t_q = ep.prefix(kk).time
        done = [e for e in pl.events if e.end <= t_q]
        ev = tuple(sorted({pl.spans[e] for e in done}))
        queries.append(DraftQuery(t_q, float(len(done)), ev))
    if len({q.answer for q in queries}) < 2 or queries[-1].answer < min_last:
        return []  # a count that never changes over the points tests no counting
    last = queries[-1].time
    return [
        Draft(
            family=key,
            question=question,
            queries=queries,
            intent=intent(task, [], **params),
            meta={"occurrence_times": [e.end for e in pl.events if e.end <= last]},
        )
    ]
