"""DirectMe's pose-anchored scene-graph memory (seed 003 §4, App. D) and the agent built on it.

The memory is what a person keeps while walking through a house: *which* objects exist, where
each one is in a fixed world frame, when it was first and last seen, which room-like region it
belongs to, and where I am now.  It is built from perception observations in time order, costs
O(1) per frame whatever the stream length (dictionary and spatial-hash lookups, running means,
a decimated pose chain), and its size is bounded by the distinct objects and places seen, not
by time.  At a query it answers from the state it has — which by construction holds nothing
from after the last ingested frame — by rendering the relevant part of the graph in the
*current* egocentric frame (seed 003 Eq. 15–16), for a model (this module's
:class:`SceneGraphAgent`) or for the rule reasoner (:mod:`.scene_graph_rules`).

Structure (App. D.3): object nodes (tracked identity, temporally pooled world anchor, voted
label and attributes, first/last seen, observation count, a small keyframe cache), place nodes
(DBSCAN over ego positions per scene tag), the ego node (current pose + decimated chain), and
object–object (near / k-nearest) and object–place (containment) edges computed from geometry.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from streamspatial.agents.base import answer_request
from streamspatial.core.errors import CausalityError
from streamspatial.perception.types import EgoPose, Observation, wrap

# -- nodes ---------------------------------------------------------------------------------


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
    _sum: np.ndarray = field(default_factory=lambda: np.zeros(3))
    _weight: float = 0.0
    _cell: tuple[int, int, int] | None = None
    _far: list[tuple[Any, Observation]] = field(default_factory=list)  # pending track jumps
    _label: str | None = None  # the label vote's winner, kept current by vote_label

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
        """Temporally pooled canonical anchor (seed 003 Eq. 10, confidence-weighted)."""
        p = self._sum / max(self._weight, 1e-12)
        return (float(p[0]), float(p[1]), float(p[2]))

    @property
    def label(self) -> str:
        """Confidence-weighted vote over the labels of its observations (seed 003 Eq. 2)."""
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


# -- the memory ----------------------------------------------------------------------------


PATH_CELL = 0.1  # m: the walked-floor grid (bounded by the house's floor area)
VIEW_LOG_S = 60.0  # s of per-frame "what was in view" kept (counts at an earlier moment)


@dataclass(frozen=True)
class InView:
    """A node as the latest frame showed it: image box (x0, y0, x1, y1) and depth (m)."""

    node_id: int
    bbox: tuple[int, int, int, int] | None
    depth: float | None


class SceneGraphMemory:
    """Bounded, streaming scene-graph memory fed with :class:`Observation` s in time order."""

    def __init__(self, config: MemoryConfig | None = None):
        self.config = config or MemoryConfig()
        self.objects: dict[int, ObjectNode] = {}
        self._by_track: dict[int, int] = {}
        self._grid: dict[tuple[int, int, int], set[int]] = {}
        self._covisible: dict[int, set[int]] = {}
        self._next_id = 1
        self.time = -math.inf  # time of the last ingested observation
        self.last_index = -1
        self.frames = 0
        self.pose: EgoPose | None = None
        self.scene: str | None = None
        self.chain: list[EgoPose] = []
        self.recent: deque[EgoPose] = deque()
        self.travelled = 0.0
        self._place_cells: dict[str, dict[tuple[int, int], list[float]]] = {}
        self._places: list[PlaceNode] | None = None
        # the room graph as walked: visits per scene tag, and tags entered one from another
        self.visits: dict[str, SceneVisits] = {}
        self.adjacency: dict[str, set[str]] = {}
        self._last_scene: str | None = None
        # room layouts as perceived (``Observation.extra["room"]``: name, polygon, area), and
        # every floor cell the camera stood on (PATH_CELL m), for coverage and area rules
        self.rooms: dict[str, dict[str, Any]] = {}
        self.path_cells: set[tuple[int, int]] = set()
        # the latest frame as perceived: which nodes, where in the image, how deep; and which
        # nodes each frame of the last VIEW_LOG_S seconds showed
        self.in_view: list[InView] = []
        self.view_log: deque[tuple[float, tuple[int, ...]]] = deque()
        # rooms in the order they were entered, with the pose on entering (bounded by the
        # number of room changes)
        self.scene_log: list[tuple[str, EgoPose]] = []
        self.merges = 0
        self.splits = 0
        self.pruned = 0
        self.outliers = 0
        self.dropped = 0  # sightings discarded: pruned blips and outlier readings
        self._blips: deque[tuple[float, int]] = deque()  # (created, node) untracked singles

    # -- ingestion --------------------------------------------------------------------------
    def ingest(self, obs: Observation, jpeg: bytes | None = None) -> None:
        """Fold one frame's perception into the graph; ``jpeg`` feeds the keyframe cache."""
        if obs.time < self.time - 1e-9:
            raise CausalityError(
                f"observation at {obs.time:.3f}s after the memory reached "
                f"{self.time:.3f}s: ingest in time order"
            )
        self.time = obs.time
        self.last_index = obs.index
        self.frames += 1
        self._ingest_pose(obs)
        seen: list[int] = []
        self.in_view = []
        for det in obs.detections:
            node = self._associate(det, obs, seen)
            if node is None:  # held back: a tracked detection far from its node, for now
                continue
            self._update(node, det, obs, jpeg)
            seen.append(node.node_id)
            self.in_view.append(InView(node.node_id, det.bbox, det.depth))
        self.view_log.append((obs.time, tuple(v.node_id for v in self.in_view)))
        while self.view_log and self.view_log[0][0] < obs.time - VIEW_LOG_S:
            self.view_log.popleft()
        for nid in seen:
            self._maybe_merge(nid, obs.index)
        self._prune(obs.time)
        if len(seen) > 1:
            labels = {nid: self.objects[nid].label for nid in seen if nid in self.objects}
            for a in labels:
                for b in labels:
                    if a != b and labels[a] == labels[b]:
                        self._covisible.setdefault(a, set()).add(b)

    def _ingest_pose(self, obs: Observation) -> None:
        c = self.config
        pose = obs.pose
        room = obs.extra.get("room") if obs.extra else None
        if isinstance(room, Mapping) and room.get("name"):
            self.rooms[str(room["name"])] = dict(room)
        self.path_cells.add(
            (math.floor(pose.position[0] / PATH_CELL), math.floor(pose.position[1] / PATH_CELL))
        )
        if self.pose is not None:
            self.travelled += math.dist(self.pose.position[:2], pose.position[:2])
        self.pose = pose
        self.scene = obs.scene
        if obs.scene:
            self._visit(obs.scene, pose.time)
        self.recent.append(pose)
        while self.recent and self.recent[0].time < pose.time - c.recent_s:
            self.recent.popleft()
        last = self.chain[-1] if self.chain else None
        if (
            last is None
            or math.dist(last.position[:2], pose.position[:2]) >= c.chain_step_m
            or abs(wrap(pose.yaw - last.yaw)) >= c.chain_step_rad
        ):
            self.chain.append(pose)
            if len(self.chain) > c.chain_max:  # decimate: keep the start and the latest pose
                self.chain = self.chain[::2]
                if self.chain[-1] is not pose:
                    self.chain.append(pose)
        if obs.scene:
            cells = self._place_cells.setdefault(obs.scene, {})
            key = (
                math.floor(pose.position[0] / c.place_cell),
                math.floor(pose.position[1] / c.place_cell),
            )
            rec = cells.get(key)
            if rec is None:
                cells[key] = [1.0, pose.time, pose.time]
            else:
                rec[0] += 1
                rec[2] = pose.time
            self._places = None

    def _visit(self, scene: str, t: float) -> None:
        """Bounded by the scene tags: one record per tag, one edge per pair entered."""
        v = self.visits.get(scene)
        if v is None:
            v = self.visits[scene] = SceneVisits(t, t)
        if scene != self._last_scene:
            v.entries += 1
            if self.pose is not None:
                self.scene_log.append((scene, self.pose))
            if self._last_scene is not None:
                self.adjacency.setdefault(self._last_scene, set()).add(scene)
                self.adjacency.setdefault(scene, set()).add(self._last_scene)
            self._last_scene = scene
        v.frames += 1
        v.last_seen = t

    def scene_center(self, scene: str) -> tuple[float, float] | None:
        """Where a scene tag's region is: the visit-weighted mean of its ego-position cells."""
        cells = self._place_cells.get(scene)
        if not cells:
            return None
        c = self.config.place_cell
        w = sum(rec[0] for rec in cells.values())
        x = sum((k[0] + 0.5) * c * rec[0] for k, rec in cells.items()) / w
        y = sum((k[1] + 0.5) * c * rec[0] for k, rec in cells.items()) / w
        return (x, y)

    def _cell(self, p: Sequence[float]) -> tuple[int, int, int]:
        r = self.config.assoc_radius
        return (math.floor(p[0] / r), math.floor(p[1] / r), math.floor(p[2] / r))

    def _near(self, p: Sequence[float]) -> Iterable[int]:
        cx, cy, cz = self._cell(p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    yield from self._grid.get((cx + dx, cy + dy, cz + dz), ())

    def _associate(self, det: Any, obs: Observation, taken: list[int]) -> ObjectNode | None:
        c = self.config
        if det.track_id is not None and det.track_id in self._by_track:
            node = self.objects[self._by_track[det.track_id]]
            if math.dist(node.position, det.position) <= c.split_distance or node.count < 2:
                if node._far:  # the jump did not persist: gross depth or pose errors
                    self.outliers += len(node._far)
                    self.dropped += len(node._far)
                    node._far.clear()
                return node
            # Far from its node: an identity switch if it persists, else an outlier (one bad
            # depth reading would otherwise orphan the node and grow the memory with time).
            node._far.append((det, obs))
            if len(node._far) < c.split_after:
                return None
            self.splits += 1
            held, node._far = node._far[:-1], []
            new = self._new_node(held[0][1] if held else obs)
            node.track_ids.discard(det.track_id)
            self._by_track[det.track_id] = new.node_id
            new.track_ids.add(det.track_id)
            for d, o in held:
                self._update(new, d, o, None)
            return new
        best, best_d = None, c.assoc_radius
        for nid in self._near(det.position):
            if nid in taken:
                continue
            node = self.objects[nid]
            if det.track_id is not None and node.track_ids:
                continue  # two different tracks: the tracker says they differ
            if node.label != det.label:
                continue
            d = math.dist(node.position, det.position)
            if d < best_d:
                best, best_d = node, d
        if best is None:
            best = self._new_node(obs)
        if det.track_id is not None:
            best.track_ids.add(det.track_id)
            self._by_track[det.track_id] = best.node_id
        return best

    def _new_node(self, obs: Observation) -> ObjectNode:
        node = ObjectNode(self._next_id, obs.time, obs.time, obs.index, obs.index)
        self.objects[node.node_id] = node
        self._blips.append((obs.time, node.node_id))
        self._next_id += 1
        return node

    def _prune(self, now: float) -> None:
        """Drop untracked nodes seen fewer than ``keep_after`` times in their first
        ``blip_ttl_s`` seconds.

        False detections are independent per frame, so each makes a node that is seldom seen
        again (two landing close together happen; three are rare); kept, they would grow the
        memory with time instead of with the scene.  Every node enters the queue once, so
        this costs O(1) amortised per frame.
        """
        c = self.config
        while self._blips and self._blips[0][0] < now - c.blip_ttl_s:
            _, nid = self._blips.popleft()
            node = self.objects.get(nid)
            if node is None or node.track_ids or node.count >= c.keep_after:
                continue
            self.pruned += 1
            self.dropped += node.count
            if node._cell is not None and node._cell in self._grid:
                self._grid[node._cell].discard(nid)
                if not self._grid[node._cell]:
                    del self._grid[node._cell]
            for other in self._covisible.pop(nid, set()):
                self._covisible.get(other, set()).discard(nid)
            del self.objects[nid]

    def _update(self, node: ObjectNode, det: Any, obs: Observation, jpeg: bytes | None) -> None:
        w = max(float(det.score), 1e-3)
        node._sum += w * np.asarray(det.position, dtype=float)
        node._weight += w
        node.count += 1
        node.last_seen = obs.time
        node.last_index = obs.index
        node.vote_label(det.label, w)
        for a in det.attributes:
            node.attr_votes[a] = node.attr_votes.get(a, 0.0) + w
        if obs.scene:
            node.scene_votes[obs.scene] = node.scene_votes.get(obs.scene, 0.0) + w
        if det.size is not None:
            node.size = tuple(det.size)  # type: ignore[assignment]
        self._rehash(node)
        self._keyframe(node, obs, det, jpeg)

    def _rehash(self, node: ObjectNode) -> None:
        cell = self._cell(node.position)
        if cell == node._cell:
            return
        if node._cell is not None:
            bucket = self._grid.get(node._cell)
            if bucket is not None:
                bucket.discard(node.node_id)
                if not bucket:
                    del self._grid[node._cell]
        self._grid.setdefault(cell, set()).add(node.node_id)
        node._cell = cell

    def _keyframe(self, node: ObjectNode, obs: Observation, det: Any, jpeg: bytes | None) -> None:
        k = self.config.keyframes_per_object
        if k <= 0 or jpeg is None:
            return
        score = float(det.visibility) if det.visibility else float(det.score)
        frames = node.keyframes
        if len(frames) < k:
            frames.append(Keyframe(obs.index, obs.time, score, jpeg))
        else:
            worst = min(range(len(frames)), key=lambda i: frames[i].score)
            if score > frames[worst].score:
                frames[worst] = Keyframe(obs.index, obs.time, score, jpeg)

    def _maybe_merge(self, nid: int, index: int) -> None:
        """Fold a same-label node that turns out to sit on the same spot and was never seen
        together with this one (a fragmented track, or an untracked re-detection)."""
        node = self.objects.get(nid)
        if node is None:
            return
        for other_id in list(self._near(node.position)):
            if other_id == nid or other_id not in self.objects:
                continue
            other = self.objects[other_id]
            if (
                other.label != node.label
                or (not self.config.merge_tracked and other.track_ids and node.track_ids)
                or other.last_index == index
                or other_id in self._covisible.get(nid, ())
                or math.dist(other.position, node.position) > self.config.merge_radius
            ):
                continue
            self._merge(node, other)

    def _merge(self, keep: ObjectNode, gone: ObjectNode) -> None:
        self.merges += 1
        keep._sum += gone._sum
        keep._weight += gone._weight
        keep.count += gone.count
        keep.first_seen = min(keep.first_seen, gone.first_seen)
        keep.first_index = min(keep.first_index, gone.first_index)
        keep.last_seen = max(keep.last_seen, gone.last_seen)
        for src, dst in (
            (gone.label_votes, keep.label_votes),
            (gone.attr_votes, keep.attr_votes),
            (gone.scene_votes, keep.scene_votes),
        ):
            for key, v in src.items():
                dst[key] = dst.get(key, 0.0) + v
        keep._label = None  # votes combined: the winner is found again when next read
        for t in gone.track_ids:
            self._by_track[t] = keep.node_id
        keep.track_ids |= gone.track_ids
        frames = sorted(keep.keyframes + gone.keyframes, key=lambda f: -f.score)
        keep.keyframes = frames[: self.config.keyframes_per_object]
        self._covisible.setdefault(keep.node_id, set()).update(
            self._covisible.pop(gone.node_id, set())
        )
        if gone._cell is not None and gone._cell in self._grid:
            self._grid[gone._cell].discard(gone.node_id)
        del self.objects[gone.node_id]
        self._rehash(keep)

    # -- reading ----------------------------------------------------------------------------
    def check_causal(self, t_q: float) -> None:
        """Raise if the memory holds anything from after ``t_q`` (a bug upstream)."""
        if self.time > t_q + 1e-6:
            raise CausalityError(
                f"scene-graph memory is at {self.time:.3f}s, after the query time {t_q:.3f}s"
            )

    def nodes(self, *, confirmed: bool = True) -> list[ObjectNode]:
        return [n for n in self.objects.values() if n.confirmed or not confirmed]

    def labels(self) -> set[str]:
        return {n.label for n in self.objects.values()}

    def in_view_at(self, t: float) -> tuple[int, ...] | None:
        """Nodes the last frame at or before ``t`` showed (within VIEW_LOG_S of now)."""
        got = None
        for time, ids in self.view_log:
            if time > t + 1e-6:
                break
            got = ids
        return got

    def pose_at(self, t: float) -> EgoPose | None:
        """The latest pose at or before ``t`` from the recent full-rate buffer, else the chain."""
        best = None
        for p in self.recent:
            if p.time <= t + 1e-9:
                best = p
        if best is not None and (not self.recent or self.recent[0].time <= t + 1e-9):
            return best
        for p in self.chain:
            if p.time <= t + 1e-9:
                best = p
        return best

    def places(self) -> list[PlaceNode]:
        """Place nodes: DBSCAN over the ego-position histogram of each scene tag (cached)."""
        if self._places is not None:
            return self._places
        out: list[PlaceNode] = []
        c = self.config
        for label in sorted(self._place_cells):
            cells = self._place_cells[label]
            keys = sorted(cells)
            xy = np.array(
                [((k[0] + 0.5) * c.place_cell, (k[1] + 0.5) * c.place_cell) for k in keys]
            )
            counts = np.array([cells[k][0] for k in keys])
            groups = _cluster(xy, c.place_eps, c.place_min_samples, counts)
            for g in sorted(set(groups) - {-1}):
                idx = [i for i, x in enumerate(groups) if x == g]
                w = np.array([cells[keys[i]][0] for i in idx])
                pts = xy[idx]
                center = (pts * w[:, None]).sum(0) / w.sum()
                radius = float(np.max(np.linalg.norm(pts - center, axis=1))) + c.place_cell
                out.append(
                    PlaceNode(
                        len(out) + 1,
                        label,
                        (float(center[0]), float(center[1])),
                        radius,
                        min(cells[keys[i]][1] for i in idx),
                        max(cells[keys[i]][2] for i in idx),
                        tuple(map(tuple, pts.tolist())),
                    )
                )
        self._places = out
        return out

    def place_of(self, node: ObjectNode) -> PlaceNode | None:
        """Object–place edge: the region of the node's voted scene tag nearest to it."""
        places = self.places()
        tag = node.scene
        cands = [p for p in places if p.label == tag] or places
        if not cands:
            return None
        x, y = node.position[:2]
        return min(cands, key=lambda p: min(math.dist((x, y), c) for c in p.cells))

    def neighbours(
        self, node: ObjectNode, pool: Sequence[ObjectNode] | None = None
    ) -> list[tuple[ObjectNode, float]]:
        """Object–object edges (seed 003 Eq. 14): within ``near_m`` or among the k nearest."""
        pool = self.nodes() if pool is None else pool
        d = sorted(
            ((o, math.dist(o.position, node.position)) for o in pool if o.node_id != node.node_id),
            key=lambda x: x[1],
        )
        return [
            (o, dist)
            for i, (o, dist) in enumerate(d)
            if dist <= self.config.near_m or i < self.config.knn
        ]

    def size_stats(self) -> dict[str, int]:
        """What bounds the memory: it grows with objects and places, never with time."""
        return {
            "objects": len(self.objects),
            "pending_blips": len(self._blips),
            "tracks": len(self._by_track),
            "keyframes": sum(len(n.keyframes) for n in self.objects.values()),
            "chain": len(self.chain),
            "recent": len(self.recent),
            "place_cells": sum(len(v) for v in self._place_cells.values()),
            "grid_cells": len(self._grid),
        }

    def keyframe_times(self, nodes: Iterable[ObjectNode]) -> list[float]:
        return sorted({k.time for n in nodes for k in n.keyframes})


def _cluster(
    xy: np.ndarray, eps: float, min_samples: int = 1, weights: np.ndarray | None = None
) -> list[int]:
    """DBSCAN labels over cell centres (-1: noise, dropped by the caller).

    With ``min_samples=1`` every point is a core point and DBSCAN reduces exactly to the
    connected components of the ``eps``-neighbourhood graph, computed here directly: scikit-
    learn's per-call validation costs ~30 ms and its import seconds, paid at every query.
    Larger ``min_samples`` (weighted by visit counts) go through scikit-learn's DBSCAN.
    """
    if len(xy) == 0:
        return []
    if min_samples > 1:
        from sklearn.cluster import DBSCAN

        fit = DBSCAN(eps=eps, min_samples=min_samples).fit(xy, sample_weight=weights)
        return [int(v) for v in fit.labels_]
    labels = [-1] * len(xy)
    g = 0
    for i in range(len(xy)):
        if labels[i] >= 0:
            continue
        labels[i] = g
        todo = [i]
        while todo:
            j = todo.pop()
            for q in np.nonzero(np.linalg.norm(xy - xy[j], axis=1) <= eps)[0]:
                if labels[q] < 0:
                    labels[q] = g
                    todo.append(int(q))
        g += 1
    return labels


# -- egocentric relations (seed 003 Eq. 15–16) ------------------------------------------------

EGO_SECTORS = ("ahead", "left", "right", "behind")
REACH_M = 1.0


def ego_relation(pose: EgoPose, point: Sequence[float]) -> dict[str, float | str]:
    """Where a world point is for the camera wearer now: sector, bearing, distances."""
    ahead, left, _up = pose.to_ego(point)
    bearing = math.degrees(math.atan2(left, ahead))
    if abs(bearing) <= 45:
        sector = "ahead"
    elif abs(bearing) >= 135:
        sector = "behind"
    else:
        sector = "left" if bearing > 0 else "right"
    return {
        "sector": sector,
        "bearing_deg": bearing,
        "ahead": ahead,
        "left": left,
        "distance": math.dist(pose.position, point),
        "horizontal": math.hypot(ahead, left),
    }


def describe_direction(rel: Mapping[str, Any]) -> str:
    ahead, left = float(rel["ahead"]), float(rel["left"])
    fb = f"{abs(ahead):.1f} m {'ahead' if ahead >= 0 else 'behind'}"
    lr = f"{abs(left):.1f} m to the {'left' if left >= 0 else 'right'}"
    return f"{rel['sector']} ({fb}, {lr})"


# -- query intent ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mention:
    label: str
    attributes: tuple[str, ...] = ()
    start: int = 0

    @property
    def name(self) -> str:
        return " ".join((*self.attributes, self.label))


@dataclass(frozen=True)
class QueryIntent:
    """The parsed question (seed 003 §4.3): targets, attributes, reasoning primitive."""

    primitive: str  # count | distance | direction | order | locate | attribute | ego | generic
    targets: tuple[Mention, ...] = ()
    task: str | None = None


PRIMITIVE_OF_TASK = {
    "count": "count",
    "transient_count": "count",
    "absolute_distance": "distance",
    "spatial_distance": "distance",
    "cam_obj_distance": "distance",
    "depth_ordering": "distance",
    "identification_closest": "distance",
    "spatial_proximity": "distance",
    "camera_motion_target": "distance",
    "behind_camera": "direction",
    "ego_position": "direction",
    "revisit_detection": "locate",
    "revisit_counting": "count",
    "temporal_depth": "order",
    "reachability": "locate",
    "optimal_path": "locate",
    "topology": "locate",
    "relative_orientation": "direction",
    "allocentric_direction": "direction",
    "sequence": "order",
    "sequence_identification": "order",
    "chronological_recall": "order",
    "out_of_view": "locate",
    "attribute": "attribute",
    "ego_translation": "ego",
    "ego_rotation": "ego",
    "camera_displacement": "ego",
}

_KEYWORDS = (
    ("count", r"\bhow many\b|\bnumber of\b|\bcount\b"),
    ("order", r"\bfirst\b|\border\b|\bchronolog|\bbefore\b|\bafter\b|\bearlier\b"),
    ("direction", r"\bleft\b|\bright\b|\bbehind\b|\bdirection\b|\bfacing\b|\bahead\b"),
    ("distance", r"\bhow far\b|\bdistance\b|\bclosest\b|\bnearest\b|\bcloser\b|\bfarther\b"),
    ("locate", r"\bwhere\b|\bwhich room\b|\bin which\b"),
)


def plural_forms(label: str) -> tuple[str, ...]:
    """A label and its English plural ("bookshelf" → "bookshelves"), for question matching."""
    head, _, last = label.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        pl = last + "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        pl = last[:-1] + "ies"
    elif last.endswith("f"):
        pl = last[:-1] + "ves"
    else:
        pl = last + "s"
    return (label, f"{head} {pl}".strip())


def find_mentions(
    text: str, labels: Iterable[str], attributes: Iterable[str] = ()
) -> list[Mention]:
    """Object mentions in reading order: the longest known label (singular or plural), with a
    known attribute word ("red") right before it."""
    low = text.lower()
    attrs = sorted({a.lower() for a in attributes}, key=len, reverse=True)
    spans: list[tuple[int, int, str]] = []
    for label in sorted({x.lower() for x in labels}, key=len, reverse=True):
        for form in sorted(set(plural_forms(label)), key=len, reverse=True):
            for m in re.finditer(rf"(?<![a-z]){re.escape(form)}(?![a-z])", low):
                s, e = m.span()
                if any(s < e2 and s2 < e for s2, e2, _ in spans):
                    continue
                spans.append((s, e, label))
    out = []
    for s, _e, label in sorted(spans):
        before = low[:s].rstrip()
        found: tuple[str, ...] = ()
        for a in attrs:
            if before.endswith(a) and (len(before) == len(a) or not before[-len(a) - 1].isalpha()):
                found = (a,)
                break
        out.append(Mention(label, found, s))
    return out


def parse_intent(item: Any, labels: Iterable[str], attributes: Iterable[str] = ()) -> QueryIntent:
    """The structured intent of a generated item, else keywords of the question text.

    Targets always come from the question's words (what a user could say), never from
    instance ids: a deployable system has only the question.
    """
    mentions = tuple(find_mentions(item.question, labels, attributes))
    task = None
    if item.intent and isinstance(item.intent, Mapping):
        task = str(item.intent.get("task") or "") or None
    if task and task in PRIMITIVE_OF_TASK:
        return QueryIntent(PRIMITIVE_OF_TASK[task], mentions, task)
    low = item.question.lower()
    for primitive, pattern in _KEYWORDS:
        if re.search(pattern, low):
            return QueryIntent(primitive, mentions, task)
    return QueryIntent("generic", mentions, task)


def resolve(
    memory: SceneGraphMemory, mention: Mention, *, confirmed: bool = True
) -> ObjectNode | None:
    """The node a mention refers to: same label (and attribute when given), most observed."""
    pool = [n for n in memory.nodes(confirmed=confirmed) if n.label == mention.label]
    if mention.attributes:
        exact = [n for n in pool if set(mention.attributes) <= set(n.attributes)]
        pool = (
            exact or [n for n in pool if any(a in n.attr_votes for a in mention.attributes)] or pool
        )
    if not pool:
        return None
    return max(pool, key=lambda n: (n.count, -n.node_id))


def retrieve(memory: SceneGraphMemory, intent: QueryIntent, k: int = 12) -> list[ObjectNode]:
    """Top-k nodes for the intent: mentioned ones first (label, then attribute match), then
    their neighbours, then the most recently seen — all from before the memory's time."""
    scored: dict[int, float] = {}
    nodes = memory.nodes()
    for m in intent.targets:
        for n in nodes:
            s = 0.0
            if n.label == m.label:
                s += 10.0
                if m.attributes and set(m.attributes) <= set(n.attributes):
                    s += 5.0
            if s:
                scored[n.node_id] = max(scored.get(n.node_id, 0.0), s + min(n.count, 50) / 100)
    for nid in list(scored):
        for o, d in memory.neighbours(memory.objects[nid], nodes):
            scored[o.node_id] = max(scored.get(o.node_id, 0.0), 2.0 - min(d, 2.0) / 2)
    horizon = max(memory.time, 1e-6)
    for n in nodes:
        scored.setdefault(n.node_id, 0.5 * n.last_seen / horizon)
    ranked = sorted(scored, key=lambda nid: (-scored[nid], nid))
    return [memory.objects[nid] for nid in ranked[:k]]


def render_subgraph(memory: SceneGraphMemory, nodes: Sequence[ObjectNode]) -> str:
    """The subgraph as text, relations in the *current* egocentric frame."""
    pose = memory.pose
    lines = [
        "Scene-graph memory (built only from what you have seen so far; directions are "
        "relative to where you stand and face now)."
    ]
    if pose is None:
        return lines[0] + "\nNothing has been observed yet."
    where = f" in the {memory.scene}" if memory.scene else ""
    lines.append(f"You: at t={pose.time:.1f}s{where}, having walked {memory.travelled:.1f} m.")
    places = memory.places()
    if places:
        described = []
        for p in places:
            rel = ego_relation(pose, (*p.center, pose.position[2]))
            described.append(
                f"{p.label} #{p.place_id} ({describe_direction(rel)}, "
                f"seen {p.first_seen:.0f}–{p.last_seen:.0f}s)"
            )
        lines.append("Places visited: " + "; ".join(described))
    lines.append("Objects:")
    for n in nodes:
        rel = ego_relation(pose, n.position)
        reach = (
            "within reach"
            if float(rel["horizontal"]) <= REACH_M
            else f"{float(rel['distance']):.1f} m away"
        )
        place = memory.place_of(n)
        near = ", ".join(
            f"{o.name} #{o.node_id} {d:.1f} m" for o, d in memory.neighbours(n, nodes)[:3]
        )
        size = f", size {max(n.size):.1f} m" if n.size else ""
        lines.append(
            f"- {n.name} #{n.node_id}: {describe_direction(rel)}, {reach}"
            f"{f', in {place.label} #{place.place_id}' if place else ''}{size}; first seen "
            f"{n.first_seen:.1f}s, last seen {n.last_seen:.1f}s, {n.count} sightings"
            f"{f'; near {near}' if near else ''}"
        )
    return "\n".join(lines)


# -- the agent ---------------------------------------------------------------------------------


class SceneGraphState:
    """One video's memory plus the perception stream feeding it."""

    def __init__(self, provider: Any, config: MemoryConfig | None = None):
        self.provider = provider
        config = config or MemoryConfig()
        if getattr(provider, "stable_tracks", False):
            # two mugs side by side, seen at different times, are two mugs
            config = replace(config, merge_tracked=False)
        self.memory = SceneGraphMemory(config)

    def catch_up(self, view: Any, t_q: float, sample_fps: float) -> None:
        """Ingest every observation up to ``t_q``; frames at ``sample_fps`` feed keyframes."""
        if self.memory.time > t_q + 1e-6:  # an earlier query after a later one: rebuild
            self.provider.reset()
            self.memory = SceneGraphMemory(self.memory.config)
        prov = self.provider
        prov.advance(t_q)
        pending = list(prov.pending(t_q))
        if not pending:
            return
        fps = getattr(view, "fps", prov.fps) if view is not None else prov.fps
        step = max(1, round(fps / sample_fps)) if sample_fps > 0 else 0
        wanted = (
            [i for i in range(pending[0], pending[-1] + 1) if step and i % step == 0]
            if view is not None
            else []
        )
        jpegs: dict[int, bytes] = {}
        images: dict[int, Any] = {}
        if view is not None and wanted:
            n_q = getattr(view, "n_q", None)
            wanted = [i for i in wanted if n_q is None or i <= n_q]
            if prov.needs_images:
                for f in view.arrays(wanted):
                    images[f.index] = f.image
            for f in _jpeg_frames(view, wanted):
                jpegs[f.index] = f.jpeg
        for i in pending:
            if prov.needs_images:
                if i not in images:
                    continue
                obs = prov.observe(i, images[i])
            else:
                obs = prov.observe(i)
            self.memory.ingest(obs, jpegs.get(i))


def _jpeg_frames(view: Any, indices: list[int]) -> list[Any]:
    """JPEG frames from a PrefixView (``get``), tolerating missing frames in sparse stores."""
    getter = getattr(view, "get", None) or view.jpeg_frames
    try:
        return list(getter(indices))
    except (KeyError, LookupError):
        out = []
        for i in indices:
            try:
                out.extend(getter([i]))
            except (KeyError, LookupError):
                continue
        return out


class SceneGraphAgent:
    """``--agent scene-graph``: the model sees the retrieved subgraph as text plus keyframes.

    Perception is advanced lazily to each query time (O(1) per frame, frames in time order),
    so the agent works with or without the runner calling :meth:`ingest`.  The model never
    sees a frame, node or relation from after t_q: the memory refuses later observations and
    each query checks the memory time and every keyframe time against t_q.
    """

    name: ClassVar[str] = "scene-graph"
    streaming: ClassVar[bool] = True

    def __init__(
        self,
        perception: str = "ground-truth",
        *,
        videos: Any = None,
        provider_factory: Any = None,
        params: Any = None,
        variant: str = "default",
        top_k: int = 12,
        max_keyframes: int = 8,
        sample_fps: float = 1.0,
        config: MemoryConfig | None = None,
        max_videos: int = 16,
        **_: Any,
    ):
        from streamspatial.models.types import GenerationParams
        from streamspatial.perception.spec import parse_perception

        self.spec = parse_perception(perception)
        self.videos = videos
        self._factory = provider_factory
        self.params = params or GenerationParams()
        self.variant = variant
        self.top_k = top_k
        self.max_keyframes = max_keyframes
        self.sample_fps = sample_fps
        self.config = config or MemoryConfig()
        self.max_videos = max_videos
        self._states: dict[str, SceneGraphState] = {}
        self.last_diagnostics: dict[str, Any] | None = None

    # -- Agent protocol -----------------------------------------------------------------------
    @property
    def label(self) -> str:
        return f"scene-graph[{self.spec.label}]"

    @property
    def offline(self) -> bool:
        return False

    def frames_needed(self, item: Any, query: Any, fps: float, n_frames: int) -> list[int]:
        """Frames at ``sample_fps`` up to t_q: keyframes (and pixels for image-based
        perception).  Ground-truth perception reads metadata for every frame regardless."""
        if n_frames <= 0 or self.sample_fps <= 0:
            return []
        n_q = min(math.floor(query.time * fps + 1e-9), n_frames - 1)
        step = max(1, round(fps / self.sample_fps))
        return list(range(0, n_q + 1, step))

    def reset(self, video: str) -> None:
        self._states.pop(video, None)

    def ingest(self, frame: Any, t: float) -> None:
        """Nothing to do here: memory catches up lazily in :meth:`build_request`.

        ``ingest`` carries no video, and the runner interleaves videos; reading frames through
        each query's own PrefixView is what keeps every video's memory causal and separate.
        """
        return None

    def state(self, item: Any, adapter: Any = None, view: Any = None) -> SceneGraphState:
        """This video's memory and perception stream (opened on first use)."""
        st = self._states.get(item.video)
        if st is None:
            if len(self._states) >= self.max_videos:
                self._states.pop(next(iter(self._states)))
            provider = self._provider(item, adapter, view)
            st = self._states[item.video] = SceneGraphState(provider, self.config)
        return st

    def _provider(self, item: Any, adapter: Any, view: Any) -> Any:
        if self._factory is not None:
            return self._factory(item)
        from pathlib import Path

        from streamspatial.perception.spec import open_perception

        base = Path(self.videos) if self.videos is not None else Path(".")
        path = (
            adapter.video_path(item, base) if hasattr(adapter, "video_path") else base / item.video
        )
        return open_perception(
            self.spec,
            path,
            fps=getattr(view, "fps", None),
            n_frames=int(getattr(view, "n_frames", 0) or 0),
        )

    def memory_at(self, view: Any, item: Any, query: Any, adapter: Any = None) -> SceneGraphMemory:
        """The memory caught up to t_q, after checking that nothing in it is later."""
        st = self.state(item, adapter, view)
        st.catch_up(view, query.time, self.sample_fps)
        st.memory.check_causal(query.time)
        return st.memory

    def build_request(
        self,
        view: Any,
        item: Any,
        query: Any,
        adapter: Any,
        *,
        prior_answers: Mapping[str, str] | None = None,
    ) -> Any:
        from streamspatial.models.types import ImagePart, TextPart

        memory = self.memory_at(view, item, query, adapter)
        provider = self.state(item).provider
        intent = parse_intent(
            item,
            set(getattr(provider, "labels", ())) | memory.labels(),
            getattr(provider, "attributes", ()),
        )
        nodes = retrieve(memory, intent, self.top_k)
        text = render_subgraph(memory, nodes)
        frames = []
        for n in nodes:
            for kf in sorted(n.keyframes, key=lambda f: -f.score)[:1]:
                if kf.jpeg is not None and kf.time <= query.time + 1e-6:
                    frames.append((kf.time, kf.jpeg, n))
            if len(frames) >= self.max_keyframes:
                break
        parts: list[Any] = [TextPart(text)]
        for t, jpeg, n in sorted(frames, key=lambda x: x[0]):
            parts.append(TextPart(f"Keyframe at {t:.1f}s showing {n.name} #{n.node_id}:"))
            parts.append(ImagePart(jpeg=jpeg, time=t))
        prompt = adapter.prompt(
            item, query, variant=self.variant, text_only=not frames, prior_answers=prior_answers
        )
        parts.append(TextPart(prompt))
        self.last_diagnostics = diagnostics(memory, nodes, query, [t for t, _, _ in frames])
        return answer_request(item, query, parts, params=self.params)

    def diagnostics(self, item: Any, query: Any) -> dict[str, Any] | None:
        return self.last_diagnostics


def diagnostics(
    memory: SceneGraphMemory, nodes: Sequence[ObjectNode], query: Any, frame_times: Sequence[float]
) -> dict[str, Any]:
    """CR and ER (seed 000 §4.3.3) for a memory agent: a second of the prefix "reaches the
    model" when a keyframe from it is shown, or when a shown node was observed in it (its
    first and last sightings — the evidence the node's facts rest on)."""
    from streamspatial.eval.metrics import compression_ratio, evidence_recall

    t_q = float(query.time)
    kept = {float(t) for t in frame_times}
    for n in nodes:
        kept.add(min(n.first_seen, t_q))
        kept.add(min(n.last_seen, t_q))
    kept = {t for t in kept if 0 <= t <= t_q}
    return {
        "compression_ratio": compression_ratio(kept, t_q),
        "evidence_recall": evidence_recall(kept, query.evidence, t_q),
        "memory_objects": len(memory.objects),
        "subgraph_nodes": len(nodes),
        "keyframes_sent": len(frame_times),
        "memory_time": memory.time,
    }
