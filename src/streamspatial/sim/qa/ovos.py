"""OVO-S-Bench families with exact simulator ground truth (App. D), levels L1–L4.

Which families exist here is decided by App. D's boundary rules: L1 cues are visible at the
query frame, L2 cues were seen and are gone, L3 operates on the explored room graph, L4 asks
about the allocentric map.  Rooms enter L3/L4 questions only once the camera has stood in them,
and the room graph is the *explored* one: doorways the camera actually walked through.

Over 400 lines on purpose: one short generator per OVO-S-Bench family over shared helpers,
in the level order of the paper's appendix; splitting them would scatter one table.
"""

from __future__ import annotations

import functools
import math
import random
from collections import deque
from collections.abc import Callable, Iterable

from streamspatial.bench.conventions import CARDINALS, COMPASS8, SAME_STAY_RATIO
from streamspatial.bench.tasks import OVOS_TASKS as TASKS
from streamspatial.core.geometry import wrap_pi
from streamspatial.core.schema import TaskLabels

from .balance import draw_class
from .common import clear_margin, count_options, intent, ladder, name, nameable
from .draft import Draft, choice_draft
from .naming import plural, room_ref
from .prefix import Prefix, object_distance
from .registry import Episode, family
from .search import class_first


def labels(code: str) -> TaskLabels:
    main = code.rsplit(".", 1)[0]
    return TaskLabels(level=f"L{code[0]}", category=main, subcategory=code, task=TASKS[code])


def ovos(key: str, code: str, **kw):
    """An OVO-S family: a choice question under subcategory ``code`` (``kw``: see ``family``)."""
    return family(f"ovos.{key}", "ovos", labels(code), "choice", **kw)


def ovos_draft(
    p: Prefix, key: str, question: str, answer: str, choices, evidence, it, **kw
) -> Draft:
    """An OVO-S question asked at the prefix's last frame."""
    return choice_draft(f"ovos.{key}", p.time, question, answer, choices, evidence, it, **kw)


def _choice(
    p: Prefix, key: str, question: str, answer: str, choices, evidence, it, *, classes=(), cls=None
) -> Draft:
    """:func:`ovos_draft` of a family with fixed answer classes (the answer's, or ``cls``)."""
    return ovos_draft(
        p,
        key,
        question,
        answer,
        choices,
        evidence,
        it,
        classes=tuple(classes),
        answer_class=cls if cls is not None else (answer if classes else None),
    )


RECENT_S = 2.0  # "out of view": not seen during the last two seconds


def out_of_view(p: Prefix) -> list[int]:
    """Nameable objects seen before but not during the last RECENT_S (nor at all in frame k)."""
    cut = p.k - p.frames_back(RECENT_S)
    now_any = {v.instance_id for v in p.now.visible}
    ids = [o for o in p.seen if p.last_seen[o] < cut and o not in now_any]
    return nameable(p, ids)


# -- L1 ------------------------------------------------------------------------------------

# Every ladder of distance options lies inside this range (m): with the true distances
# balanced over it (balance.BINS), each rung of any ladder is equally likely to be right.
LADDER_RANGE = (0.3, 7.0)


def pair_in_view(key: str, code: str, **kw):
    """Register an OVO-S family about two nameable objects in view now, drawn at random: the
    generator gets (prefix, a, b, rng)."""

    def deco(fn: Callable[[Prefix, int, int, random.Random], list[Draft]]):
        @functools.wraps(fn)
        def generate(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
            p = ep.prefix(k)
            cands = nameable(p, sorted(p.visible_now))
            if len(cands) < 2:
                return []
            a, b = rng.sample(cands, 2)
            return fn(p, a, b, rng)

        return ovos(key, code, **kw)(generate)

    return deco


def which_of_two(
    p: Prefix, key: str, question: str, a: int, b: int, want: int, it, **kw
) -> list[Draft]:
    """An OVO-S question whose options are the two objects, ``want`` the right one."""
    pair = [name(p, a), name(p, b)]
    evidence = p.evidence([a, b], limit=1)
    return [ovos_draft(p, key, question, name(p, want), pair, evidence, it, **kw)]


@pair_in_view("absolute_distance", "1.1.1")
def absolute_distance(p: Prefix, a: int, b: int, rng: random.Random) -> list[Draft]:
    d = object_distance(p.obj(a), p.obj(b))
    if d < 0.5:
        return []
    values = ladder(d, 4, rng)
    if min(values) < LADDER_RANGE[0] or max(values) > LADDER_RANGE[1]:
        return []  # an option no pair of visible objects could be apart by gives itself away
    text = [f"About {v:.1f} m" for v in values]
    if len(set(text)) < 4:
        return []
    correct = text[values.index(min(values, key=lambda v: abs(v - d)))]
    draft = _choice(
        p,
        "absolute_distance",
        f"About how far apart are the {name(p, a)} and the {name(p, b)}?",
        correct,
        text,
        p.evidence([a, b], limit=1),
        intent("absolute_distance", [a, b]),
    )
    draft.meta["value"] = round(d, 3)  # balanced over distance bins (see balance.BINS)
    return [draft]


@pair_in_view("depth_ordering", "1.1.3")
def depth_ordering(p: Prefix, a: int, b: int, rng: random.Random) -> list[Draft]:
    da, db = p.cam_distance(a), p.cam_distance(b)
    if not clear_margin([da, db], absolute=0.4, relative=0.2):
        return []
    closer = rng.random() < 0.5
    want = (a if da < db else b) if closer else (a if da > db else b)
    word = "closer to" if closer else "farther from"
    question = f"Which is {word} you right now — the {name(p, a)} or the {name(p, b)}?"
    it = intent("depth_ordering", [a, b], ask=word)
    return which_of_two(p, "depth_ordering", question, a, b, want, it)


# The walks never step backwards: offering "Moving backward" would give a blind model a free
# option to rule out, so the options are the two classes a walk offers, equally often right.
TRANSLATION = ("Moving forward", "Staying in place")


def _translation(p: Prefix, rng: random.Random) -> tuple[str, None] | None:
    j = p.k - p.frames_back(1.0)
    if j < 0:
        return None
    a, b = p.frames[j].pose, p.now.pose
    dx, dy = b.position[0] - a.position[0], b.position[1] - a.position[1]
    fwd = dx * math.cos(a.yaw) + dy * math.sin(a.yaw)
    side = -dx * math.sin(a.yaw) + dy * math.cos(a.yaw)
    if math.hypot(dx, dy) < 0.05:
        return TRANSLATION[1], None
    if abs(side) < 0.5 * abs(fwd) and fwd >= 0.3:
        return TRANSLATION[0], None
    return None


def _ego_motion(
    ep: Episode,
    k: int,
    rng: random.Random,
    task: str,
    question: str,
    options: tuple[str, ...],
    classes: tuple[str, ...],
    label_of: Callable[[Prefix, random.Random], tuple[str, None] | None],
) -> list[Draft]:
    """A camera-motion question over the last second of the prefix (L1 ego-motion tasks)."""
    got = class_first(ep, k, rng, classes, label_of)
    if got is None:
        return []
    p, label, _ = got
    j = p.k - p.frames_back(1.0)
    evidence = [(p.t(j), p.t(p.k))]
    return [
        _choice(
            p, task, question, label, options, evidence, intent(task, window_s=1.0), classes=classes
        )
    ]


@ovos("ego_translation", "1.3.1")
def ego_translation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    # two options: a walking camera never walks backwards, so "backward" was never right
    question = "Is the camera currently moving forward or staying in place?"
    return _ego_motion(
        ep, k, rng, "ego_translation", question, TRANSLATION, TRANSLATION, _translation
    )


ROTATION = ("Panning left", "Panning right", "Not panning")


def _rotation(p: Prefix, rng: random.Random) -> tuple[str, None] | None:
    j = p.k - p.frames_back(1.0)
    if j < 0:
        return None
    turn = sum(wrap_pi(p.frames[i + 1].pose.yaw - p.frames[i].pose.yaw) for i in range(j, p.k))
    deg = math.degrees(turn)
    if deg >= 20:
        return ROTATION[0], None  # yaw grows counter-clockwise: a left turn
    if deg <= -20:
        return ROTATION[1], None
    if abs(deg) < 3:
        return ROTATION[2], None
    return None


@ovos("ego_rotation", "1.3.2")
def ego_rotation(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    question = "Which direction is the camera currently panning?"
    return _ego_motion(ep, k, rng, "ego_rotation", question, ROTATION, ROTATION, _rotation)


# -- L2 ------------------------------------------------------------------------------------

YES_NO = ("Yes", "No")


def _revisit(p: Prefix, rng: random.Random) -> tuple[str, int] | None:
    runs = p.room_runs
    if not runs or runs[-1].key != p.current_room or runs[-1].end - runs[-1].start < p.fps:
        return None
    room = runs[-1].key
    return ("Yes" if any(r.key == room for r in runs[:-1]) else "No"), room


@ovos("revisit_detection", "2.1.1")
def revisit_detection(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    got = class_first(ep, k, rng, YES_NO, _revisit, lookback_s=120.0)
    if got is None:
        return []
    p, label, room = got
    frames = [i for r in p.room_runs if r.key == room for i in range(r.start, r.end + 1)]
    return [
        _choice(
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


@ovos("revisit_counting", "2.1.2", min_history_s=10.0)
def revisit_counting(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How many separate stays in room R so far (one query point).

    The options are the counts 1…m, m the most stays any room has had so far, and the answer
    is drawn uniformly over them before the room (one with exactly that many stays) is chosen,
    so no count is likelier than another whatever the options are.  Asked at each new visit of
    one room, the n-th query point's answer was n (read off the query index blind: 0.98); asked
    at drawn counts of one room, the answers still rose with the index, and on one-minute walks
    most rooms have one or two stays, so options 1–4 left a blind "1 or 2" at 0.57 against a
    chance of 0.25.
    """
    p = ep.prefix(k)
    counts: dict[int, int] = {}
    for r in p.room_runs:
        counts[r.key] = counts.get(r.key, 0) + 1
    m = min(MAX_STAYS, max(counts.values(), default=0))
    if m < 2:
        return []
    want = rng.randint(1, m)
    rooms = sorted(r for r, c in counts.items() if c == want)
    if not rooms:
        return []
    room = rng.choice(rooms)
    frames_in = [i for s in p.room_runs if s.key == room for i in range(s.start, s.end + 1)]
    draft = _choice(
        p,
        "revisit_counting",
        f"How many separate times have you been in the {room_ref(p.house, room)} so far?",
        str(want),
        [str(want), *(str(i) for i in range(1, m + 1) if i != want)],
        p.spans(frames_in),
        intent("revisit_counting", room_id=room),
    )
    return [draft]


@ovos("out_of_view", "2.2.1")
def out_of_view_localization(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    if len(p.house.rooms) < 4:
        return []
    cands = out_of_view(p)
    if not cands:
        return []
    # which room holds it is only known once one has stood in that room
    cands = [o for o in cands if p.obj(o).room_id in p.visited_rooms]
    if not cands:
        return []
    o = rng.choice(cands)
    room = p.obj(o).room_id
    others = [r.room_id for r in p.house.rooms if r.room_id != room]
    draft = _choice(
        p,
        "out_of_view",
        f"In which room is the {name(p, o)} you saw earlier?",
        room_ref(p.house, room),
        [room_ref(p.house, r) for r in [room, *others]],
        p.evidence([o]),
        intent("out_of_view", [o], room_id=room),
    )
    draft.n_options = 4  # distractors drawn as answers fall (balance.pick_distractors)
    return [draft]


EGO_DIRS = ("Ahead", "To your left", "To your right", "Behind you")


def ego_direction(bearing_rad: float) -> tuple[str, float]:
    """Four 90° sectors around the heading (+ = left) and the margin to a sector edge (deg)."""
    b = math.degrees(bearing_rad)
    if abs(b) <= 45:
        label = EGO_DIRS[0]
    elif abs(b) >= 135:
        label = EGO_DIRS[3]
    else:
        label = EGO_DIRS[1] if b > 0 else EGO_DIRS[2]
    margin = min(abs(abs(b) - 45), abs(abs(b) - 135))
    return label, margin


def pick_in_direction(
    p: Prefix, objects: Iterable[int], want: str, rng: random.Random
) -> int | None:
    """One of ``objects`` clearly in egocentric direction ``want`` (10° from the sector's
    edges) and over a metre from the camera; None when there is none."""
    cands = []
    for o in objects:
        label, margin = ego_direction(p.bearing(o))
        if label == want and margin >= 10 and math.dist(p.camera_xy(), p.obj(o).position[:2]) > 1:
            cands.append(o)
    return rng.choice(cands) if cands else None


@ovos("behind_camera", "2.2.2")
def behind_camera(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    want = draw_class(rng, EGO_DIRS)
    o = pick_in_direction(p, out_of_view(p), want, rng)
    if o is None:
        return []
    return [
        _choice(
            p,
            "behind_camera",
            f"The {name(p, o)} you saw earlier is now in which direction relative to you?",
            want,
            EGO_DIRS,
            p.evidence([o]),
            intent("behind_camera", [o]),
            classes=EGO_DIRS,
        )
    ]


@ovos("transient_count", "2.2.3")
def transient_count(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    per_cat: dict[str, list[int]] = {}
    for o in p.seen:
        per_cat.setdefault(p.obj(o).category, []).append(o)
    cats = sorted(c for c, v in per_cat.items() if not set(v) & p.visible_now)
    if not cats:
        return []
    cat = rng.choice(cats)
    n = len(per_cat[cat])
    values = count_options(n, 4, rng, lowest=1, clamp=False)
    if values is None:
        return []  # the true count would sit at a rank that cannot hold it: no item
    opts = [str(v) for v in values]
    return [
        _choice(
            p,
            "transient_count",
            f"How many {plural(cat)} have you seen in total so far?",
            str(n),
            opts,
            p.evidence(per_cat[cat]),
            intent("transient_count", per_cat[cat], category=cat),
        )
    ]


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
        _choice(
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
        _choice(
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


def _graph_evidence(p: Prefix) -> tuple[tuple[float, float], ...]:
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
    draft = _choice(
        p,
        "optimal_path",
        f"Using only the doorways you have walked through, which room "
        f"should you enter first to reach the {room_ref(p.house, t)} from here by the "
        "shortest route?",
        room_ref(p.house, via),
        [room_ref(p.house, r) for r in [via, *others]],
        _graph_evidence(p),
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
        _choice(
            p,
            "reachability",
            f"Using only the doorways you have walked through, can you "
            f"reach the {room_ref(p.house, t)} from where you are now without passing "
            f"through the {room_ref(p.house, banned)}?",
            label,
            YES_NO,
            _graph_evidence(p),
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
        _choice(
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
        _choice(
            p,
            "topology",
            f"Which rooms are directly connected to the {room_ref(p.house, room)} by a doorway?",
            keep[0],
            keep,
            p.spans(frames),
            intent("topology", room_ids=[room, *sorted(truth)]),
        )
    ]
