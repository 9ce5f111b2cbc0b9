"""VCBench-style counting (§3): one question asked at several points of the stream.

O1-Snap counts what is visible at each query moment; O2-Unique counts distinct instances seen
so far (non-decreasing by construction); O2-Gain counts instances first seen inside a window
ending at its single query point.  The identity-persistence probe (§4.3.2) is O2-Unique asked
once per turn of a camera spinning in place: the answer stays 1 however often the object
comes back into view.
"""

from __future__ import annotations

import math
import random

from streamspatial.core.geometry import wrap_pi
from streamspatial.core.schema import TaskLabels

from .common import intent
from .draft import Draft, DraftQuery
from .groups import pick_target
from .naming import plural
from .prefix import Prefix
from .registry import Episode, family


def labels(sub: str) -> TaskLabels:
    return TaskLabels(category=sub.split("-")[0], subcategory=sub, task=sub)


def _query_frames(p: Prefix, rng: random.Random, *, start: int) -> list[int]:
    """3–8 query frames from ``start`` on, at least 3 s apart, the last one at ``p.k``."""
    n = rng.randint(3, 8)
    lo = max(start, p.frames_back(3.0))
    gap = p.frames_back(3.0)
    if p.k - lo < gap * (n - 1):
        n = 1 + (p.k - lo) // gap
    if n < 3:
        return []
    step = (p.k - lo) / (n - 1)
    return sorted({round(p.k - i * step) for i in range(n)})


def _by_category(p: Prefix) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for o in p.seen:
        out.setdefault(p.obj(o).category, []).append(o)
    return out


def _first_sightings(q: Prefix, ids: list[int]) -> tuple[tuple[float, float], ...]:
    """Evidence for O2: the first on-screen stretch of each counted instance."""
    spans = set()
    for o in ids:
        runs = q.visible_runs(o)
        if runs:
            spans.add((q.t(runs[0].start), q.t(runs[0].end)))
    return tuple(sorted(spans))


def _count_queries(
    ep: Episode, p: Prefix, rng: random.Random, start: int, count
) -> list[DraftQuery]:
    """Query points at frames drawn from ``start`` on, each answered by ``count(prefix)``: (what
    it counts, the evidence)."""
    queries = []
    for kk in _query_frames(p, rng, start=start):
        q = ep.prefix(kk)
        ids, evidence = count(q)
        queries.append(DraftQuery(q.time, float(len(ids)), evidence))
    return queries


@family("vc.o1_snap", "vcbench", labels("O1-Snap"), "number", min_history_s=12.0)
def o1_snap(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    target = pick_target(p.house, sorted(c for c, v in _by_category(p).items() if len(v) >= 2), rng)
    if target is None:
        return []
    on_screen = [
        i for i, f in enumerate(p.frames) if any(target.test(p.obj(o)) for o in p.seen_ids(f))
    ]
    if not on_screen:
        return []
    queries = _count_queries(
        ep,
        p,
        rng,
        on_screen[0],
        lambda q: ([o for o in q.visible_now if target.test(q.obj(o))], ()),
    )
    if not queries:
        return []
    if sum(q.answer > 0 for q in queries) < len(queries) / 2:
        return []  # mostly "none in view": asking would test little
    return [
        Draft(
            family="vc.o1_snap",
            question=f"How many {target.noun} are visible in the current frame?",
            queries=queries,
            intent=intent("o1_snap", [], **target.params()),
            meta={"occurrence_times": [q.time for q in queries]},
        )
    ]


@family("vc.o2_unique", "vcbench", labels("O2-Unique"), "number", min_history_s=12.0, timed=True)
def o2_unique(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    per = _by_category(p)
    target = pick_target(p.house, sorted(c for c, v in per.items() if len(v) >= 2), rng)
    if target is None:
        return []
    mine = [o for o in p.seen if target.test(p.obj(o))]
    if len(mine) < 2:
        return []

    def seen_so_far(q: Prefix) -> tuple[list[int], tuple[tuple[float, float], ...]]:
        ids = [o for o in q.seen if target.test(q.obj(o))]
        return ids, _first_sightings(q, ids)

    queries = _count_queries(ep, p, rng, min(p.first_seen[o] for o in mine), seen_so_far)
    if not queries:
        return []
    return [
        Draft(
            family="vc.o2_unique",
            question=f"How many different {target.noun} have appeared so far?",
            queries=queries,
            intent=intent("o2_unique", mine, **target.params()),
            meta={"occurrence_times": [p.t(p.first_seen[o]) for o in mine]},
        )
    ]


@family("vc.o1_delta", "vcbench", labels("O1-Delta"), "number", min_history_s=15.0)
def o1_delta(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """How the number of X in view changed over the last N seconds (one query point)."""
    p = ep.prefix(k)
    window = rng.choice((5, 10, 15, 20))
    start = p.k - p.frames_back(window)
    if start < 0:
        return []
    target = pick_target(p.house, sorted(c for c, v in _by_category(p).items() if len(v) >= 2), rng)
    if target is None:
        return []
    then = [o for o in p.seen_ids(p.frames[start]) if target.test(p.obj(o))]
    now = [o for o in p.visible_now if target.test(p.obj(o))]
    if not then and not now:
        return []
    return [
        Draft(
            family="vc.o1_delta",
            question=f"Compared with {window} seconds ago, by how much has the number of "
            f"{target.noun} visible in the current frame changed? Answer with a signed "
            "number (for example +2 for two more, -1 for one fewer, 0 for no change).",
            queries=[
                DraftQuery(
                    p.time,
                    float(len(now) - len(then)),
                    ((p.t(start), p.t(start)), (p.t(p.k), p.t(p.k))),
                )
            ],
            intent=intent("o1_delta", sorted({*then, *now}), window_s=window, **target.params()),
            meta={"occurrence_times": {"start": [p.t(start)], "end": [p.t(p.k)]}},
        )
    ]


@family("vc.o2_gain", "vcbench", labels("O2-Gain"), "number", min_history_s=15.0)
def o2_gain(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    window = rng.choice((10, 20, 30))
    start = p.k - p.frames_back(window)
    if start < p.frames_back(3.0):
        return []
    per = _by_category(p)
    # Windows with and without newcomers are drawn alike; the answers are then balanced over
    # 0 | 1 | 2+ (balance.BINS), so "none" is no better a blind guess than "one".
    cats = sorted(per)
    if not cats:
        return []
    cat = rng.choice(cats)
    new = [o for o in per[cat] if p.first_seen[o] > start]
    return [
        Draft(
            family="vc.o2_gain",
            question=f"How many new {plural(cat)}, not seen before, appeared during the last "
            f"{window} seconds?",
            queries=[DraftQuery(p.time, float(len(new)), _first_sightings(p, new))],
            intent=intent("o2_gain", new, category=cat, window_s=window),
            meta={"occurrence_times": {"start": [p.t(start)], "end": [p.t(p.k)]}},
        )
    ]


def turn_ends(p: Prefix) -> list[int]:
    """Frames at which the camera completes each full turn (cumulative |yaw change| ≥ 2π·n)."""
    total, out = 0.0, []
    for i in range(1, len(p.frames)):
        total += abs(wrap_pi(p.frames[i].pose.yaw - p.frames[i - 1].pose.yaw))
        if total >= 2 * math.pi * (len(out) + 1):
            out.append(i)
    return out


def identity_persistence(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """One O2-Unique question per spinning episode, a query point after every full turn.

    Not registered with the ordinary families: it only makes sense on the dedicated
    rotate-in-place trajectory (:func:`streamspatial.sim.generate` renders one).
    """
    p = ep.prefix(k)
    ends = turn_ends(p)
    per = _by_category(p)
    singles = [
        c
        for c, v in per.items()
        if len(v) == 1 and sum(o.category == c for o in p.house.objects) == 1
    ]
    if len(ends) < 2 or not singles:
        return []
    runs = {c: len(p.visible_runs(per[c][0])) for c in singles}
    cat = max(sorted(singles), key=lambda c: runs[c])  # the one that comes back most often
    target = per[cat][0]
    queries = []
    for kk in ends:
        q = ep.prefix(kk)
        if target not in q.first_seen:
            continue
        queries.append(DraftQuery(q.time, 1.0, _first_sightings(q, [target])))
    if len(queries) < 2:
        return []
    return [
        Draft(
            family="vc.identity_persistence",
            question=f"How many different {plural(cat)} have appeared so far?",
            queries=queries,
            intent=intent("identity_persistence", [target], category=cat, turns=len(ends)),
            meta={"probe": "identity_persistence", "occurrence_times": [p.t(p.first_seen[target])]},
        )
    ]


IDENTITY_LABELS = labels("O2-Unique")
