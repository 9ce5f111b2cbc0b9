"""OVO-S-Bench families over the rooms as walked (App. D): L2 room memory, L3 routes over the
explored room graph, L4 the allocentric map.

Rooms enter these questions only once the camera has stood in them, and the room graph is the
*explored* one: doorways the camera actually walked through.
"""

from __future__ import annotations

import functools
import math
import random
from collections import deque
from collections.abc import Callable

from streamspatial.bench.conventions import CARDINALS, COMPASS8, SAME_STAY_RATIO

from .balance import draw_class
from .common import intent
from .draft import Draft
from .naming import room_ref
from .ovos import YES_NO, classed_draft, ovos
from .prefix import Prefix
from .registry import Episode
from .search import class_first

# -- L2: rooms visited ---------------------------------------------------------------------


def _revisit(p: Prefix, rng: random.Random) -> tuple[str, int] | None:
    runs = p.room_runs
    if not runs or runs[-1].key != p.current_room or runs[-1].end - runs[-1].start < p.fps:
        return None
    room = runs[-1].key
    return ("Yes" if any(r.key == room for r in runs[:-1]) else "No"), room


@ovos("revisit_detection", "2.1.1", timed=True)
def revisit_detection(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    got = class_first(ep, k, rng, YES_NO, _revisit, lookback_s=120.0)
    if got is None:
        return []
    p, label, room = got
    frames = [i for r in p.room_runs if r.key == room for i in range(r.start, r.end + 1)]
    return [
        classed_draft(
            p,
            "revisit_detection",
            "Is the room you are in now one you had already been in "
            "earlier in the video, before going to another room?",
            label,
            YES_NO,
            p.spans(frames),
            intent("revisit_detection", room_id=room),
            classes=YES_NO,
        )
    ]


MAX_STAYS = 5  # most options a revisit count offers


@ovos("revisit_counting", "2.1.2", min_history_s=10.0, timed=True)
def revisit_counting(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How many separate stays in room R so far (one query point).

    The options are the counts 1…m, m the most stays any room has had so far, and the answer
    is drawn uniformly over them before the room (one with exactly that many stays) is chosen,
    so no count is likelier than another whatever the options are.  Asked at each new visit of
    one room, the n-th query point's answer was n (read off the query index blind: 0.98); asked
    at drawn counts of one room, the answers still rose with the index, and on one-minute walks
    most rooms have one or two stays, so options 1–4 left a blind "1 or 2" at 0.57 against a
    chance of 0.25.  The count is drawn among those the share of the walk at ``k`` still
    takes (``balance.draw_class``): a room's count only grows, so uniform over the walk it
    still rose with the query time.
    """
    p = ep.prefix(k)
    counts: dict[int, int] = {}
    for r in p.room_runs:
        counts[r.key] = counts.get(r.key, 0) + 1
    m = min(MAX_STAYS, max(counts.values(), default=0))
    if m < 2:
        return []
    want = int(draw_class(rng, [str(i) for i in range(1, m + 1)]))
    rooms = sorted(r for r, c in counts.items() if c == want)
    if not rooms:
        return []
    room = rng.choice(rooms)
    frames_in = [i for s in p.room_runs if s.key == room for i in range(s.start, s.end + 1)]
    draft = classed_draft(
        p,
        "revisit_counting",
        f"How many separate times have you been in the {room_ref(p.house, room)} so far?",
        str(want),
        [str(want), *(str(i) for i in range(1, m + 1) if i != want)],
        p.spans(frames_in),
        intent("revisit_counting", room_id=room),
    )
    return [draft]


def _first_entry(p: Prefix) -> dict[int, int]:
    out: dict[int, int] = {}
    for r in p.room_runs:
        out.setdefault(r.key, r.start)
    return out


@ovos("chronological_recall", "2.3.1")
def chronological_recall(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    first = _first_entry(p)
    rooms = sorted(first)
    if len(rooms) < 2:
        return []
    a, b = rng.sample(rooms, 2)
    if abs(first[a] - first[b]) < p.frames_back(2.0):
        return []
    earlier = a if first[a] < first[b] else b
    na, nb = room_ref(p.house, a), room_ref(p.house, b)
    frames = [first[a], first[b]]
    return [
        classed_draft(
            p,
            "chronological_recall",
            f"Which room did you visit first — the {na} or the {nb}?",
            room_ref(p.house, earlier),
            [na, nb],
            p.spans(frames),
            intent("chronological_recall", room_ids=[a, b]),
        )
    ]


SAME = "About the same"
# Which option is right: the room named first, the one named second, or neither.  Drawn
# uniformly (class first), so "About the same" is right a third of the time, like the others.
DEPTH_CLASSES = ("first", "second", SAME)


def _durations(p: Prefix, rng: random.Random) -> tuple[str, tuple[int, int]] | None:
    time_in: dict[int, int] = {}
    for f in p.frames:
        if f.room_id is not None:
            time_in[f.room_id] = time_in.get(f.room_id, 0) + 1
    rooms = sorted(time_in)
    if len(rooms) < 2:
        return None
    a, b = rng.sample(rooms, 2)  # the question names a first
    ta, tb = time_in[a], time_in[b]
    hi, lo = max(ta, tb), min(ta, tb)
    if hi <= SAME_STAY_RATIO * lo:
        return SAME, (a, b)
    if hi >= 1.6 * lo and hi - lo >= p.frames_back(3.0):
        return ("first" if ta > tb else "second"), (a, b)
    return None


@ovos("temporal_depth", "2.3.2", min_history_s=10.0)
def temporal_depth(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    got = class_first(ep, k, rng, DEPTH_CLASSES, _durations, lookback_s=120.0)
    if got is None:
        return []
    p, label, pair = got  # "first": the room the question names first had more time
    na, nb = (f"The {room_ref(p.house, r)}" for r in pair)
    answer = {"first": na, "second": nb}.get(label, SAME)
    frames = [i for i, f in enumerate(p.frames) if f.room_id in pair]
    return [
        classed_draft(
            p,
            "temporal_depth",
            f"Have you spent more time so far in the "
            f"{room_ref(p.house, pair[0])} or in the {room_ref(p.house, pair[1])}?",
            answer,
            [na, nb, SAME],
            p.spans(frames),
            intent("temporal_depth", room_ids=list(pair)),
            classes=DEPTH_CLASSES,
            cls=label,
        )
    ]


# -- L3: routes over the explored room graph -----------------------------------------------


def explored_graph(p: Prefix) -> dict[int, set[int]]:
    g: dict[int, set[int]] = {r: set() for r in p.visited_rooms}
    for e in p.walked_edges:
        a, b = tuple(e)
        g[a].add(b)
        g[b].add(a)
    return g


def shortest_paths(g: dict[int, set[int]], src: int, dst: int, banned: int | None = None):
    """All shortest paths src→dst (BFS), avoiding ``banned``; empty when unreachable."""
    dist = {src: 0}
    preds: dict[int, list[int]] = {src: []}
    queue = deque([src])
    while queue:
        u = queue.popleft()
        for v in sorted(g[u]):
            if v == banned:
                continue
            if v not in dist:
                dist[v] = dist[u] + 1
                preds[v] = [u]
                queue.append(v)
            elif dist[v] == dist[u] + 1:
                preds[v].append(u)
    if dst not in dist:
        return []
    paths: list[list[int]] = []

    def back(v: int, tail: list[int]) -> None:
        if v == src:
            paths.append([src, *tail])
            return
        for u in preds[v]:
            back(u, [v, *tail])

    back(dst, [])
    return paths


def graph_evidence(p: Prefix) -> tuple[tuple[float, float], ...]:
    runs = p.room_runs
    frames = [r.start for r in runs[1:]] + [r.end for r in runs[:-1]]
    return p.spans(frames)


def from_here(key: str, code: str, **kw):
    """Register an OVO-S family about the rooms as walked, asked where the camera stands in a
    room: the generator gets (prefix, that room, the walked room graph, rng)."""

    def deco(fn: Callable[[Prefix, int, dict[int, set[int]], random.Random], list[Draft]]):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            p = ep.prefix(k)
            here = p.current_room
            return [] if here is None else fn(p, here, explored_graph(p), rng)

        return ovos(key, code, **kw)(generate)

    return deco


@from_here("optimal_path", "3.3.1", min_history_s=10.0)
def optimal_path(p: Prefix, here: int, g: dict[int, set[int]], rng: random.Random) -> list[Draft]:
    targets = []
    for t in sorted(g):
        paths = shortest_paths(g, here, t)
        if len(paths) == 1 and len(paths[0]) >= 3:
            targets.append((t, paths[0]))
    if not targets:
        return []
    t, path = rng.choice(targets)
    via = path[1]
    others = [r for r in sorted(g) if r not in (here, t, via)]
    if not others:
        return []
    draft = classed_draft(
        p,
        "optimal_path",
        f"Using only the doorways you have walked through, which room "
        f"should you enter first to reach the {room_ref(p.house, t)} from here by the "
        "shortest route?",
        room_ref(p.house, via),
        [room_ref(p.house, r) for r in [via, *others]],
        graph_evidence(p),
        intent("optimal_path", room_ids=path),
    )
    draft.n_options = min(4, len(others) + 1)
    return [draft]


def _reach(p: Prefix, rng: random.Random) -> tuple[str, tuple[int, int]] | None:
    here = p.current_room
    if here is None:
        return None
    g = explored_graph(p)
    rooms = [r for r in sorted(g) if r != here]
    if len(rooms) < 2:
        return None
    t, banned = rng.sample(rooms, 2)
    ok = bool(shortest_paths(g, here, t, banned=banned))
    return ("Yes" if ok else "No"), (t, banned)


@ovos("reachability", "3.3.3", min_history_s=10.0)
def reachability(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    got = class_first(ep, k, rng, YES_NO, _reach, lookback_s=120.0, step_s=0.25)
    if got is None:
        return []
    p, label, (t, banned) = got
    return [
        classed_draft(
            p,
            "reachability",
            f"Using only the doorways you have walked through, can you "
            f"reach the {room_ref(p.house, t)} from where you are now without passing "
            f"through the {room_ref(p.house, banned)}?",
            label,
            YES_NO,
            graph_evidence(p),
            intent("reachability", room_ids=[p.current_room, t, banned]),
            classes=YES_NO,
        )
    ]


# -- L4: the allocentric map ---------------------------------------------------------------


def compass_deg(house_north_yaw: float, yaw: float) -> float:
    """Clockwise bearing from north (deg, 0..360) of a world direction given as a yaw."""
    return math.degrees(house_north_yaw - yaw) % 360


def _allocentric(p: Prefix, rng: random.Random) -> tuple[str, tuple[int, int]] | None:
    rooms = p.visited_rooms
    if len(rooms) < 2:
        return None
    a, b = rng.sample(rooms, 2)
    ca, cb = p.house.room(a).centroid, p.house.room(b).centroid
    if math.dist(ca, cb) < 1.5:
        return None
    bearing = compass_deg(p.house.north_yaw, math.atan2(ca[1] - cb[1], ca[0] - cb[0]))
    sector = round(bearing / 90) % 4
    # The question gives the start heading to the nearest of eight directions, so north is
    # known to within that rounding; the two errors together stay 10° clear of a diagonal.
    start = compass_deg(p.house.north_yaw, p.frames[0].pose.yaw)
    rounding = abs(start - 45 * round(start / 45))
    if abs(bearing - 90 * round(bearing / 90)) + rounding > 35:
        return None  # near a diagonal: no single cardinal answer
    return CARDINALS[sector], (a, b)


@ovos("allocentric_direction", "4.1.1", min_history_s=10.0)
def allocentric_direction(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    got = class_first(ep, k, rng, CARDINALS, _allocentric, lookback_s=120.0)
    if got is None:
        return []
    p, label, (a, b) = got
    start = compass_deg(p.house.north_yaw, p.frames[0].pose.yaw)
    facing = COMPASS8[round(start / 45) % 8]
    frames = [0, *(i for i, f in enumerate(p.frames) if f.room_id in (a, b))]
    return [
        classed_draft(
            p,
            "allocentric_direction",
            f"At the very start of the video you were facing "
            f"roughly {facing}. From the overall layout, in which direction is the "
            f"{room_ref(p.house, a)} relative to the {room_ref(p.house, b)}?",
            label,
            CARDINALS,
            p.spans(frames),
            intent("allocentric_direction", room_ids=[a, b]),
            classes=CARDINALS,
        )
    ]


def _rooms_text(p: Prefix, rooms) -> str:
    names = sorted(room_ref(p.house, r) for r in rooms)
    if len(names) == 1:
        return f"Only the {names[0]}"
    return "The " + ", the ".join(names[:-1]) + f" and the {names[-1]}"


def _neighbour_sets(truth: frozenset[int], rooms: list[int]) -> list[frozenset[int]]:
    """Room sets one edit away from ``truth``: a room added, removed or swapped."""
    out = []
    for r in rooms:
        if r in truth:
            if len(truth) >= 2:
                out.append(truth - {r})
            for x in rooms:
                if x not in truth:
                    out.append((truth - {r}) | {x})
        else:
            out.append(truth | {r})
    return sorted(set(out), key=lambda v: sorted(v))


@ovos("topology", "4.2.1", min_history_s=10.0)
def topology(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Which rooms are directly connected to R.

    The options form a *star*: a centre set and sets one edit away from it, with the truth
    the centre only a quarter of the time (else one of the edits).  Distractors made as edits
    of the truth would make it the option the others agree with most, found blind.
    """
    p = ep.prefix(k)
    adj = p.house.adjacency()
    walked = p.walked_edges
    cands = [
        r for r in p.visited_rooms if adj[r] and all(frozenset((r, n)) in walked for n in adj[r])
    ]
    if not cands:
        return []
    room = rng.choice(cands)
    truth = frozenset(adj[room])
    others = [r for r in p.visited_rooms if r != room]
    if len(others) < 3:
        return []
    centre = truth if rng.random() < 0.25 else rng.choice(_neighbour_sets(truth, others))
    star = [v for v in _neighbour_sets(centre, others) if v and v not in (truth, centre)]
    if len(star) < 2:
        return []
    fixed = list(dict.fromkeys(_rooms_text(p, v) for v in (truth, centre)))
    rest = list(dict.fromkeys(t for v in star if (t := _rooms_text(p, v)) not in fixed))
    keep = fixed + rng.sample(rest, min(len(rest), 4 - len(fixed)))
    if len(keep) < 3:
        return []
    frames = [i for i, f in enumerate(p.frames) if f.room_id in truth | {room}]
    return [
        classed_draft(
            p,
            "topology",
            f"Which rooms are directly connected to the {room_ref(p.house, room)} by a doorway?",
            keep[0],
            keep,
            p.spans(frames),
            intent("topology", room_ids=[room, *sorted(truth)]),
        )
    ]
