"""Before rendering: the families the planned walks are certain to leave short.

Most families find a question at nearly every frame.  A few ask about what the event planner
places a handful of times a walk: a top whose props changed while the camera looked away (UCS
Quantity Change Tracking, OVO-S 3.2.1) and a carry (UCS Object Trajectory).  The first two
balance their answers over fixed classes (a class at most ``CLASS_SLACK`` ahead of the
rarest), so an outcome no walk plans holds each of the others to one question: classes ×
(0 + 1) in all, whatever else the walks show.  An outcome planned once bounds nothing this
simple: a change is asked at several query times (OVO-S 3.2.1 while the top is in view, UCS
on the return and later): on the twenty one-minute walks of seed 8181, OVO-S 3.2.1 asked 62
questions about 37 changes, up to four about one.  Object Trajectory asks a carry at every
query time after it, so only a benchmark without carries is certain to leave it short.
Rendering and asking take most of a run; saying which family will fall short, and why, costs
nothing once the walks are planned.
(Families that end short for other reasons are named after the questions, in
``manifest.json`` ``shortfall``.)

:func:`forecast` reads the plans' event schedules and returns, per family certain to end
short of ``need`` items, that bound and its reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from streamspatial.scene.schedule import Schedule

# Query points a task needs for the blind stress test to tell a few points of bias from noise
# (at 40, the noise allowance of `qc blind` is about 25 points; fewer are barely judged).
NEED = 40
CLASS_SLACK = 1  # sim.qa.balance.CLASS_SLACK: a class may run one ahead of the rarest


@dataclass(frozen=True)
class Shortfall:
    family: str
    most: int  # the most items the plans allow (an upper bound)
    need: int
    why: str

    def line(self) -> str:
        return f"{self.family}: at most {self.most} of {self.need} — {self.why}"


def glance_outcomes(schedule: Schedule) -> list[int | str]:
    """Per glance-back: the net change of the kind that changed (−2 … +2), ``"moved"`` or
    ``"unchanged"``."""
    by_glance: dict[tuple, list] = {}
    for e in schedule.events:
        if e.kind in ("added", "removed", "moved", "unchanged"):
            by_glance.setdefault((e.detail.get("surface"), e.start, e.end), []).append(e)
    out: list[int | str] = []
    for evs in by_glance.values():
        kinds = {e.kind for e in evs}
        if kinds == {"unchanged"}:
            out.append("unchanged")
        elif kinds == {"moved"}:
            out.append("moved")
        else:
            out.append(sum(int(e.detail["after"]) - int(e.detail["before"]) for e in evs))
    return out


def _unplanned(counts: Counter, outcomes: Iterable[str]) -> str | None:
    """The first of ``outcomes`` (those only a glance-back makes: a revisit shows "nothing
    changed" anyway) that no walk plans, or None."""
    return next((o for o in outcomes if counts[o] == 0), None)


def forecast(
    schedules: Sequence[Schedule | None], families: Iterable[str], need: int = NEED
) -> list[Shortfall]:
    """The families among ``families`` whose planned events (one schedule a walk, None for a
    walk without events) allow fewer than ``need`` items."""
    asked = set(families)
    walks = len(schedules)
    out: list[Shortfall] = []
    outcomes = Counter(o for s in schedules if s for o in glance_outcomes(s))
    glances = sum(outcomes.values())
    if "ucs.quantity_change" in asked:
        qct = Counter({f"{net:+d}": outcomes[net] for net in (-2, -1, 1, 2)})
        rare, most = _unplanned(qct, ("-2", "-1", "+1", "+2")), 5 * CLASS_SLACK
        if rare is not None and most < need:
            why = (f"its 5 answers are balanced and the {walks} walks plan {glances} "
                   f"glance-backs, none with a net change of {rare}")  # fmt: skip
            out.append(Shortfall("ucs.quantity_change", most, need, why))
    if "ovos.change_detection" in asked:
        cd = Counter()
        for o, n in outcomes.items():
            key = o if isinstance(o, str) else ("appeared" if o > 0 else "disappeared")
            cd[key] += n
        rare, most = _unplanned(cd, ("appeared", "disappeared", "moved")), 4 * CLASS_SLACK
        if rare is not None and most < need:
            what = {"appeared": "props appeared", "disappeared": "props disappeared",
                    "moved": "a prop moved"}[rare]  # fmt: skip
            why = (f"its 4 answers are balanced and the {walks} walks plan {glances} "
                   f"glance-backs, none where {what}")  # fmt: skip
            out.append(Shortfall("ovos.change_detection", most, need, why))
    if "ucs.object_trajectory" in asked:
        # A carry is asked at every query time after it while it stays the prop's latest, so
        # the carries planned do not bound the items (twenty one-minute walks of seed 6161:
        # 42 items about 13 carries); none at all does.
        carries = sum(1 for s in schedules if s for e in s.events if e.kind == "carried")
        if not carries:
            why = f"it asks about carries, and none of the {walks} walks plans one"
            out.append(Shortfall("ucs.object_trajectory", 0, need, why))
    return out


__all__ = ["NEED", "Shortfall", "forecast", "glance_outcomes"]
