"""The bounded, streaming scene-graph memory (UCS-Bench §4, App. D.3).

Kept here as one class on purpose (and so over 400 lines): ingestion (association, merging,
splitting, pruning) and reading (places, neighbours, poses) share the memory's private indexes
— the spatial hash, the track map, the co-visibility sets — and splitting them would expose
those indexes.  It costs O(1) per frame whatever the stream length (dictionary and
spatial-hash lookups, running means, a decimated pose chain), and its size is bounded by the
distinct objects and places seen, not by time.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from streamspatial.bench.conventions import VISIT_GAP_S
from streamspatial.core.errors import CausalityError
from streamspatial.core.geometry import wrap_pi
from streamspatial.perception.types import EgoPose, Observation

from .dynamic import DynamicLog
from .nodes import (
    InView,
    Keyframe,
    MemoryConfig,
    ObjectNode,
    PlaceNode,
    SceneVisits,
)

PATH_CELL = 0.1  # m: the walked-floor grid (bounded by the house's floor area)
VIEW_LOG_S = 60.0  # s of per-frame "what was in view" kept (counts at an earlier moment)


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
        # every floor cell the camera stood on (PATH_CELL m) and when it last stood there, for
        # coverage and area rules ("the rooms visited since …")
        self.rooms: dict[str, dict[str, Any]] = {}
        self.path_cells: dict[tuple[int, int], float] = {}
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
        # what moved, switched or changed (dynamic episodes only; empty for a static stream)
        self.dynamic = DynamicLog()

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
        self.dynamic.ingest(obs)
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
        cell = (math.floor(pose.position[0] / PATH_CELL), math.floor(pose.position[1] / PATH_CELL))
        self.path_cells[cell] = pose.time
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
            or abs(wrap_pi(pose.yaw - last.yaw)) >= c.chain_step_rad
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
        node.note_visit(obs.time)
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
        spans: list[list[float]] = []
        for a, b in sorted(keep.visits + gone.visits):
            if spans and a - spans[-1][1] <= VISIT_GAP_S:
                spans[-1][1] = max(spans[-1][1], b)
            else:
                spans.append([a, b])
        keep.visits = spans
        for src, dst in (
            (gone.label_votes, keep.label_votes),
            (gone.attr_votes, keep.attr_votes),
            (gone.scene_votes, keep.scene_votes),
        ):
            for key, v in src.items():
                dst[key] = dst.get(key, 0.0) + v
        keep._label = None  # votes combined: the winner is found again when next read
        if gone._far:  # a jump held for judging against a node that no longer stands alone
            self.outliers += len(gone._far)
            self.dropped += len(gone._far)
            gone._far.clear()
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

    def in_view_at(self, t: float) -> tuple[int, ...] | None:
        """Nodes the last frame at or before ``t`` showed (within VIEW_LOG_S of now)."""
        got = None
        for time, ids in self.view_log:
            if time > t + 1e-6:
                break
            got = ids
        return got

    def labels(self) -> set[str]:
        return {n.label for n in self.objects.values()}

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
        """Object–object edges (UCS-Bench Eq. 14): within ``near_m`` or among the k nearest."""
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
