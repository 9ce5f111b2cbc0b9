"""Every constant of the dynamic-event planner (:mod:`.plan`), each with where it comes from.

One place so a reviewer can see at a glance what a planned minute of video contains and why.
Counts are *ranges*, drawn uniformly per walk, so the answer to "how many so far" is spread
rather than a typical number a blind model could learn.
"""

from __future__ import annotations

import math

from streamspatial.scene.camera import DEFAULT_VFOV

# --------------------------------------------------------------------------- the camera
VFOV_DEG = DEFAULT_VFOV  # the renderer's vertical field of view
ASPECT = 4 / 3  # BENCHMARK_SIZE 640x480; plan_events takes the real one
NEAR = 0.1  # m: points closer than this to the eye are not "seen"
EDGE_MARGIN = 0.9  # use 90 % of the half-angles: a point on the image border is barely seen

# --------------------------------------------------------------------------- manoeuvres
# A watch hold: turn to face the scene, stand 4–10 s (the brief), turn back.  Holds are drawn
# from 6–9 s: long enough for 2–3 crossings, short enough to leave the walk.  A carrying hold
# stands longer than the brief's 10 s, for two carries (CARRY_HOLD).
WATCH_HOLD = (6.0, 9.0)  # s, the static part of an action hold that watches movers
# ... and of one that watches carries: a carry takes 3-6 s with its lifts and the walk back
# 2-3 s more, so 6-9 s held one (seed 5151's twelve 5-minute walks planned 40 carries in 29
# carrying holds); 10-13 s hold two, now and then three (CARRIES).
CARRY_HOLD = (10.0, 13.0)
CROSS_HOLD = (4.5, 7.0)  # s, a crossing hold's: 1–3 crossings of 2–4 s
WATCH_PITCH = math.radians(-10)  # walk.nav.Motion.pitch: the hand-held look-down
# Turns on the spot into and out of a manoeuvre: 1.5x walk.nav.Motion.turn_speed, the fastest
# turn nav's walk already makes (emit_walk's max_turn).
TURN_SPEED = math.radians(45) * 1.5
# A glance-back: look 1.2 s, turn away 150–180° quickly and stay 1.5–2.5 s, turn back, look
# 1.2 s (short, so two or three fit in a minute beside the holds).  Looking back over the
# shoulder is quicker than turning to walk: ~1.1 s for 160°.
GLANCE_LOOK = 1.2  # s
GLANCE_AWAY = (1.5, 2.5)  # s
GLANCE_TURN = (math.radians(150), math.radians(180))
GLANCE_TURN_SPEED = math.radians(150)
# Where a glance-back looks away to: someone looking over the shoulder looks into the room,
# not at the wall a metre behind.  The drawn turn is kept when its view is this open (walls
# this far along the centre and ±20° of it), else the most open of the turns on offer (both
# ways, 110–180° in eight steps: past 110° the top is out of a 75° wide view) that still
# hides the top.  Staring at a painted wall from 0.5 m filled a fifth of the frames of a
# glance-back with one colour (benchmarks/footage_realism).
GLANCE_OPEN = 1.5  # m
GLANCE_OFFERS = (math.radians(110), math.radians(180), 8)
# At most this share of the walk goes to manoeuvres; the rest stays the normal walk (static
# families need it).  Measured: ~50-60 % on 1-minute walks, see docs/simulator.md.
MANOEUVRE_BUDGET = 0.66
MIN_WALK_GAP = 3.0  # s of normal walk before each manoeuvre
# A minute's manoeuvres: a crossing hold, an action hold and two glance-backs in the order
# that fits the walk best, then a third glance-back if the budget has room.  The budget is
# spent in this order, so the extra glance-back is the first to go.
MINUTE_KINDS = ("cross", "action", "glance", "glance")
EXTRA_KINDS = ("glance",)
EVENT_WORTH = 3.0  # s of walk a manoeuvre may move from its even share per extra event

# --------------------------------------------------------------------------- lights (E1-Transit)
LIGHT_PAIRS = (1, 4)  # off/on pairs per minute, uniform
# s the lights stay off (>= 1 s apart, the brief).  Short: a dark frame's most common colour
# covers about 19 % of it (a lit one's 7 %), and with 1.2-4 s off the dark frames pushed the
# footage's most common colour to 2.6x the real walk-through clip's (benchmarks/footage_realism)
LIGHT_OFF = (1.0, 2.0)

# --------------------------------------------------------------------------- doors (E1-Action)
# The leaf's geometry and its open angle are scene.doors' (the convention the renderer draws).
DOOR_SWING = 0.5  # s for one swing (the brief)
# swings per minute, uniform (close and open alternate).  At least two: E1-Action asks only
# where two or more were seen, and with 1-6 five of twelve 3-minute walks had none to ask.
DOOR_SWINGS = (2, 6)
DOOR_PASS_GUARD = 3.0  # s: no swing within ±3 s of the camera passing through that door
DOOR_CLOSED = (1.0, 4.0)  # s a closed door stays shut before it may reopen
# The camera stays this far from a door while its leaf swings or stands shut: a leaf shut
# 1 m in front of the lens fills the frame with one white panel (and hides what the hold
# watches), which no one filming a room does.  At 1.8 m a 0.9 m leaf spans a third of the width.
DOOR_VIEW_DIST = 1.8  # m, from the door's centre

# --------------------------------------------------------------------------- pendulum (E2-Periodic)
PENDULUMS = (1, 2)  # per minute of walk, uniform (the brief: one or two in a minute)
PERIOD = (0.8, 1.6)  # s (the brief: a metronome's to a slow pendulum's)
PENDULUM_SIZE = (0.15, 0.25, 0.5)  # m, a metronome on a top (sim.actors' best size)
AMPLITUDE = 0.35  # rad, schedule.Swing's default

# --------------------------------------------------------------------------- person (E2-Episode)
PERSON_SIZE = (0.3, 0.5, 1.7)  # m, sim.actors' person (depth, shoulders, height)
PERSON_SPEED = (1.1, 1.6)  # m/s, a brisk walking pace (crossings of 2-4 s)
EPISODES_PER_HOLD = (1, 3)  # crossings per crossing-hold, uniform
CROSS_DIST = (1.8, 4.0)  # m from the camera, the line the person crosses along
BODY_MARGIN = 0.4  # m: a person is out of view when its centre is this far past the edge
PAUSE_PROB = 0.3  # a crossing stops in view 1–2 s before going on (the brief's "stands still")
PAUSE = (1.0, 2.0)
# A ball moves (or lies still) during a crossing hold too, clear of the person's paths: the
# hold then has two movers for OVO-S 1.3.4's relative speed, and one more motion leg.
CROSS_BALL_PROB = 0.7

# ------------------------------------------------------------- motion legs (OVO-S 1.3.3-5)
MOVER_SPEED = (0.3, 2.0)  # m/s (the brief)
SPEED_RATIO_APART = 2.0  # two movers: one at least twice as fast ...
SPEED_RATIO_SAME = 1.15  # ... or within 15 % ("about the same")
STATIONARY_PROB = 0.15  # a mover stands still ("stationary")
LEG_TIME = (1.5, 4.0)  # s a leg lasts, cut so that ...
LEG_LENGTH = 2.5  # m ... a leg is at most this long: the free floor a room shows in view
BALL_SIZE = 0.22  # m, diameter
MIN_SEPARATION = 0.8  # m between the two movers at every instant

# ------------------------------------------------------------- props (OVO-S 3.2.1, UCS)
PROP_CATEGORIES = ("cup", "mug", "book", "bottle", "vase", "box", "apple", "bowl", "candle", "jar")
PROP_SIZE = {
    "cup": (0.08, 0.08, 0.10),
    "mug": (0.10, 0.08, 0.10),
    "book": (0.22, 0.16, 0.04),
    "bottle": (0.08, 0.08, 0.26),
    "vase": (0.12, 0.12, 0.24),
    "box": (0.20, 0.15, 0.12),
    "apple": (0.08, 0.08, 0.08),
    "bowl": (0.16, 0.16, 0.07),
    "candle": (0.07, 0.07, 0.14),
    "jar": (0.10, 0.10, 0.14),
}
# What the person carries: the props with a side of 20 cm or more (a top's spots are 16 cm
# apart, so nothing larger).  A cup or an apple is 8-10 cm, under the pixel threshold of a
# 160x120 frame from 2-3 m (the generators could use one carry in four), so a carry draws from
# these first (the house's own categories excepted).
CARRY_CATEGORIES = ("box", "vase", "bottle")
PROP_COLORS = ("red", "blue", "green", "yellow", "white", "orange", "purple")
PROP_GAP = 0.06  # m between props, and to the surface's edge
SURFACE_TOP = (0.35, 1.4)  # m: furniture tops a camera at eye height can look onto
SURFACE_DIST = (0.9, 3.6)  # m from the camera to the top looked at (a cup: ~12 px at 640x480)
# What a glance-back does to its top's main kind of prop: nothing, one prop moved to the free
# spot furthest from it, or a net count change of -2, -1, +1 or +2 (±2 need a top of three
# spots or more; on a smaller one a change of two becomes one of the same sign).  OVO-S 3.2.1
# asks what changed (one or more added, one or more removed, one moved, nothing) and UCS
# Quantity Change Tracking the net count (-2 … +2); both balance their classes, so each stops
# at about (rarest class + 1) × classes.  The outcomes are *dealt*, not drawn: a walk's
# glance-backs take the outcome it has planned least so far, ties going in this order
# rotated by the walk's place in the benchmark (``plan_events``'s ``slot``), one step a walk.
# Each outcome then leads about one walk in six and follows in as many, and the rarest class
# of either family is about a sixth of the glance-backs planned.  Drawn at random with
# weights (nothing 0.2, moved 0.2, each count 0.15), the 33 glance-backs of the twenty
# one-minute walks of seed 4242 planned a single +2, and Quantity Change Tracking stopped at
# 13 items.  (Every first glance-back of a walk taking the deck's even places would tie the
# outcome to the walk's clock: a step of one keeps first and later glance-backs alike.)
GLANCE_DECK = ("unchanged", "-2", "+1", "moved", "+2", "-1")
GLANCE_OPS: dict[str, tuple[str, ...]] = {
    "unchanged": (),
    "moved": ("moved",),
    "-1": ("removed",),
    "+1": ("added",),
    "-2": ("removed", "removed"),
    "+2": ("added", "added"),
}
# The main kind of a glance-back's top: props with a side of 15 cm or more first (the house's
# own categories excepted).  A change counts only where every prop of the kind is seen on both
# visits, and an 8-10 cm cup or apple is under the pixel threshold of a 160x120 frame from 2 m.
GLANCE_CATEGORIES = ("box", "vase", "bottle", "book", "bowl")
# A glance-back's props stand this far apart where the top has three such spots (else a spot,
# 16 cm, apart): on twelve 3-minute walks most changes went unasked because a prop of the top
# was hidden behind its neighbour in one of the two visits.
PROP_SPACING = 0.3  # m
HAND_Z = 1.0  # m: a carried prop's height (the person's hand)
# A carry walks at 0.7–1.2 m/s (a careful pace, carrying), lasting 1.5–4 s: short walks to a
# floor spot are short, so two or three carries fit in one action hold.  Back empty-handed
# at the faster pace.
CARRY_SPEED = (0.7, 1.2)  # m/s
CARRY_TIME = (1.5, 4.0)  # s
CARRIES = (2, 3)  # per carry hold, uniform (as many as fit in the hold)
LIFT = 0.3  # s to pick a prop up or put it down
# A carry between a top and a floor spot needs one top in view, not two: tried first this
# often (else only where no two tops are), so "to the floor" is a real answer.
FLOOR_CARRY = 0.6
CARRY_PITCHES = (math.radians(-20), math.radians(-30))  # looks down tried for a carry's view
FLOOR_SPOT_SIDE = 0.3  # m: a floor spot lies beside where the person stands (the right hand)
STAND_OFF = 0.8  # m: where a person stands to reach a surface, at most this far from its edge
