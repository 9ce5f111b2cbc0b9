"""A seeded noise model that degrades perfect perception the way real perception fails.

Oracle perception gives an upper bound; to measure what memory is worth with a real front end
we need the same pipeline with controlled, realistic errors.  Each error here mirrors a failure
mode DirectMe's root-cause analysis names (UCS-Bench Table 4: tracking and ego-pose errors):

* **pose drift** — the estimated trajectory wanders as the camera moves: each metre walked
  adds Gaussian position error (``pos_drift_per_m`` m per m) and heading error
  (``yaw_drift_per_m`` rad per m).  Objects are anchored through the *estimated* pose, so the
  whole map drifts consistently, as with a real SLAM front end;
* **depth noise** — the range to each detected object is scaled by ``1 + ε``,
  ``ε ~ N(0, depth_rel_std)``;
* **missed detections** — each visible object is dropped with probability ``miss_rate``;
* **false detections** — ``Poisson(false_rate)`` spurious objects per frame, with a random
  label, somewhere in the view, without a track id;
* **label confusion** — a detection's label becomes another label with probability
  ``confusion``.

The labels (and colours) a false or confused detection may take are those truly visible
*up to that frame* (:class:`PrefixVocabulary`), never the episode's whole object list: a name
drawn from an object that only appears later would tell the memory, through its noise, what
is still to come.

``NoiseModel.scaled(s)`` multiplies the documented :data:`UNIT_NOISE` by one scalar, which is
what ``--perception ground-truth:noise=S`` sets.  Randomness is a pure function of
``(seed, video, frame index)``, so a frame's noise does not depend on which other frames were
observed, and reruns are identical.
"""

from __future__ import annotations

import bisect
import math
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from streamspatial.core.geometry import wrap_pi
from streamspatial.perception.types import Detection, EgoPose, Observation


@dataclass(frozen=True)
class NoiseModel:
    pos_drift_per_m: float = 0.0
    yaw_drift_per_m: float = 0.0
    depth_rel_std: float = 0.0
    miss_rate: float = 0.0
    false_rate: float = 0.0
    confusion: float = 0.0
    seed: int = 0

    @classmethod
    def scaled(cls, scale: float, *, seed: int = 0) -> NoiseModel:
        """:data:`UNIT_NOISE` times ``scale`` (probabilities capped at 0.95)."""
        if not (scale >= 0 and math.isfinite(scale)):
            raise ValueError(f"expected a noise scale ≥ 0, got {scale}")
        u = UNIT_NOISE
        return cls(
            pos_drift_per_m=u.pos_drift_per_m * scale,
            yaw_drift_per_m=u.yaw_drift_per_m * scale,
            depth_rel_std=u.depth_rel_std * scale,
            miss_rate=min(0.95, u.miss_rate * scale),
            false_rate=u.false_rate * scale,
            confusion=min(0.95, u.confusion * scale),
            seed=seed,
        )

    @property
    def perfect(self) -> bool:
        return all(getattr(self, f.name) == 0 for f in fields(self) if f.name != "seed")

    def with_(self, **changes: float) -> NoiseModel:
        return replace(self, **changes)


# noise=1: a poor but usable front end (roughly monocular SLAM + an open-vocabulary detector
# in clutter).  The CLI's noise=0.1 is a good one.
UNIT_NOISE = NoiseModel(
    pos_drift_per_m=0.05,
    yaw_drift_per_m=0.02,
    depth_rel_std=0.15,
    miss_rate=0.3,
    false_rate=0.3,
    confusion=0.2,
)

# Short names accepted in perception spec strings (``ground-truth:noise=0.2,miss=0.5``).
PARAM_ALIASES = {
    "drift": "pos_drift_per_m",
    "pos_drift": "pos_drift_per_m",
    "yaw_drift": "yaw_drift_per_m",
    "depth": "depth_rel_std",
    "miss": "miss_rate",
    "false": "false_rate",
    "confusion": "confusion",
    "seed": "seed",
}


class PrefixVocabulary:
    """The labels and attributes seen in frames ``0..i`` of an annotated stream, per frame.

    Built once from the per-frame annotations (every frame, not only those an agent samples),
    so the vocabulary at frame ``i`` is a function of the stream's prefix alone, and a noise
    draw at frame ``i`` is the same whatever comes after it.
    """

    def __init__(self, frames: Iterable[tuple[Iterable[str], Iterable[str]]]):
        first_label: dict[str, int] = {}
        first_attr: dict[str, int] = {}
        for i, (labels, attrs) in enumerate(frames):
            for x in labels:
                first_label.setdefault(x, i)
            for x in attrs:
                first_attr.setdefault(x, i)
        self._labels = sorted((i, x) for x, i in first_label.items())
        self._attrs = sorted((i, x) for x, i in first_attr.items())
        self._cache: tuple[int, tuple[list[str], list[str]]] | None = None

    def at(self, index: int) -> tuple[list[str], list[str]]:
        """``(labels, attributes)`` seen by frame ``index`` (inclusive), each sorted by name."""
        if self._cache is not None and self._cache[0] == index:
            return self._cache[1]

        def upto(pairs: list[tuple[int, str]]) -> list[str]:
            n = bisect.bisect_right(pairs, (index, "\U0010ffff"))
            return sorted(x for _, x in pairs[:n])

        out = (upto(self._labels), upto(self._attrs))
        self._cache = (index, out)
        return out


class NoiseState:
    """The running state of one noisy stream: accumulated drift since the start."""

    def __init__(self, model: NoiseModel, key: str, *, hfov: float = math.radians(60)):
        self.model = model
        self._key = zlib.crc32(key.encode())
        self._hfov = hfov
        self.reset()

    def reset(self) -> None:
        self._drift_yaw = 0.0
        self._est_xy: tuple[float, float] | None = None
        self._true_xy: tuple[float, float] | None = None

    def _rng(self, index: int) -> np.random.Generator:
        return np.random.default_rng([self.model.seed & 0xFFFFFFFF, self._key, index])

    def apply(
        self, obs: Observation, labels: Sequence[str], attributes: Sequence[str] = ()
    ) -> Observation:
        """The observation as an imperfect front end would have reported it.

        ``labels`` / ``attributes``: what false and confused detections may be called — only
        what the stream has shown up to ``obs`` (:meth:`PrefixVocabulary.at`).
        """
        m = self.model
        if m.perfect:
            return obs
        rng = self._rng(obs.index)
        true = obs.pose
        est = self._drift(true, rng)
        c, s = math.cos(self._drift_yaw), math.sin(self._drift_yaw)
        t_x = est.position[0] - (c * true.position[0] - s * true.position[1])
        t_y = est.position[1] - (s * true.position[0] + c * true.position[1])

        def to_est(p: Sequence[float]) -> tuple[float, float, float]:
            return (c * p[0] - s * p[1] + t_x, s * p[0] + c * p[1] + t_y, float(p[2]))

        dets: list[Detection] = []
        for d in obs.detections:
            if rng.random() < m.miss_rate:
                continue
            eps = max(-0.5, rng.normal(0.0, m.depth_rel_std)) if m.depth_rel_std else 0.0
            v = np.subtract(d.position, true.position) * (1.0 + eps)
            p = to_est(np.add(true.position, v))
            label = d.label
            if labels and len(labels) > 1 and rng.random() < m.confusion:
                others = [x for x in labels if x != label]
                label = others[int(rng.integers(len(others)))]
            dets.append(
                replace(
                    d,
                    position=p,
                    label=label,
                    depth=None if d.depth is None else d.depth * (1.0 + eps),
                )
            )
        n_false = int(rng.poisson(m.false_rate)) if m.false_rate > 0 and labels else 0
        for _ in range(n_false):
            ahead = rng.uniform(1.0, 5.0)
            bearing = rng.uniform(-self._hfov / 2, self._hfov / 2)
            az = true.yaw + bearing
            p = (
                true.position[0] + ahead * math.cos(az),
                true.position[1] + ahead * math.sin(az),
                rng.uniform(0.2, 1.5),
            )
            attrs = (attributes[int(rng.integers(len(attributes)))],) if attributes else ()
            dets.append(
                Detection(
                    label=labels[int(rng.integers(len(labels)))],
                    position=to_est(p),
                    track_id=None,
                    score=0.3,
                    attributes=attrs,
                    visibility=0.0,
                    depth=ahead,
                )
            )
        extra = obs.extra
        if "room" in extra:  # the layout is reported in the drifted frame, like everything else
            room = dict(extra["room"])  # type: ignore[arg-type]
            room["polygon"] = [to_est((x, y, 0.0))[:2] for x, y in room["polygon"]]
            extra = {**extra, "room": room}
        return replace(obs, pose=est, detections=tuple(dets), extra=extra)

    def _drift(self, true: EgoPose, rng: np.random.Generator) -> EgoPose:
        m = self.model
        xy = (true.position[0], true.position[1])
        if self._true_xy is None or self._est_xy is None:
            self._true_xy, self._est_xy = xy, xy
            return true
        dx, dy = xy[0] - self._true_xy[0], xy[1] - self._true_xy[1]
        step = math.hypot(dx, dy)
        if step > 0:
            self._drift_yaw += rng.normal(0.0, m.yaw_drift_per_m * step) if m.yaw_drift_per_m else 0
        c, s = math.cos(self._drift_yaw), math.sin(self._drift_yaw)
        ex = self._est_xy[0] + c * dx - s * dy
        ey = self._est_xy[1] + s * dx + c * dy
        if step > 0 and m.pos_drift_per_m:
            ex += rng.normal(0.0, m.pos_drift_per_m * step)
            ey += rng.normal(0.0, m.pos_drift_per_m * step)
        self._true_xy, self._est_xy = xy, (ex, ey)
        return EgoPose(
            true.time, (ex, ey, true.position[2]), wrap_pi(true.yaw + self._drift_yaw), true.pitch
        )
