"""What a real camera adds to a rendered frame: vignetting, sharpening and sensor noise.

Rendered pixels are too clean: a wall of one paint is the same value corner to corner, which
no phone or headset camera records.  The video of a textured house goes through this small
camera model before encoding — light falls off towards the corners (``VIGNETTE`` at the very
corner, quadratically in the distance from the centre), the image is sharpened as a camera's
image processor does (an unsharp mask of ``SHARPEN`` over a 3×3 binomial blur), and every
frame gets fresh sensor noise (``NOISE`` grey levels, seeded by episode and frame, so a video
is still a pure function of its seed).  Ground truth (depth, ids, visibility) and the
colours questions use are taken from the clean render, never from these pixels.
"""

from __future__ import annotations

import numpy as np

VIGNETTE = 0.22  # share of the light lost at the image corners
SHARPEN = 0.5  # unsharp-mask amount
NOISE = 2.0  # standard deviation of the sensor noise, in 8-bit grey levels


class CameraLook:
    def __init__(self, size: tuple[int, int], seed: int):
        w, h = size
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((x - (w - 1) / 2) / (w / 2)) ** 2 + ((y - (h - 1) / 2) / (h / 2)) ** 2
        self._gain = (1.0 - VIGNETTE * r2 / 2.0)[..., None].astype(np.float32)
        self._seed = seed

    def apply(self, rgb: np.ndarray, index: int) -> np.ndarray:
        rng = np.random.default_rng([self._seed, index])
        noise = rng.normal(0.0, NOISE, size=(*rgb.shape[:2], 1)).astype(np.float32)
        img = rgb.astype(np.float32)
        blur = img.copy()
        blur[1:-1] = (img[:-2] + 2 * img[1:-1] + img[2:]) / 4
        blur[:, 1:-1] = (blur[:, :-2] + 2 * blur[:, 1:-1] + blur[:, 2:]) / 4
        img += SHARPEN * (img - blur)
        out = img * self._gain + noise
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)
