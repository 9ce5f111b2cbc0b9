"""``--perception`` spec strings and opening the right provider for a video.

Grammar: ``KIND[:key=value[,key=value...]]`` with ``KIND`` one of ``ground-truth``,
``classical`` or ``model``.  For ground truth, ``noise=S`` scales the documented default noise
(:data:`~streamspatial.perception.noise.UNIT_NOISE`) and single parameters can be overridden
after it: ``ground-truth:noise=0.5,miss=0.1,seed=3``.  ``ground-truth[:noise=0.1]`` — brackets
and all, as the docs write it — is accepted too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from streamspatial.core.errors import InputError, Problem, StreamspatialError
from streamspatial.perception.noise import PARAM_ALIASES, NoiseModel
from streamspatial.perception.stream import PerceptionProvider

KINDS = ("ground-truth", "classical", "model")
_KIND_ALIASES = {"gt": "ground-truth", "oracle": "ground-truth", "groundtruth": "ground-truth"}


@dataclass(frozen=True)
class PerceptionSpec:
    kind: str = "ground-truth"
    noise: NoiseModel = field(default_factory=NoiseModel)
    noise_scale: float = 0.0
    options: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """Short stable name for records: ``ground-truth``, ``ground-truth:noise=0.1``."""
        if self.kind != "ground-truth" or self.noise.perfect:
            return self.kind
        parts = [f"noise={self.noise_scale:g}"] if self.noise_scale else []
        unit = NoiseModel.scaled(self.noise_scale, seed=self.noise.seed)
        for alias, name in PARAM_ALIASES.items():
            if alias in ("pos_drift", "seed"):
                continue
            v = getattr(self.noise, name)
            if v != getattr(unit, name):
                parts.append(f"{alias}={v:g}")
        if self.noise.seed:
            parts.append(f"seed={self.noise.seed}")
        return f"{self.kind}:{','.join(parts)}"


def _bad(spec: str, why: str) -> StreamspatialError:
    return StreamspatialError(f"--perception {spec!r}: {why}")


def parse_perception(spec: str | PerceptionSpec) -> PerceptionSpec:
    if isinstance(spec, PerceptionSpec):
        return spec
    text = spec.strip().replace("[", "").replace("]", "")
    kind, _, rest = text.partition(":")
    kind = _KIND_ALIASES.get(kind.strip().lower(), kind.strip().lower())
    if kind not in KINDS:
        raise _bad(spec, f"expected one of {', '.join(KINDS)}")
    scale = 0.0
    overrides: dict[str, float] = {}
    options: list[tuple[str, str]] = []
    for piece in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = piece.partition("=")
        key = key.strip().lower()
        if not eq:
            raise _bad(spec, f"expected key=value, got {piece!r}")
        if kind == "ground-truth" and (key == "noise" or key in PARAM_ALIASES):
            try:
                v = float(value)
            except ValueError:
                raise _bad(spec, f"expected a number for {key}, got {value!r}") from None
            if not (math.isfinite(v) and v >= 0):
                raise _bad(spec, f"expected {key} ≥ 0, got {value}")
            if key == "noise":
                scale = v
            else:
                overrides[PARAM_ALIASES[key]] = v
        elif kind == "ground-truth":
            raise _bad(
                spec,
                f"unknown option {key!r}; expected noise or one of "
                f"{', '.join(sorted(PARAM_ALIASES))}",
            )
        else:
            options.append((key, value.strip()))
    seed = int(overrides.pop("seed", 0))
    noise = NoiseModel.scaled(scale, seed=seed)
    for name, v in overrides.items():
        if name in ("miss_rate", "confusion") and v > 1:
            raise _bad(spec, f"expected a probability ≤ 1 for {name}")
        noise = noise.with_(**{name: v})
    return PerceptionSpec(kind=kind, noise=noise, noise_scale=scale, options=tuple(options))


def open_perception(
    spec: str | PerceptionSpec, video: str | Path, *, fps: float | None = None, n_frames: int = 0
) -> PerceptionProvider:
    """The provider for one video: ground truth reads the metadata next to it.

    Ground truth looks for the simulator's ``<video>.meta.json.gz`` first, then a real
    capture's ``<video>.boxes3d.json``; a missing file is one clear line naming both.
    """
    s = parse_perception(spec)
    video = Path(video)
    if s.kind == "ground-truth":
        from streamspatial.perception.capture import CaptureGroundTruth, capture_path_for
        from streamspatial.scene.types import load_episode_meta, meta_path_for

        sim = meta_path_for(video)
        if sim.is_file():
            from streamspatial.perception.ground_truth import SimGroundTruth

            return SimGroundTruth(load_episode_meta(sim), noise=s.noise, key=video.name)
        cap = capture_path_for(video)
        if cap.is_file():
            return CaptureGroundTruth.load(cap, noise=s.noise)
        raise InputError(
            Problem(
                file=str(video),
                field="perception",
                expected=f"ground-truth perception needs {sim.name} (simulator) "
                f"or {cap.name} (3D-annotated capture) next to the video",
            )
        )
    if fps is None:
        raise _bad(s.kind, "needs the video's frame rate")
    if s.kind == "classical":
        from streamspatial.perception.classical import ClassicalEgoMotion

        return ClassicalEgoMotion(fps, n_frames)
    from streamspatial.perception.model_based import ModelPerception

    return ModelPerception.from_options(dict(s.options), fps=fps, n_frames=n_frames)
