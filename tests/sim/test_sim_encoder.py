"""The simulator's H.264 writer gives the same bytes for the same frames: in another process,
with other heap contents (glibc's MALLOC_PERTURB_), and whichever x86 code x264 would pick."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import av
import numpy as np

from streamspatial.sim.render import encoder
from streamspatial.sim.render.encoder import VideoWriter

SIZE = (96, 72)  # not a multiple of 16 high, as small test videos are
FPS = 10.0  # a keyframe every 20 frames

# Run as a script: write the frames below into argv[1] (the same frames in every process).
SCRIPT = """
import sys
import numpy as np
sys.path[:0] = {path!r}
from test_sim_encoder import frames
from streamspatial.sim.render.encoder import VideoWriter
with VideoWriter(sys.argv[1], {size!r}, {fps!r}) as w:
    for f in frames():
        w.write(f)
"""


def frames(n: int = 50) -> list[np.ndarray]:
    """Noise panning sideways: every macroblock moves, so B-frames and the lookahead work."""
    rng = np.random.default_rng(0)
    w, h = SIZE
    base = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    return [np.roll(base, 3 * i, axis=1) for i in range(n)]


def write(path: Path) -> bytes:
    with VideoWriter(path, SIZE, FPS) as w:
        for f in frames():
            w.write(f)
    return path.read_bytes()


def test_the_same_frames_give_the_same_bytes_with_any_heap(tmp_path):
    """With x264's own choice of CPU code (AVX-512 here), these frames gave one file with
    fresh heap memory as the kernel hands it and another when glibc fills it
    (MALLOC_PERTURB_): that code reads memory nobody wrote. Now three processes, two of them
    with their heap filled with other bytes, and this one, twice, write one file."""
    here = write(tmp_path / "here.mp4")
    assert write(tmp_path / "again.mp4") == here
    path = [str(Path(__file__).parents[1]), *sys.path]
    script = SCRIPT.format(path=path, size=SIZE, fps=FPS)
    hashes = set()
    for perturb in ("", "85", "170"):
        env = {**os.environ, "MALLOC_PERTURB_": perturb}
        target = tmp_path / f"perturb-{perturb or 'off'}.mp4"
        subprocess.run([sys.executable, "-c", script, str(target)], env=env, check=True)
        hashes.add(hashlib.sha256(target.read_bytes()).hexdigest())
    assert hashes == {hashlib.sha256(here).hexdigest()}


def test_the_bytes_are_x264s_plain_c_ones(tmp_path, monkeypatch):
    """SSE2, which every x86-64 CPU has, writes what x264's C code writes (what a machine
    without x86 code runs), so the CPU does not choose the bytes."""
    here = write(tmp_path / "sse2.mp4")
    monkeypatch.setattr(encoder, "x264_asm", lambda: 0)
    assert write(tmp_path / "c.mp4") == here


def test_one_thread_fixed_settings_and_no_library_string(tmp_path):
    data = write(tmp_path / "a.mp4")
    sei = re.search(rb"options: ([^\x00]*)", data)
    assert sei is not None
    options = dict(kv.split("=", 1) for kv in sei.group(1).decode().split())
    assert options["threads"] == "1" and options["lookahead_threads"] == "1"
    assert options["crf"] == "23.0" and options["keyint"] == str(int(FPS) * 2)
    assert b"Lavf" not in data  # fflags +bitexact: no muxer version in the container
    with av.open(str(tmp_path / "a.mp4")) as c:
        decoded = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(decoded) == 50 and decoded[0].shape == (SIZE[1], SIZE[0], 3)
    # lossy, but the picture is the one written: its colours on average
    mean = decoded[0].reshape(-1, 3).mean(axis=0)
    assert np.abs(mean - frames()[0].reshape(-1, 3).mean(axis=0)).max() < 4
