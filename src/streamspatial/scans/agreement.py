"""How closely a benchmark rebuilt from exported scans matches the simulator's own.

``scans export`` writes a walk with exact ground truth; ``scans build`` reads it back as a
scan.  Two figures say whether the scan pipeline recovers the truth:

* **visibility**: over the (instance, frame) pairs that are *seen* (at the generators' pixel
  threshold) in the simulator's record or in the scan's, the share seen in both or neither;
* **answers**: over the questions both benchmarks ask — the same walk, family, the same objects and
  parameters (the item's ``intent``) and the same query times — the share whose answers are
  equal (the answer option's text for a choice, the number for a count or a measure).

A scan is one room, and a simulator house exported as a scan is one scanned space: its room
area is the alpha shape of the whole floor, not a room of the house (:data:`ROOM_FACTS`);
those questions are left out of the answer figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from streamspatial.core.schema import Item
from streamspatial.scene.types import EpisodeMeta

ROOM_FACTS = frozenset({"s3.current_room_area"})


@dataclass(frozen=True)
class Agreement:
    agree: int
    total: int

    @property
    def share(self) -> float:
        return self.agree / self.total if self.total else 1.0


def visibility_agreement(sim: EpisodeMeta, scan: EpisodeMeta, min_pixels: int) -> Agreement:
    agree = total = 0
    for a, b in zip(sim.frames, scan.frames, strict=True):
        seen_a, seen_b = a.visible_ids(min_pixels), b.visible_ids(min_pixels)
        total += len(seen_a | seen_b)
        agree += len(seen_a & seen_b)
    return Agreement(agree, total)


def _key(it: Item) -> str:
    return json.dumps(
        [Path(it.video).stem, it.meta.get("family"), it.intent, [q.time for q in it.queries]],
        sort_keys=True,
    )


def _answers(it: Item) -> list[str]:
    text = {o.letter: o.text for o in it.options}
    return [str(text.get(str(q.answer), q.answer)) for q in it.queries]


def answer_agreement(
    sim: list[Item], scan: list[Item]
) -> tuple[Agreement, list[tuple[str, list[str], list[str]]]]:
    """(equal / common questions, the unequal ones: key, simulator's answers, scan's)."""
    ours = {_key(it): it for it in sim if it.meta.get("family") not in ROOM_FACTS}
    common = [(ours[_key(it)], it) for it in scan if _key(it) in ours]
    bad = [(_key(a), _answers(a), _answers(b)) for a, b in common if _answers(a) != _answers(b)]
    return Agreement(len(common) - len(bad), len(common)), bad
