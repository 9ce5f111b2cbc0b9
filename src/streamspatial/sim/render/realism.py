"""Six per-frame figures that tell footage with real-world detail from a flat box world.

Measured the same way on any video (ours after H.264 encoding, real clips as published):
``frames`` frames spread evenly over the video, each resized to ``width`` pixels wide, then

* ``distinct``: distinct colours with 5 bits a channel;
* ``entropy``: Shannon entropy (bits) of that 15-bit colour histogram;
* ``top_share``: share of the pixels holding the most common 15-bit colour;
* ``laplacian``: variance of the grey image's Laplacian (fine detail);
* ``edges``: share of Canny edge pixels (thresholds 100/200);
* ``texture``: mean 7×7 standard deviation of grey, at pixels with no edge within 3 px
  (texture on surfaces, not the contrast of their outlines).

Each is the mean over the frames.  ``benchmarks/footage_realism.py`` holds generated
footage against two real indoor clips with them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

FIGURES = ("distinct", "entropy", "top_share", "laplacian", "edges", "texture")
LABELS = {
    "distinct": "distinct colours (5 bits a channel)",
    "entropy": "colour entropy (bits)",
    "top_share": "share of the most common colour",
    "laplacian": "variance of the Laplacian (fine detail)",
    "edges": "edge pixels (Canny)",
    "texture": "local contrast away from edges (7×7 std)",
}


@dataclass(frozen=True)
class Figures:
    distinct: float
    entropy: float
    top_share: float
    laplacian: float
    edges: float
    texture: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def frame_figures(rgb: np.ndarray) -> Figures:
    """The six figures of one (H, W, 3) uint8 frame."""
    import cv2

    q = (rgb >> 3).astype(np.int32)
    code = (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]
    counts = np.bincount(code.ravel(), minlength=1 << 15)
    counts = counts[counts > 0]
    p = counts / counts.sum()
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    lap = cv2.Laplacian(grey, cv2.CV_64F)
    edges = cv2.Canny(grey, 100, 200) > 0
    g = grey.astype(np.float64)
    mean = cv2.blur(g, (7, 7))
    sq = cv2.blur(g * g, (7, 7))
    std = np.sqrt(np.clip(sq - mean * mean, 0, None))
    near_edge = cv2.dilate(edges.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    away = ~near_edge
    return Figures(
        distinct=float(len(counts)),
        entropy=float(-(p * np.log2(p)).sum()),
        top_share=float(p.max()),
        laplacian=float(lap.var()),
        edges=float(edges.mean()),
        texture=float(std[away].mean()) if away.any() else 0.0,
    )


def video_frames(path: str | Path, frames: int = 40, width: int = 320) -> list[np.ndarray]:
    """``frames`` frames spread evenly over a video, resized to ``width`` pixels wide."""
    import av
    import cv2

    with av.open(str(path)) as c:
        all_frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    if not all_frames:
        raise ValueError(f"{path}: no video frames")
    idx = np.linspace(0, len(all_frames) - 1, min(frames, len(all_frames))).round().astype(int)
    out = []
    for i in idx:
        f = all_frames[i]
        h, w = f.shape[:2]
        if w != width:
            f = cv2.resize(f, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        out.append(f)
    return out


def mean_figures(frames: list[np.ndarray]) -> Figures:
    per = [frame_figures(f).as_dict() for f in frames]
    return Figures(**{k: float(np.mean([d[k] for d in per])) for k in FIGURES})


def video_figures(path: str | Path, frames: int = 40, width: int = 320) -> Figures:
    return mean_figures(video_frames(path, frames, width))


def meets(generated: Figures, real: Figures) -> dict[str, bool]:
    """Per figure: at least half the real figure (the most common colour: at most twice)."""
    g, r = generated.as_dict(), real.as_dict()
    return {k: (g[k] <= 2 * r[k]) if k == "top_share" else (g[k] >= 0.5 * r[k]) for k in FIGURES}
