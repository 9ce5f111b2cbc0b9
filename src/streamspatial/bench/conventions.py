"""Where a generated question's answer classes begin and end: one home for both sides.

The simulator's question generators (:mod:`streamspatial.sim.qa`) draw their answers on these
lines, and the rule-based reasoner (:mod:`streamspatial.agents.rules`) reads the same lines off
its memory; with ground-truth perception the two must agree, and the tests hold them to it.
Both rooms import ``bench`` (``docs/architecture.md``), so each line is written once and cannot
drift.  Thresholds a side keeps to itself — the generator asks only where classes lie far apart,
and the reasoner takes the nearest class between them — stay with that side.
"""

from __future__ import annotations

# ------------------------------------------------------------------ surfaces and props (UCS)
VISIT_GAP_S = 0.6  # s: a surface out of view longer than this starts a new visit
ON_MARGIN_M = 0.05  # m: a prop within the surface's footprint grown by this is on it
ON_HEIGHT_M = (-0.1, 0.4)  # m: …with its centre this far above (below) the surface's top
MOVED_M = 0.15  # m: a prop on the same surface that shifted further than this was moved
REST_M = 0.01  # m: a prop that moved less than this between two frames is resting
FLOOR_Z = 0.2  # m: a resting prop with its centre this low, on no furniture, is on the floor

# ------------------------------------------------------------------ moving things (OVO-S L1)
WINDOW_S = 1.0  # s: motion is judged over the last second (OVO-S L1: frames near the query)

# ------------------------------------------------------------------ events (VCBench E1, E2)
# A door leaf reads shut within SHUT_RAD of its frame and open past OPEN_RAD (the planner's
# open leaf stands at π/2); in between it reads neither.
SHUT_RAD = 0.2
OPEN_RAD = 1.0
# s: sightings closer than this are one run (brief occlusions bridged); a person's run is one
# walk-through
SIGHTING_GAP_S = 0.5

# ------------------------------------------------------------------ rooms (OVO-S L2, L4; S3)
# Temporal depth: the longer stay within this factor of the shorter is "about the same".
SAME_STAY_RATIO = 1.15
CARDINALS = ("North", "East", "South", "West")  # allocentric answers, clockwise from north
# the start headings a question may give, clockwise from north in steps of 45°
COMPASS8 = (
    "north",
    "north-east",
    "east",
    "south-east",
    "south",
    "south-west",
    "west",
    "north-west",
)
COVER_RADIUS = 1.5  # m: S3 "area" counts floor cells the walk passed within this of…
AREA_SHARE = 0.3  # …in rooms where this share of the floor cells was passed

# ------------------------------------------------------------------ trajectory maps (S3)
# The top-down map options: a start dot, an end arrow and the path between them.
START_RGB = (20, 160, 40)
END_RGB = (210, 30, 30)
PATH_RGB = (30, 80, 200)

__all__ = [
    "AREA_SHARE",
    "CARDINALS",
    "COMPASS8",
    "COVER_RADIUS",
    "END_RGB",
    "FLOOR_Z",
    "MOVED_M",
    "ON_HEIGHT_M",
    "ON_MARGIN_M",
    "OPEN_RAD",
    "PATH_RGB",
    "REST_M",
    "SAME_STAY_RATIO",
    "SHUT_RAD",
    "SIGHTING_GAP_S",
    "START_RGB",
    "VISIT_GAP_S",
    "WINDOW_S",
]
