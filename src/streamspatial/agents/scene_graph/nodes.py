"""The scene graph's nodes and the memory's settings (UCS-Bench App. D.3).

Object nodes (tracked identity, temporally pooled world anchor, voted label and attributes,
first / last seen, observation count, a small keyframe cache), place nodes (regions of the
walked path with one scene tag) and per-room visit records; :class:`MemoryConfig` holds every
constant of the memory in one place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from streamspatial.bench.conventions import VISIT_GAP_S
from streamspatial.perception.types import Observation


@dataclass
class Keyframe:
    index: int
    time: float
    score: float  # visibility: what "best view of this object" maximises
    jpeg: bytes | None = None


@dataclass
class ObjectNode:
    """One persistent object (App. D.3 Eq. 11)."""

    node_id: int
    first_seen: float
    last_seen: float
    first_index: int
    last_index: int
    count: int = 0
    label_votes: dict[str, float] = field(default_factory=dict)
    attr_votes: dict[str, float] = field(default_factory=dict)
    scene_votes: dict[str, float] = field(default_factory=dict)
    track_ids: set[int] = field(default_factory=set)
    keyframes: list[Keyframe] = field(default_factory=list)
    size: tuple[float, float, float] | None = None
    # stretches [start, end] (s) it was in view, gaps up to VISIT_GAP_S bridged: a change
    # rule compares what lay on a surface at its first visit with what lies there now
    visits: list[list[float]] = field(default_factory=list)
    _sum: np.ndarray = field(default_factory=lambda: np.zeros(3))
    _weight: float = 0.0
    _cell: tuple[int, int, int] | None = None
    _far: list[tuple[Any, Observation]] = field(default_factory=list)  # pending track jumps
    _label: str | None = None  # the label vote's winner, kept current by vote_label

    def note_visit(self, t: float) -> None:
        if self.visits and t - self.visits[-1][1] <= VISIT_GAP_S + 1e-6:
            self.visits[-1][1] = max(self.visits[-1][1], t)
        else:
            self.visits.append([t, t])

    def vote_label(self, label: str, weight: float) -> None:
        """Add a label vote, keeping the winner current in O(1): label noise gives a node
        votes for many labels over a long stream, and the winner is read for every
        association and merge test."""
        votes = self.label_votes
        value = votes[label] = votes.get(label, 0.0) + weight
        best = self._label
        if (
            best is not None
            and label != best
            and (value > votes[best] or (value == votes[best] and label < best))
        ):
            self._label = label

    @property
    def position(self) -> tuple[float, float, float]:
        """Temporally pooled canonical anchor (UCS-Bench Eq. 10, confidence-weighted)."""
        p = self._sum / max(self._weight, 1e-12)
        return (float(p[0]), float(p[1]), float(p[2]))

    @property
    def label(self) -> str:
        """Confidence-weighted vote over the labels of its observations (UCS-Bench Eq. 2)."""
        if self._label is None:  # ties go to the first label in sorted order
            self._label = max(sorted(self.label_votes), key=lambda k: self.label_votes[k])
        return self._label

    @property
    def attributes(self) -> tuple[str, ...]:
        if not self.attr_votes:
            return ()
        best = max(sorted(self.attr_votes), key=lambda k: self.attr_votes[k])
        return (best,)

    @property
    def scene(self) -> str | None:
        if not self.scene_votes:
            return None
        return max(sorted(self.scene_votes), key=lambda k: self.scene_votes[k])

    @property
    def confirmed(self) -> bool:
        """Tracked, or seen in two frames: a lone untracked blip is likely a false detection."""
        return bool(self.track_ids) or self.count >= 2

    @property
    def name(self) -> str:
        attrs = " ".join(self.attributes)
        return f"{attrs} {self.label}".strip()


@dataclass
class PlaceNode:
    """A region of the walked path with one scene tag (App. D.3 Eq. 12–13)."""

    place_id: int
    label: str
    center: tuple[float, float]
    radius: float
    first_seen: float
    last_seen: float
    cells: tuple[tuple[float, float], ...] = ()


@dataclass
class SceneVisits:
    """Time spent in one scene tag (room type): entries, frames, first / last seen."""

    first_seen: float
    last_seen: float
    entries: int = 0
    frames: int = 0


@dataclass(frozen=True)
class MemoryConfig:
    assoc_radius: float = 0.8  # m: an untracked detection joins a same-label node this close
    merge_radius: float = 0.3  # m: two never-co-visible same-label nodes this close are one
    merge_tracked: bool = True  # False: two tracked nodes never merge (stable track ids)
    split_distance: float = 2.0  # m: a track observed this far from its node switched identity…
    split_after: int = 3  # … when it stays that far this many frames in a row (else: outliers)
    keyframes_per_object: int = 2
    chain_step_m: float = 0.5  # ego chain: keep a pose every half metre …
    chain_step_rad: float = math.radians(30)  # … or 30° of turning
    chain_max: int = 256  # decimate by half beyond this
    recent_s: float = 10.0  # full-rate recent poses (ego-motion questions)
    place_cell: float = 0.5  # m: ego positions are kept as a voxel histogram per scene tag
    place_eps: float = 1.5  # m: DBSCAN neighbourhood over those cells
    place_min_samples: int = 1  # DBSCAN core-point weight (visits); 1 keeps every region
    near_m: float = 1.5  # object–object "near" edge
    knn: int = 3
    blip_ttl_s: float = 5.0  # an untracked node seen fewer than keep_after times by then…
    keep_after: int = 3  # … is dropped (false detections are independent per frame)


@dataclass(frozen=True)
class InView:
    """A node as the latest frame showed it: image box (x0, y0, x1, y1) and depth (m)."""

    node_id: int
    bbox: tuple[int, int, int, int] | None
    depth: float | None
