"""UCS-Bench-style ego-centric position (seed 003 Table 7): "Where is the X now relative to me?"

Unlike Behind-Camera Inference the object may or may not be in view; what is asked is its
direction from the viewer's current position and heading, in UCS-Bench's own option wording.
Exported in the OVO-S JSONL layout (our generated choice families share one reader) under its
own subcategory code, so tables keep it apart from OVO-S's 2.2.2.
"""

from __future__ import annotations

import random

from streamspatial.core.schema import TaskLabels

from .common import intent, name, nameable
from .draft import Draft, DraftQuery
from .ovos import pick_in_direction
from .registry import Episode, family

UCS_CODE = "2.2.9"
UCS_DIRS = {
    "Ahead": "It's now in front of you.",
    "To your left": "It's now to your left.",
    "To your right": "It's now on your right.",
    "Behind you": "It's now behind you.",
}


@family(
    "ucs.ego_position",
    "ovos",
    TaskLabels(
        level="L2", category="2.2", subcategory=UCS_CODE, task="Ego-centric Position (UCS-style)"
    ),
    "choice",
)
def ego_position(ep: Episode, k: int, rng: random.Random) -> list[Draft]:
    p = ep.prefix(k)
    want = rng.choice(list(UCS_DIRS))
    o = pick_in_direction(p, nameable(p, p.seen), want, rng)
    if o is None:
        return []
    return [
        Draft(
            family="ucs.ego_position",
            question=f"Where is the {name(p, o)} now relative to me?",
            queries=[DraftQuery(p.time, UCS_DIRS[want], p.evidence([o]))],
            intent=intent("ego_position", [o]),
            choices=list(UCS_DIRS.values()),
            answer_class=want,
            classes=tuple(UCS_DIRS),
        )
    ]
