"""Perception providers feeding the memory agents, one causal stream per video.

* :class:`SimGroundTruth` / :class:`CaptureGroundTruth` — oracle perception from simulator
  metadata or 3D-annotated captures, optionally degraded by a seeded :class:`NoiseModel`;
* :class:`ClassicalEgoMotion` — weight-free ego-motion from pixels (OpenCV, ``[cv]`` extra);
* :mod:`.model_based` — depth, open-vocabulary detection and tracking from local weights
  (``[hf]`` extra).

All of them produce :class:`Observation` s and refuse frames after the stream time.
``open_perception(spec, video)`` turns a ``--perception`` string into a provider.
"""

from streamspatial.perception.capture import CAPTURE_SUFFIX, CaptureGroundTruth, capture_path_for
from streamspatial.perception.noise import UNIT_NOISE, NoiseModel
from streamspatial.perception.spec import PerceptionSpec, open_perception, parse_perception
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.perception.types import (
    CameraIntrinsics,
    Detection,
    EgoPose,
    Observation,
)

__all__ = [
    "CAPTURE_SUFFIX",
    "UNIT_NOISE",
    "CameraIntrinsics",
    "CaptureGroundTruth",
    "Detection",
    "EgoPose",
    "NoiseModel",
    "Observation",
    "PerceptionProvider",
    "PerceptionSpec",
    "SimGroundTruth",
    "capture_path_for",
    "open_perception",
    "parse_perception",
]


def __getattr__(name: str):  # the simulator types load only when ground truth is used
    if name == "SimGroundTruth":
        from streamspatial.perception.ground_truth import SimGroundTruth

        return SimGroundTruth
    raise AttributeError(name)
