"""Rules over what *happened* on screen: VCBench's event counts (E1-Action, E1-Transit,
E2-Periodic, E2-Episode), read from the memory's dynamic log up to t_q.

Each rule counts only what the stream showed: a change seen from before it to after it without
losing sight of it in between.  What the camera missed is not guessed at, which is the same
line the generators draw (:mod:`streamspatial.sim.qa.vcbench_events` asks only while every
event so far was seen), so with ground-truth perception the two agree.

* E1-Action: a door leaf track's hinge angle passing between shut (< ``SHUT_RAD``) and open
  (> ``OPEN_RAD``) while it stays in view;
* E1-Transit: the frame's lighting flipping while the camera stays in one room (walking into
  a dark room is not a switch);
* E2-Periodic: a pendulum's swing angle coming back up through zero (a complete cycle), after
  a starting point was seen: the swing starting from rest, or an earlier such crossing;
* E2-Episode: runs of sightings of a person (gaps under ``SIGHTING_GAP_S`` merged) that have ended.

Counts are answered as integers ("3"), the way VCBench's scorer reads them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from streamspatial.agents.rules.context import Answer, RuleContext, nearest_number_option
from streamspatial.agents.scene_graph import SceneGraphMemory
from streamspatial.agents.scene_graph.dynamic import ActorSighting, DynamicFrame
from streamspatial.bench.conventions import OPEN_RAD, SHUT_RAD, SIGHTING_GAP_S

STILL_RAD = 1e-6  # a pendulum at rest hangs straight (and sin(2πk) is zero to this)


def _count(ctx: RuleContext, n: int) -> Answer:
    return str(n) if not ctx.item.options else nearest_number_option(ctx, n)


def _tracks(ctx: RuleContext) -> Iterator[list[tuple[DynamicFrame, ActorSighting]]]:
    """The dynamic tracks the question is about: by label, and colour when it names one."""
    label = str(ctx.params.get("label", "")).lower()
    color = ctx.params.get("color")
    for sightings in ctx.memory.dynamic.tracks().values():
        a = sightings[0][1]
        if a.label.lower() == label and (color is None or a.color == color):
            yield sightings


def _kinds(ctx: RuleContext, default: tuple[str, ...]) -> set[str]:
    kinds = ctx.params.get("kinds")
    return {str(k) for k in kinds} if isinstance(kinds, list) and kinds else set(default)


def _door_swings(ctx: RuleContext) -> Answer:
    kinds = _kinds(ctx, ("door_open", "door_close"))
    n = 0
    for sightings in _tracks(ctx):
        state: str | None = None
        last = None
        for f, a in sightings:
            if last is not None and f.index != last + 1:
                state = None  # lost from view: a change during the gap was not seen
            last = f.index
            now = "shut" if abs(a.angle) < SHUT_RAD else "open" if abs(a.angle) > OPEN_RAD else None
            if now is None:
                continue
            if state is not None and now != state:
                n += ("door_open" if now == "open" else "door_close") in kinds
            state = now
    return _count(ctx, n)


def _scene_before(memory: SceneGraphMemory, t: float) -> str | None:
    """The room the camera was in just before time ``t`` (the last one entered before it)."""
    scene = None
    for tag, pose in memory.scene_log:
        if pose.time >= t - 1e-9:
            break
        scene = tag
    return scene


def _light_switches(ctx: RuleContext) -> Answer:
    kinds = _kinds(ctx, ("light_off", "light_on"))
    room = ctx.params.get("room")
    n, lit = 0, None
    for f in ctx.memory.dynamic.frames:
        if (
            lit is not None
            and f.lit != lit
            and f.scene is not None
            and (room is None or f.scene == room)
            and _scene_before(ctx.memory, f.time) == f.scene
        ):
            n += ("light_on" if f.lit else "light_off") in kinds
        lit = f.lit
    return _count(ctx, n)


def _cycles(ctx: RuleContext) -> Answer:
    n = 0
    for sightings in _tracks(ctx):
        anchored, prev, last = False, None, None
        for f, a in sightings:
            if last is not None and f.index != last + 1:
                anchored, prev = False, None  # a cycle not watched whole is not counted
            last = f.index
            x = a.angle
            if prev is not None:
                if prev < -STILL_RAD <= x:  # back at the start, moving up: a cycle ends
                    n += anchored
                    anchored = True
                elif abs(prev) <= STILL_RAD and x > STILL_RAD:  # the swing starts from rest
                    anchored = True
            prev = x
    return _count(ctx, n)


def _walk_throughs(ctx: RuleContext) -> Answer:
    now = ctx.memory.time
    n = 0
    for sightings in _tracks(ctx):
        times = [f.time for f, _ in sightings]
        gaps = sum(b - a >= SIGHTING_GAP_S - 1e-6 for a, b in itertools.pairwise(times))
        # each gap closes a run; the last run has ended once it is SIGHTING_GAP_S old
        n += gaps + (now - times[-1] >= SIGHTING_GAP_S - 1e-6)
    return _count(ctx, n)
