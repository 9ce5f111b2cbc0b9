"""Weight-free ego-motion from raw frames: which way the camera turned, and whether it moved
forward or backward.

Ego-motion questions (OVO-S L1 translation/rotation, S3 camera displacement) ask exactly these
two things, and two-view geometry answers them without any learned weights: track corners with
pyramidal Lucas–Kanade, fit an essential matrix with RANSAC and decompose it into a rotation and
a unit translation.  Pure rotation is the degenerate case for the translation: after removing
the rotation (the infinite homography ``K R K⁻¹``), if the tracks barely move there was no
translation to measure, and we say so instead of reporting RANSAC noise.

Conventions: yaw is positive for a turn to the *left* (counter-clockwise seen from above, the
simulator's convention); ``forward`` is +1 / −1 for translation along / against the optical
axis, 0 when there was none or it was mostly sideways.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from streamspatial.core.geometry import wrap_pi
from streamspatial.perception.stream import PerceptionProvider
from streamspatial.perception.types import CameraIntrinsics, EgoPose, Observation


def _cv2():  # imported lazily: OpenCV is the [cv] extra
    try:
        import cv2
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        from streamspatial.core.errors import StreamspatialError

        raise StreamspatialError(
            "classical perception needs OpenCV: pip install 'streamspatial[cv]'"
        ) from e
    return cv2


@dataclass(frozen=True)
class EgoMotion:
    """Camera motion between two frames, in the first frame's camera axes."""

    time: float  # of the second frame
    yaw: float  # rad, + = turned left
    pitch: float  # rad, + = tilted up
    forward: int  # +1 ahead, −1 back, 0 none / sideways
    translation: tuple[float, float, float]  # unit direction (x right, y down, z ahead); 0 if none
    parallax: float  # median residual track motion after removing the rotation (pixels)
    tracks: int  # inlier tracks the estimate rests on
    ok: bool


class EgoMotionEstimator:
    """Two-view ego-motion over a stream of frames (call :meth:`update` in time order)."""

    def __init__(
        self,
        intrinsics: CameraIntrinsics | None = None,
        *,
        hfov_deg: float = 60.0,
        max_corners: int = 500,
        min_parallax_px: float = 1.0,
        min_forward: float = 0.5,
        min_axial: float = 0.64,
        max_sideways: float = 0.34,
    ):
        self.intrinsics = intrinsics
        self.hfov_deg = hfov_deg
        self.max_corners = max_corners
        self.min_parallax_px = min_parallax_px
        self.min_forward = min_forward
        self.min_axial = min_axial  # |t_z| of a unit translation: within ~50° of the axis
        self.max_sideways = max_sideways  # |t_z| below this (> ~70° off the axis): sideways
        self._prev: np.ndarray | None = None

    def reset(self) -> None:
        self._prev = None

    def _gray(self, image: np.ndarray) -> np.ndarray:
        cv2 = _cv2()
        if image.ndim == 2:
            return image
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY)

    def update(self, image: np.ndarray, time: float) -> EgoMotion | None:
        """Motion since the previous frame (None for the first frame)."""
        gray = self._gray(image)
        prev, self._prev = self._prev, gray
        if prev is None:
            return None
        return self.estimate(prev, gray, time)

    def estimate(self, a: np.ndarray, b: np.ndarray, time: float = 0.0) -> EgoMotion:
        cv2 = _cv2()
        a, b = self._gray(a), self._gray(b)
        h, w = a.shape[:2]
        k = self.intrinsics or CameraIntrinsics.from_hfov(w, h, self.hfov_deg)
        kmat = k.matrix()
        fail = EgoMotion(time, 0.0, 0.0, 0, (0.0, 0.0, 0.0), 0.0, 0, False)
        p0 = cv2.goodFeaturesToTrack(a, self.max_corners, 0.01, 6, blockSize=5)
        if p0 is None or len(p0) < 12:
            return fail
        p1, st, _ = cv2.calcOpticalFlowPyrLK(a, b, p0, None, winSize=(21, 21), maxLevel=3)
        back, st2, _ = cv2.calcOpticalFlowPyrLK(b, a, p1, None, winSize=(21, 21), maxLevel=3)
        good = (st[:, 0] == 1) & (st2[:, 0] == 1) & (np.linalg.norm(back - p0, axis=2)[:, 0] < 1.0)
        q0, q1 = p0[good, 0], p1[good, 0]
        if len(q0) < 12:
            return fail
        rot, inl = self._rotation(q0, q1, kmat)
        if rot is None:
            return fail
        # residual motion once the rotation is removed: zero for a pure rotation
        hinf = kmat @ rot @ np.linalg.inv(kmat)
        pred = cv2.perspectiveTransform(q0[None].astype(np.float64), hinf)[0]
        parallax = float(np.median(np.linalg.norm(q1 - pred, axis=1)))
        r_cam = rot.T  # camera-2 axes expressed in camera-1 axes
        f2 = r_cam[:, 2]
        yaw = math.atan2(-f2[0], f2[2])  # forward swinging to −x (left) is a left turn
        pitch = math.atan2(-f2[1], math.hypot(f2[0], f2[2]))
        direction = (0.0, 0.0, 0.0)
        forward = 0
        t = self._translation(q0, q1, kmat) if parallax >= self.min_parallax_px else None
        if t is not None:  # no trustworthy translation, no step
            direction = (float(t[0]), float(t[1]), float(t[2]))
            # Moving ahead makes the derotated flow expand away from the image centre, moving
            # back makes it contract, a sideways step makes it mostly parallel: the share of
            # the residual flow that is radial decides, which is far steadier than the sign
            # of t_z on short baselines.
            residual = q1 - pred
            radial = q0 - np.array([k.cx, k.cy])
            radial /= np.maximum(np.linalg.norm(radial, axis=1, keepdims=True), 1e-6)
            out = float(np.median(np.sum(residual * radial, axis=1)))
            if abs(direction[2]) < self.max_sideways:
                pass  # mostly sideways (or vertical): no forward/backward step to report
            elif abs(out) >= self.min_forward * float(np.median(np.linalg.norm(residual, axis=1))):
                forward = 1 if out > 0 else -1
            elif abs(direction[2]) >= self.min_axial:
                # Few, unevenly spread tracks (texture-poor rooms) leave the radial test
                # undecided; a translation mostly along the optical axis still is a step.
                forward = 1 if direction[2] > 0 else -1
        return EgoMotion(time, yaw, pitch, forward, direction, parallax, int(inl), True)

    def _rotation(
        self, q0: np.ndarray, q1: np.ndarray, kmat: np.ndarray
    ) -> tuple[np.ndarray | None, int]:
        """Rotation from the essential matrix; from the homography when parallax is tiny
        (pure rotation makes E degenerate but a homography fits exactly)."""
        cv2 = _cv2()
        hmat, hmask = cv2.findHomography(q0, q1, cv2.RANSAC, 1.0)
        emat, emask = cv2.findEssentialMat(q0, q1, kmat, cv2.RANSAC, 0.999, 1.0)
        h_in = int(hmask.sum()) if hmask is not None else 0
        e_in = int(emask.sum()) if emask is not None else 0
        if hmat is not None and h_in >= 0.9 * max(e_in, 1):
            # rotation-only: K⁻¹ H K is a rotation up to scale; project onto SO(3)
            m = np.linalg.inv(kmat) @ hmat @ kmat
            u, _, vt = np.linalg.svd(m)
            r = u @ vt
            if np.linalg.det(r) < 0:
                r = -r
            residual = float(np.linalg.norm(m / np.cbrt(np.linalg.det(m)) - r))
            if residual < 0.05:
                return r, h_in
        if emat is None or emat.shape != (3, 3):
            return None, 0
        n, r, _t, _m = cv2.recoverPose(emat, q0, q1, kmat, mask=emask)
        return (r, int(n)) if n >= 8 else (None, 0)

    def _translation(self, q0: np.ndarray, q1: np.ndarray, kmat: np.ndarray) -> np.ndarray | None:
        cv2 = _cv2()
        emat, emask = cv2.findEssentialMat(q0, q1, kmat, cv2.RANSAC, 0.999, 1.0)
        if emat is None or emat.shape != (3, 3):
            return None
        n, r, t, _m = cv2.recoverPose(emat, q0, q1, kmat, mask=emask)
        if n < 8:
            return None
        c = -(r.T @ t[:, 0])  # camera-2 centre in camera-1 axes
        norm = float(np.linalg.norm(c))
        return c / norm if norm > 0 else None


class ClassicalEgoMotion(PerceptionProvider):
    """A provider that dead-reckons a scale-free pose from pixels; it detects no objects.

    Position advances ``step`` (default one unit) per frame of detected forward/backward
    motion (monocular two-view geometry has no metric scale; a caller that knows the walking
    pace passes metres per frame), heading integrates the estimated yaw.  The
    per-frame :class:`EgoMotion` is in ``Observation.extra["motion"]``.
    """

    name = "classical"
    needs_images = True

    def __init__(
        self,
        fps: float,
        n_frames: int = 0,
        *,
        intrinsics: CameraIntrinsics | None = None,
        step: float = 1.0,
    ):
        super().__init__(fps, n_frames)
        self.estimator = EgoMotionEstimator(intrinsics)
        self.step = step  # length of one detected step (1: scale-free units)
        self._reset_state()

    def _reset_state(self) -> None:
        self.estimator.reset()
        self._yaw = 0.0
        self._xy = (0.0, 0.0)
        self.last_motion: EgoMotion | None = None

    def _observe(self, index: int, time: float, image: np.ndarray | None) -> Observation:
        assert image is not None
        motion = self.estimator.update(image, time)
        self.last_motion = motion
        if motion is not None and motion.ok:
            self._yaw = wrap_pi(self._yaw + motion.yaw)
            if motion.forward:
                self._xy = (
                    self._xy[0] + self.step * motion.forward * math.cos(self._yaw),
                    self._xy[1] + self.step * motion.forward * math.sin(self._yaw),
                )
        pose = EgoPose(time, (self._xy[0], self._xy[1], 0.0), self._yaw)
        return Observation(index=index, time=time, pose=pose, extra={"motion": motion})
