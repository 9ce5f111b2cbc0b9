"""Editing a walk to give the camera time to watch: watch holds and glance-backs.

An event is only countable if it is seen, so the event planner (:mod:`.plan`) inserts
manoeuvres into a planned walk (:func:`~streamspatial.sim.walk.nav.plan_trajectory`) where it
stands: a *watch hold* (turn on the spot to face a scene, stand still 4–10 s with
``motion="watch"``, turn back) and a *glance-back* (turn to a furniture top, look 2 s, turn
away 150–180° for 2–4 s, turn back and look 2 s, all ``motion="glance"``, then turn back to
the walk).  The rest of the walk follows, later by the manoeuvre's length, and the result is
cut to the original number of poses, so times stay ``i / fps``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from streamspatial.core.geometry import wrap_angle
from streamspatial.scene.types import CameraPose, Trajectory
from streamspatial.sim.events.params import (
    EVENT_WORTH,
    EXTRA_KINDS,
    GLANCE_LOOK,
    GLANCE_TURN_SPEED,
    MANOEUVRE_BUDGET,
    MIN_WALK_GAP,
    MINUTE_KINDS,
    TURN_SPEED,
)

Head = tuple[float, float, str]  # yaw, pitch, motion


@dataclass
class Segment:
    """The head's poses of one manoeuvre, and named frame ranges ``[a, b)`` inside it."""

    heads: list[Head] = field(default_factory=list)
    marks: dict[str, tuple[int, int]] = field(default_factory=dict)

    def turn(
        self,
        yaw0: float,
        pitch0: float,
        yaw1: float,
        pitch1: float,
        speed: float,
        motion: str,
        fps: float,
        *,
        exact: bool = False,
    ) -> float:
        """Turn at ``speed`` (rad/s) from one heading to another, the short way round unless
        ``exact`` (a 180° glance-back must turn the side it was drawn to); returns the end."""
        delta = yaw1 - yaw0 if exact else wrap_angle(yaw1 - yaw0)
        n = max(1, math.ceil(abs(delta) / (speed / fps)))
        for k in range(1, n + 1):
            u = k / n
            self.heads.append((yaw0 + delta * u, pitch0 + (pitch1 - pitch0) * u, motion))
        return yaw0 + delta

    def hold(
        self, name: str, yaw: float, pitch: float, seconds: float, motion: str, fps: float
    ) -> None:
        a = len(self.heads)
        self.heads.extend([(yaw, pitch, motion)] * max(1, round(seconds * fps)))
        self.marks[name] = (a, len(self.heads))

    def __len__(self) -> int:
        return len(self.heads)


def watch(
    yaw0: float, pitch0: float, yaw: float, pitch: float, seconds: float, fps: float
) -> Segment:
    """Turn to face ``yaw``, stand still ``seconds`` (mark ``"hold"``), turn back."""
    s = Segment()
    s.turn(yaw0, pitch0, yaw, pitch, TURN_SPEED, "turn", fps)
    s.hold("hold", yaw, pitch, seconds, "watch", fps)
    s.turn(yaw, pitch, yaw0, pitch0, TURN_SPEED, "turn", fps)
    return s


def glance_back(
    yaw0: float, pitch0: float, yaw: float, pitch: float, away: float, away_s: float, fps: float
) -> Segment:
    """Look at a surface, turn ``away`` (signed, rad) for ``away_s``, look again, turn back.

    Marks ``"look1"``, ``"away"`` (the still part of looking away) and ``"look2"``.
    """
    s = Segment()  # a glance is brisk throughout: its turns in and out too
    s.turn(yaw0, pitch0, yaw, pitch, GLANCE_TURN_SPEED, "turn", fps)
    s.hold("look1", yaw, pitch, GLANCE_LOOK, "glance", fps)
    s.turn(yaw, pitch, yaw + away, pitch0, GLANCE_TURN_SPEED, "glance", fps, exact=True)
    s.hold("away", yaw + away, pitch0, away_s, "glance", fps)
    s.turn(yaw + away, pitch0, yaw, pitch, GLANCE_TURN_SPEED, "glance", fps, exact=True)
    s.hold("look2", yaw, pitch, GLANCE_LOOK, "glance", fps)
    s.turn(yaw, pitch, yaw0, pitch0, GLANCE_TURN_SPEED, "turn", fps)
    return s


def splice(traj: Trajectory, inserts: list[tuple[int, Segment]]) -> tuple[Trajectory, list[int]]:
    """The walk with each segment inserted before its anchor pose, cut to the original length.

    ``inserts`` is sorted by anchor index; returns the new trajectory and, per insert, the
    index of its first pose in it.  Inserted poses stand where the anchor pose stands.
    """
    n = len(traj.poses)
    rows: list[tuple[CameraPose, float, float, str, int]] = []
    starts: list[int] = []
    k = 0
    for i, p in enumerate(traj.poses):
        while k < len(inserts) and inserts[k][0] == i:
            starts.append(len(rows))
            for yaw, pitch, motion in inserts[k][1].heads:
                rows.append((p, yaw, pitch, motion, -1))
            k += 1
        rows.append((p, p.yaw, p.pitch, p.motion, p.keypoint))
        if len(rows) >= n:
            break
    rows = rows[:n]
    poses = tuple(
        CameraPose(
            time=round(j / traj.fps, 5),
            position=p.position,
            yaw=round(wrap_angle(yaw), 5),
            pitch=round(pitch, 5),
            motion=motion,
            keypoint=kp,
        )
        for j, (p, yaw, pitch, motion, kp) in enumerate(rows)
    )
    return Trajectory(traj.house_id, traj.fps, poses, traj.keypoints), starts


def choose(queue: list[str], survey, n: int, fps: float) -> list[tuple[int, str]]:
    """Where to insert manoeuvres: ``survey`` maps each kind to the poses it fits at
    ``(index, length, carries, events)``; returns ``(index, kind)`` sorted.  One anchor per
    queued kind within the budget, spaced by at least
    :data:`MIN_WALK_GAP` of walk, spread towards even shares of it.  A minute's kinds at a
    time (the queue holds them in minutes): of all their orders, the one that places the most
    (then the most evenly spread), so long walks cost linear time."""
    est = {k: float(np.mean([s[1] for s in v])) for k, v in survey.items() if v}
    carry = {s[0] for s in survey.get("action", ()) if s[2]}
    kinds, total = [], 0.0
    for k in queue:
        if k in est and total + est[k] <= MANOEUVRE_BUDGET * n:
            kinds.append(k)
            total += est[k]
    state = _Placing(survey, est, n, fps, n - total, len(kinds))
    out: list[tuple[int, str]] = []
    per = len(MINUTE_KINDS) + len(EXTRA_KINDS)
    for g in range(0, len(kinds), per):
        group, later = kinds[g : g + per], kinds[g + per :]
        best = None
        for order in sorted(set(itertools.permutations(group))):
            got = state.place(order, g, later)
            if best is None or _rank(got, carry) > _rank(best, carry):
                best = got
        assert best is not None
        out += best[0]
        state.prev, state.inserted = best[2], best[3]
    return out


def _rank(got, carry: set[int]) -> tuple[int, int, float]:
    """An order's worth: an action hold with a carry first (the rarest event: a walk offers
    a carry view at a few places, often not where an even spread would put the hold, and a
    glance-back fewer is a smaller loss), then the most manoeuvres placed, then the most
    even spread."""
    placed = got[0]
    carries = sum(1 for i, kind in placed if kind == "action" and i in carry)
    return carries, len(placed), -got[1]


@dataclass
class _Placing:
    """Where the placement stands: the last anchor used and the frames inserted so far."""

    survey: dict
    est: dict
    n: int
    fps: float
    walk: float
    count: int
    prev: int = 0
    inserted: float = 0.0

    def place(self, order, k0: int, later_kinds) -> tuple[list[tuple[int, str]], float, int, float]:
        gap = round(MIN_WALK_GAP * self.fps)
        out: list[tuple[int, str]] = []
        prev, inserted, cost = self.prev, self.inserted, 0.0
        for j, kind in enumerate(order):
            rest = [*order[j + 1 :], *later_kinds]
            later = sum(self.est[x] for x in rest) + len(rest) * gap
            ok = [
                s
                for s in self.survey[kind]
                if s[0] >= prev + gap and s[0] + inserted + s[1] + later < self.n
            ]
            if kind == "action" and any(s[2] for s in ok):
                ok = [s for s in ok if s[2]]  # a view with a carry, where there is one
            if not ok:
                continue
            target = self.walk * (k0 + j + 0.5) / self.count
            # Near its share of the walk, but a view with more happening is worth a detour.
            worth = EVENT_WORTH * self.fps
            s = min(ok, key=lambda s: (abs(s[0] - target) - worth * s[3], s[0]))
            out.append((s[0], kind))
            cost += abs(s[0] - target)
            prev, inserted = s[0], inserted + s[1]
        return out, cost, prev, inserted


__all__ = ["Segment", "choose", "glance_back", "splice", "watch"]
