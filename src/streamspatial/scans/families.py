"""Which question families a static scan supplies the facts for, and why the others are not.

A scan is one room filmed without scripted events: every family whose facts are object
boxes, the camera's path and per-frame visibility runs on it unchanged.  Families that ask
about events (people, doors, lights, carried props: ``Family.dynamic``) have no events to ask
about; those below need what a single-room scan does not hold.
"""

from __future__ import annotations

UNAVAILABLE: dict[str, str] = {
    "ovos.revisit_detection": "needs several rooms walked between (a scan is one room)",
    "ovos.revisit_counting": "needs several rooms walked between (a scan is one room)",
    "ovos.out_of_view": "asks which room an object is in (a scan is one room)",
    "ovos.chronological_recall": "asks which room was visited first (a scan is one room)",
    "ovos.temporal_depth": "compares time spent in two rooms (a scan is one room)",
    "ovos.optimal_path": "needs a door graph (a scan is one room)",
    "ovos.rerouting": "needs a door graph (a scan is one room)",
    "ovos.reachability": "needs a door graph (a scan is one room)",
    "ovos.topology": "needs a door graph (a scan is one room)",
    "ovos.allocentric_direction": "compares room centres (a scan is one room)",
    "ovos.containment": "needs support relations, which scan annotations do not give",
    "ovos.support": "needs support relations, which scan annotations do not give",
    "ucs.my_trajectory": "asks the rooms walked into (a scan is one room)",
    "ucs.relative_position": "asks about entering a room (a scan starts inside its room)",
    "ucs.category_recall": "asks what was seen in a named room (a scan is one room)",
    "s3.area": "sums the rooms visited (a scan is one room)",
    "s3.explore_room_count": "needs exploration: poses off the recorded path, which a scan "
    "cannot render",
}


def scan_families() -> list[str]:
    """The family keys the scans build asks, in registry order."""
    from streamspatial.sim.qa import FAMILIES

    return [k for k, f in sorted(FAMILIES.items()) if not f.dynamic and k not in UNAVAILABLE]


def not_on_scans() -> dict[str, str]:
    """Every family a scan cannot supply, with why."""
    from streamspatial.sim.qa import FAMILIES

    out = {
        k: "asks about scripted events (people, doors, lights, props); a scan has none"
        for k, f in sorted(FAMILIES.items())
        if f.dynamic
    }
    out.update(UNAVAILABLE)
    return dict(sorted(out.items()))
