"""S3-Bench active-exploration questions (§3, "Active exploration").

S3-Bench instantiates questions "when keypoint sweeping is incomplete or target objects suffer
from heavy occlusion ... at those specific timestamps", and at test time executes the model's
actions in the simulator to gather new views.  ``s3.explore_room_count`` is such a question:
asked at a t_q when the camera stands in a room holding at least one object of the asked
category that the stream has *not* shown yet, so the prefix alone cannot answer it; the item
is marked ``explorable`` and a model run with ``--explore-steps N`` may look around first.

This is the one documented exception to "every answer comes from what was visible up to t_q":
the answer is the environment's truth (the house metadata's count of that category in the
current room), because the question is *about* what exploring reveals.  It stays honest in two
ways.  The house is static, so the truth at t_q is the truth the exploration sees.  And every
counted object is reachable: it was either seen before t_q or covers at least
``SWEEP_MIN_PIXELS`` pixels (and twice the benchmark's *seen* threshold) in one view of a
``sweep_around`` from the pose at t_q, checked by ray casting the renderer's own boxes
(:mod:`.sweep`), with walls and furniture occluding exactly.  Line of sight from "somewhere in
the room" was rejected as the test: the model explores from where it stands, not from anywhere.
A category whose objects in *other* rooms would show up in that sweep is not asked, since a
looking-around model could not tell which room they stand in.
"""

from __future__ import annotations

import random

from .common import intent
from .draft import Draft, DraftQuery
from .groups import GROUPS, category_target, group_target
from .prefix import Prefix
from .registry import Episode, family
from .s3 import REL, labels
from .sweep import sweep_pixels

MIN_STAY_S = 1.0  # the camera must have stood in the room this long (not a doorway glimpse)
LOOKBACK_S = 60.0  # how far before the proposed query frame the wanted answer class is sought
SWEEP_MIN_PIXELS = 20  # the exploration env's own "seen" threshold (ExploreEnv.min_pixels)


def _reachable(p: Prefix, pixels: int) -> bool:
    return pixels >= max(SWEEP_MIN_PIXELS, 2 * p.min_pixels)


def room_count_question(p: Prefix, rng: random.Random, *, mode: str) -> Draft | None:
    """How many objects of a category (or a group) the current room holds, some not yet seen.

    ``mode``: "one" asks about a category the room holds once, "several" about one it holds
    more than once, "group" about every piece of furniture or small object in the room."""
    room = p.current_room
    if room is None or not p.room_runs or p.room_runs[-1].key != room:
        return None
    stay = p.room_runs[-1]
    if stay.end - stay.start < p.frames_back(MIN_STAY_S):
        return None
    if mode == "group":
        targets = [group_target(p.house, g) for g in sorted(GROUPS)]
    else:
        cats = sorted({o.category for o in p.house.objects if o.room_id == room})
        targets = [category_target(p.house, c) for c in cats]
    rng.shuffle(targets)
    pose = p.now.pose
    for target in targets:
        ids = sorted(o.instance_id for o in p.house.objects if o.room_id == room and target.test(o))
        unseen = [i for i in ids if i not in p.first_seen]
        if not unseen or (mode != "group" and (len(ids) > 1) != (mode == "several")):
            continue
        elsewhere = [
            o.instance_id
            for o in p.house.objects
            if target.test(o) and o.room_id != room and mode != "group"
        ]
        px = sweep_pixels(p.house, p.intrinsics, pose, unseen)
        if not all(_reachable(p, px[i]) for i in unseen):
            continue  # an object the model could not find by looking around
        px = sweep_pixels(p.house, p.intrinsics, pose, elsewhere)  # only now worth casting
        if any(px[i] >= p.min_pixels for i in elsewhere):
            continue  # the sweep would show another room's objects of this category
        return Draft(
            family="s3.explore_room_count",
            question=f"How many {target.noun} are in the room you are in now? "
            "You may look around before answering.",
            queries=[DraftQuery(p.time, float(len(ids)), ((p.t(stay.start), p.t(stay.end)),))],
            intent=intent(
                "explore_room_count", ids, room_id=room, hidden=unseen, **target.params()
            ),
            explorable=True,
        )
    return None


MODES = ("one", "several", "group")


@family("s3.explore_room_count", "s3", labels(REL, "explore_room_count", "Num"), "number")
def explore_room_count(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    """Class first (see :mod:`.search`): "one", "several" or a whole group drawn uniformly,
    then the latest query frame within LOOKBACK_S whose room offers it.  Most rooms hold one
    object of each category, so taking whatever frame ``k`` offers would make the answer nearly
    always 1, and a blind model answering 1 would score almost fully; groups spread the
    answers over 2–10."""
    mode = rng.choice(MODES)
    p = ep.prefix(k)
    lo = max(p.frames_back(3.0), k - p.frames_back(LOOKBACK_S))
    for kk in range(k, lo - 1, -max(1, p.frames_back(0.5))):
        d = room_count_question(ep.prefix(kk), random.Random(rng.random()), mode=mode)
        if d is not None:
            return [d]
    return []
