"""Ground truth from 3D-annotated real captures (ScanNet / ARKitScenes style).

Real RGB-D datasets ship per-frame camera poses and intrinsics plus object 3D boxes.  Rather
than one loader per dataset, the project reads one small, documented JSON file next to the
video, ``<video>.boxes3d.json`` (format ``streamspatial-boxes3d`` version 1, see
``docs/agents.md``); ``streamspatial scans build`` reads the datasets' own layouts instead
(``docs/scans.md``):

.. code-block:: json

    {"format": "streamspatial-boxes3d", "version": 1,
     "world_up": "z", "camera": "opencv",
     "intrinsics": {"width": 640, "height": 480, "fx": 577.9, "fy": 577.9, "cx": 320, "cy": 240},
     "objects": [{"id": 3, "label": "chair", "center": [1.2, 0.4, 0.45],
                  "size": [0.5, 0.5, 0.9], "attributes": ["red"]}],
     "frames": [{"t": 0.0, "pose": [[1,0,0,0],[0,0,1,0],[0,-1,0,1.5],[0,0,0,1]],
                 "visible": [3, {"id": 5, "bbox": [10, 20, 80, 120], "pixels": 4100}],
                 "scene": "kitchen"}]}

``pose`` is camera-to-world (4×4, or 3×4).  ``camera`` names the camera axes: ``opencv``
(ScanNet: x right, y down, z ahead) or ``opengl`` (ARKit: x right, y up, looking down −z).
``world_up`` is ``z`` (ScanNet) or ``y`` (ARKit; converted to z-up on load).  Frames are in
time order; ``visible`` lists ids or objects with optional box and pixel count.
"""

from __future__ import annotations

import bisect
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from streamspatial.core.errors import InputError, Problem
from streamspatial.perception.noise import NoiseModel, NoiseState, PrefixVocabulary
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.perception.types import CameraIntrinsics, Detection, EgoPose, Observation

CAPTURE_SUFFIX = ".boxes3d.json"
FORMAT = "streamspatial-boxes3d"

# y-up (ARKit) world to the project's z-up world: (x, y, z) → (x, −z, y).
_Y_UP_TO_Z_UP = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])


def capture_path_for(video: str | Path) -> Path:
    video = Path(video)
    return video.with_name(video.name + CAPTURE_SUFFIX)


def _problem(path: Path, field: str, expected: str) -> InputError:
    return InputError(Problem(file=str(path), field=field, expected=expected))


def _vec(raw: Any, n: int, path: Path, field: str) -> tuple[float, ...]:
    try:
        v = tuple(float(x) for x in raw)
    except (TypeError, ValueError):
        raise _problem(path, field, f"expected {n} numbers") from None
    if len(v) != n or not all(math.isfinite(x) for x in v):
        raise _problem(path, field, f"expected {n} finite numbers, got {raw!r}")
    return v


def pose_from_matrix(
    m: np.ndarray, *, time: float, camera: str = "opencv", world_up: str = "z"
) -> EgoPose:
    """An :class:`EgoPose` (position, heading, tilt) from a camera-to-world matrix.

    Roll is dropped: egocentric relations only use heading, and a level horizon is what a
    person means by "to my left".
    """
    rot = np.asarray(m[:3, :3], dtype=float)
    pos = np.asarray(m[:3, 3], dtype=float)
    forward = rot[:, 2] if camera == "opencv" else -rot[:, 2]
    if world_up == "y":
        forward = _Y_UP_TO_Z_UP @ forward
        pos = _Y_UP_TO_Z_UP @ pos
    n = float(np.linalg.norm(forward))
    if n == 0:
        raise ValueError("degenerate rotation")
    f = forward / n
    yaw = math.atan2(f[1], f[0])
    pitch = math.asin(max(-1.0, min(1.0, f[2])))
    return EgoPose(time, (float(pos[0]), float(pos[1]), float(pos[2])), yaw, pitch)


class CaptureGroundTruth(PerceptionProvider):
    """Oracle (optionally noisy) perception over one annotated real capture."""

    name = "ground-truth"
    stable_tracks = True  # instance ids from annotations
    needs_images = False

    def __init__(
        self, data: dict[str, Any], *, source: Path, noise: NoiseModel | None = None, key: str = ""
    ):
        path = source
        if data.get("format") != FORMAT:
            raise _problem(path, "format", f"expected {FORMAT!r}")
        if data.get("version") != 1:
            raise _problem(path, "version", "expected version 1")
        world_up = data.get("world_up", "z")
        camera = data.get("camera", "opencv")
        if world_up not in ("z", "y"):
            raise _problem(path, "world_up", "expected 'z' or 'y'")
        if camera not in ("opencv", "opengl"):
            raise _problem(path, "camera", "expected 'opencv' or 'opengl'")
        try:
            self.intrinsics = CameraIntrinsics.from_dict(data["intrinsics"])
        except (KeyError, TypeError, ValueError):
            raise _problem(path, "intrinsics", "expected width, height, fx, fy, cx, cy") from None
        self._objects: dict[
            int, tuple[str, tuple[float, ...], tuple[float, ...] | None, tuple[str, ...]]
        ] = {}
        for n, o in enumerate(data.get("objects", [])):
            try:
                oid = int(o["id"])
                label = str(o["label"]).replace("_", " ")
            except (KeyError, TypeError, ValueError):
                raise _problem(path, f"objects[{n}]", "expected an id and a label") from None
            c = _vec(o.get("center"), 3, path, f"objects[{n}].center")
            if world_up == "y":
                c = tuple(_Y_UP_TO_Z_UP @ np.array(c))
            size = _vec(o["size"], 3, path, f"objects[{n}].size") if "size" in o else None
            self._objects[oid] = (label, c, size, tuple(str(a) for a in o.get("attributes", [])))
        frames = data.get("frames")
        if not isinstance(frames, list) or not frames:
            raise _problem(path, "frames", "expected a non-empty list of frames")
        self._frames: list[tuple[EgoPose, list[dict[str, Any]], str | None]] = []
        times: list[float] = []
        for n, f in enumerate(frames):
            try:
                t = float(f["t"])
                m = np.asarray(f["pose"], dtype=float)
            except (KeyError, TypeError, ValueError):
                raise _problem(path, f"frames[{n}]", "expected 't' and a 4×4 'pose'") from None
            if m.shape not in ((4, 4), (3, 4)) or not np.isfinite(m).all():
                raise _problem(path, f"frames[{n}].pose", "expected a finite 4×4 or 3×4 matrix")
            if times and t < times[-1]:
                raise _problem(path, f"frames[{n}].t", "expected frames in time order")
            vis = []
            for v in f.get("visible", []):
                vis.append({"id": int(v)} if not isinstance(v, dict) else dict(v))
                if vis[-1].get("id") not in self._objects:
                    raise _problem(
                        path,
                        f"frames[{n}].visible",
                        f"expected ids of listed objects, got {vis[-1].get('id')!r}",
                    )
            pose = pose_from_matrix(m, time=t, camera=camera, world_up=world_up)
            self._frames.append((pose, vis, f.get("scene")))
            times.append(t)
        self._times = times
        span = times[-1] - times[0]
        fps = (len(times) - 1) / span if span > 0 else 1.0
        super().__init__(fps, len(times))
        self.labels = sorted({o[0] for o in self._objects.values()})
        self.attributes = sorted({a for o in self._objects.values() for a in o[3]})
        # Noise names only what the stream has shown so far, never the file's whole list.
        self._vocabulary = PrefixVocabulary(
            (
                [self._objects[int(v["id"])][0] for v in vis],
                [a for v in vis for a in self._objects[int(v["id"])][3]],
            )
            for _, vis, _ in self._frames
        )
        self.noise = noise or NoiseModel()
        hfov = 2 * math.atan(self.intrinsics.width / 2 / self.intrinsics.fx)
        self._state = NoiseState(self.noise, key or str(source), hfov=hfov)

    @classmethod
    def load(cls, path: str | Path, *, noise: NoiseModel | None = None) -> CaptureGroundTruth:
        path = Path(path)
        if not path.is_file():
            raise _problem(path, "", "expected a 3D-annotation file (streamspatial-boxes3d)")
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise _problem(path, "", f"expected JSON ({e})") from None
        if not isinstance(data, dict):
            raise _problem(path, "", "expected a JSON object")
        return cls(data, source=path, noise=noise, key=path.name)

    # irregular timestamps: index → time from the file, not index / fps
    def time_of(self, index: int) -> float:
        return self._times[index]

    def pending(self, t: float) -> range:
        end = bisect.bisect_right(self._times, t + 1e-6)
        return range(self.last_index + 1, end)

    def _reset_state(self) -> None:
        self._state.reset()

    def _observe(self, index: int, time: float, image: np.ndarray | None) -> Observation:
        pose, vis, scene = self._frames[index]
        dets = []
        for v in vis:
            label, c, size, attrs = self._objects[int(v["id"])]
            bbox = tuple(int(x) for x in v["bbox"]) if "bbox" in v else None
            depth = float(pose.to_camera(np.array(c))[2])
            dets.append(
                Detection(
                    label=label,
                    position=(c[0], c[1], c[2]),
                    track_id=int(v["id"]),
                    attributes=attrs,
                    bbox=bbox,  # type: ignore[arg-type]
                    visibility=float(v.get("pixels", 0)),
                    depth=depth,
                    size=size,
                )
            )  # type: ignore[arg-type]
        obs = Observation(
            index=index,
            time=time,
            pose=pose,
            detections=tuple(dets),
            scene=str(scene) if scene is not None else None,
        )
        return self._state.apply(obs, *self._vocabulary.at(index))
