"""Learned perception from local weights: monocular depth + open-vocabulary detection.

``--perception model:depth=DIR,detector=DIR,labels=chair;sofa;lamp`` runs two Hugging Face
models on every frame the memory agent ingests (``[hf]`` extra; nothing is downloaded — the
folders are ``save_pretrained`` outputs or snapshots already on disk):

* **depth** — any ``AutoModelForDepthEstimation`` checkpoint (Depth Anything V1/V2, DPT,
  ZoeDepth): a per-pixel depth map.  Metric checkpoints (``depth_estimation_type="metric"``,
  e.g. Depth-Anything-V2-Metric-Indoor) give metres directly; relative ones give inverse depth
  up to scale, which is normalised so the frame's median depth is ``depth_scale`` metres —
  anchors are then only roughly metric, and distance questions suffer accordingly;
* **detector** — an ``AutoModelForZeroShotObjectDetection`` checkpoint of the OWL-ViT / OWLv2
  family, queried with the label vocabulary (``labels=``; default: the simulator's object
  classes).  Grounding-DINO checkpoints load through the same classes but take a single
  "a chair. a sofa." prompt and a different post-processing signature; that path is written
  but, unlike OWL-ViT, not exercised by the offline tests (see ``docs/agents.md``);
* **pose** — depth models give no camera pose, so the heading and steps are dead-reckoned by
  the weight-free :class:`~streamspatial.perception.classical.EgoMotionEstimator`, each
  detected forward/backward step counting ``speed / fps`` metres (walking pace, default
  1 m/s).  Anchors therefore drift with the walk exactly as a monocular system's do.

A detection is anchored at its box centre, at the median depth of the box's central half,
back-projected through the intrinsics (``hfov=`` degrees, default 60, unless given) and the
current pose.  Mask tracking (SAM2-style) is not provided: detections carry no track id and
the scene-graph memory associates them by 3D proximity and label.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from streamspatial.core.errors import InputError, Problem, StreamspatialError
from streamspatial.perception.classical import ClassicalEgoMotion
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.perception.types import CameraIntrinsics, Detection, Observation

# (label, score, (x0, y0, x1, y1) pixels) — what a detector hands back for one frame.
Box = tuple[str, float, tuple[int, int, int, int]]
DepthFn = Callable[[np.ndarray], np.ndarray]
DetectFn = Callable[[np.ndarray], Sequence[Box]]

OPTIONS = {
    "depth": "folder of an AutoModelForDepthEstimation checkpoint",
    "detector": "folder of an AutoModelForZeroShotObjectDetection checkpoint",
    "labels": "object names separated by ';' (default: the simulator's classes)",
    "threshold": "detection score threshold in [0, 1] (default 0.3)",
    "depth_scale": "median depth in metres assumed for relative depth models (default 2)",
    "assumed_depth": "metres at which objects are anchored without a depth model (default 2)",
    "speed": "metres per second of a detected step (default 1)",
    "hfov": "horizontal field of view in degrees (default 60)",
    "device": "torch device (default cpu)",
}


def _hf():
    try:
        import torch
        import transformers
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise StreamspatialError(
            "model-based perception needs torch and transformers: pip install 'streamspatial[hf]'"
        ) from e
    return torch, transformers


def _model_dir(path: str | Path, option: str) -> Path:
    p = Path(path).expanduser()
    if not (p / "config.json").is_file():
        raise InputError(
            Problem(
                file=str(p),
                field=f"perception {option}",
                expected="a local transformers model folder (with config.json); "
                "nothing is downloaded",
            )
        )
    return p


class DepthModel:
    """Per-pixel depth in metres, at the frame's own resolution."""

    def __init__(self, path: str | Path, *, device: str = "cpu", depth_scale: float = 2.0):
        torch, tf = _hf()
        path = _model_dir(path, "depth")
        self.processor = tf.AutoImageProcessor.from_pretrained(path)
        self.model = tf.AutoModelForDepthEstimation.from_pretrained(path).to(device).eval()
        self.device = device
        kind = getattr(self.model.config, "depth_estimation_type", None)
        # DPT and Depth Anything "relative" heads predict inverse depth; ZoeDepth is metric.
        self.metric = kind == "metric" or self.model.config.model_type == "zoedepth"
        self.depth_scale = depth_scale
        self._torch = torch

    def __call__(self, image: np.ndarray) -> np.ndarray:
        torch = self._torch
        inputs = self.processor(images=image, return_tensors="pt").to(self.device)
        with torch.no_grad():
            pred = self.model(**inputs).predicted_depth  # (1, h, w)
        h, w = image.shape[:2]
        up = torch.nn.functional.interpolate(
            pred[:, None].float(), size=(h, w), mode="bilinear", align_corners=False
        )[0, 0]
        out = up.cpu().numpy().astype(np.float64)
        if self.metric:
            return np.maximum(out, 1e-3)
        disparity = np.maximum(out, 1e-6)  # relative: inverse depth up to scale
        depth = 1.0 / disparity
        return depth * (self.depth_scale / float(np.median(depth)))


class OpenVocabDetector:
    """Boxes for a fixed label vocabulary from an OWL-ViT-style zero-shot detector."""

    def __init__(
        self,
        path: str | Path,
        labels: Sequence[str],
        *,
        threshold: float = 0.3,
        device: str = "cpu",
    ):
        torch, tf = _hf()
        path = _model_dir(path, "detector")
        self.processor = tf.AutoProcessor.from_pretrained(path)
        self.model = tf.AutoModelForZeroShotObjectDetection.from_pretrained(path)
        self.model = self.model.to(device).eval()
        self.labels = list(labels)
        self.threshold = threshold
        self.device = device
        self.grounding = self.model.config.model_type in ("grounding-dino", "mm-grounding-dino")
        self._torch = torch

    def __call__(self, image: np.ndarray) -> list[Box]:
        torch = self._torch
        h, w = image.shape[:2]
        if self.grounding:  # one prompt, phrases separated by dots
            text: Any = [". ".join(self.labels) + "."]
            inputs = self.processor(images=image, text=text, return_tensors="pt")
        else:  # OWL-ViT / OWLv2: one query per label
            text = [[f"a photo of a {label}" for label in self.labels]]
            inputs = self.processor(
                text=text,
                images=image,
                return_tensors="pt",
                padding="max_length",
                truncation=True,
                max_length=self.model.config.text_config.max_position_embeddings,
            )
        inputs = inputs.to(self.device)
        with torch.no_grad():
            outputs = self.model(**inputs)
        post = self.processor.post_process_grounded_object_detection
        if self.grounding:
            result = post(
                outputs,
                inputs["input_ids"],
                threshold=self.threshold,
                text_threshold=self.threshold,
                target_sizes=[(h, w)],
            )[0]
            names = [self._match(str(x)) for x in result.get("text_labels", result["labels"])]
        else:
            result = post(outputs, threshold=self.threshold, target_sizes=[(h, w)])[0]
            names = [self.labels[int(i)] for i in result["labels"]]
        out: list[Box] = []
        for name, score, box in zip(names, result["scores"], result["boxes"], strict=True):
            if name is None:
                continue
            x0, y0, x1, y1 = (float(v) for v in box)
            x0, x1 = max(0.0, min(x0, x1)), min(float(w - 1), max(x0, x1))
            y0, y1 = max(0.0, min(y0, y1)), min(float(h - 1), max(y0, y1))
            if x1 - x0 < 1 or y1 - y0 < 1:
                continue
            out.append((name, float(score), (int(x0), int(y0), int(x1), int(y1))))
        return out

    def _match(self, phrase: str) -> str | None:
        phrase = phrase.strip().lower()
        for label in sorted(self.labels, key=len, reverse=True):
            if label.lower() in phrase:
                return label
        return None


@dataclass(frozen=True)
class AnchorConfig:
    assumed_depth: float = 2.0  # metres, when no depth model runs
    speed: float = 1.0  # metres per second of a detected step


class ModelPerception(PerceptionProvider):
    """Depth + detection + dead-reckoned pose → world-anchored detections, frame by frame.

    ``depth`` and ``detector`` are callables (the model wrappers above, or anything with the
    same signature), so the geometry is testable without weights.
    """

    name = "model"
    needs_images = True

    def __init__(
        self,
        fps: float,
        n_frames: int = 0,
        *,
        labels: Sequence[str] = (),
        depth: DepthFn | None = None,
        detector: DetectFn | None = None,
        intrinsics: CameraIntrinsics | None = None,
        hfov_deg: float = 60.0,
        anchor: AnchorConfig | None = None,
    ):
        super().__init__(fps, n_frames)
        self.labels = sorted(set(labels))
        self.attributes: list[str] = []
        self.depth = depth
        self.detector = detector
        self.intrinsics = intrinsics
        self.hfov_deg = hfov_deg
        self.anchor = anchor or AnchorConfig()
        self._ego = ClassicalEgoMotion(
            fps, n_frames, intrinsics=intrinsics, step=self.anchor.speed / fps
        )

    def _reset_state(self) -> None:
        if hasattr(self, "_ego"):
            self._ego.reset()

    def _observe(self, index: int, time: float, image: np.ndarray | None) -> Observation:
        assert image is not None
        self._ego.advance(time)
        pose = self._ego.observe(index, image).pose
        motion = self._ego.estimator
        h, w = image.shape[:2]
        k = self.intrinsics or CameraIntrinsics.from_hfov(w, h, self.hfov_deg)
        if motion.intrinsics is None:
            motion.intrinsics = k
        depth = self.depth(image) if self.depth is not None else None
        detections = []
        for label, score, (x0, y0, x1, y1) in self.detector(image) if self.detector else ():
            u, v = (x0 + x1) / 2, (y0 + y1) / 2
            if depth is not None:
                # the central half of the box: background around the object stays out
                qx, qy = (x1 - x0) / 4, (y1 - y0) / 4
                patch = depth[int(y0 + qy) : int(y1 - qy) + 1, int(x0 + qx) : int(x1 - qx) + 1]
                d = float(np.median(patch)) if patch.size else float(depth[int(v), int(u)])
            else:
                d = self.anchor.assumed_depth
            if not (math.isfinite(d) and d > 0):
                continue
            world = pose.from_camera(k.backproject(np.array(u), np.array(v), np.array(d)))
            detections.append(
                Detection(
                    label=label,
                    position=(float(world[0]), float(world[1]), float(world[2])),
                    score=score,
                    bbox=(x0, y0, x1, y1),
                    visibility=float((x1 - x0) * (y1 - y0)),
                    depth=d,
                )
            )
        extra: dict[str, object] = {"motion": self._ego.last_motion}
        if depth is not None:
            extra["median_depth"] = float(np.median(depth))
        return Observation(index, time, pose, tuple(detections), None, extra)

    @classmethod
    def from_options(
        cls, options: Mapping[str, str], *, fps: float, n_frames: int = 0
    ) -> ModelPerception:
        """``--perception model:KEY=VALUE,...`` (keys in :data:`OPTIONS`)."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise StreamspatialError(
                f"--perception model: unknown option {unknown[0]!r}; expected {', '.join(OPTIONS)}"
            )
        if "depth" not in options and "detector" not in options:
            raise StreamspatialError(
                "--perception model: give depth=DIR and/or detector=DIR (local folders)"
            )
        number = {}
        for key, default in (
            ("threshold", 0.3),
            ("depth_scale", 2.0),
            ("assumed_depth", 2.0),
            ("speed", 1.0),
            ("hfov", 60.0),
        ):
            raw = options.get(key)
            try:
                number[key] = default if raw is None else float(raw)
            except ValueError:
                raise StreamspatialError(
                    f"--perception model: expected a number for {key}, got {raw!r}"
                ) from None
            if not (math.isfinite(number[key]) and number[key] >= 0):
                raise StreamspatialError(f"--perception model: expected {key} ≥ 0")
        labels = [x.strip() for x in options.get("labels", "").split(";") if x.strip()]
        if not labels:
            labels = default_labels()
        device = options.get("device", "cpu")
        depth = (
            DepthModel(options["depth"], device=device, depth_scale=number["depth_scale"])
            if "depth" in options
            else None
        )
        detector = (
            OpenVocabDetector(
                options["detector"], labels, threshold=number["threshold"], device=device
            )
            if "detector" in options
            else None
        )
        return cls(
            fps,
            n_frames,
            labels=labels,
            depth=depth,
            detector=detector,
            hfov_deg=number["hfov"],
            anchor=AnchorConfig(number["assumed_depth"], number["speed"]),
        )


def default_labels() -> list[str]:
    """The simulator's object classes: the vocabulary its generated questions use."""
    from streamspatial.scene.catalog import FURNITURE, SMALL

    cats = [c for group in FURNITURE.values() for c in group] + list(SMALL)
    return sorted({c.name.replace("_", " ") for c in cats})
