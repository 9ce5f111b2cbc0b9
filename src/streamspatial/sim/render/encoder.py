"""The simulator's H.264 writer: the same frames give the same mp4 bytes, run after run.

A benchmark's hash is how two labs check that they hold the same data, so every setting that
could make the bytes depend on the machine or on timing is fixed here, each with its reason:

* **One encoder thread.** x264's output depends on its thread count, and "auto" is 1.5× the
  cores (x264's ``X264_THREADS_AUTO``): a 16-core Ray node and a 2-core laptop would encode
  the same frames differently.
* **x264's SSE2 code, on x86-64** (``asm`` = its ``X264_CPU_MMX|MMX2|SSE|SSE2`` flags, which
  every x86-64 CPU has). With the CPU's own best level, the bytes depended on the CPU and, on
  AVX-512 CPUs, on the heap: the AVX-512 code path reads memory nobody wrote. Measured with
  PyAV 18.1's x264 (core 165): the same frames, encoded by one thread 40 times in a row, gave
  up to 12 different files, and glibc's ``MALLOC_PERTURB_`` (which only changes what fresh
  heap memory holds) changed the file; with AVX-512 off, every run and every
  ``MALLOC_PERTURB_`` gave one file. SSSE3 to AVX2 give one file too, but another than
  SSE2's; SSE2's is the one x264's plain C code writes, which is what other architectures run
  (``asm=0``), so the bytes do not depend on the x86 CPU at all.
* **Bit-exact colour conversion.** RGB is turned into 4:2:0 YUV by swscale with
  ``SWS_ACCURATE_RND | SWS_BITEXACT`` on one thread: its default fast path is hand-written
  SIMD whose chroma differs by one level from the C code, so it would vary with the CPU.
* **No library version in the container** (``fflags +bitexact``: the mp4 carries no "Lavf…"
  string). x264 still writes its own version and options into the stream, which is honest:
  another x264 release may choose other bits.

:data:`SETTINGS` is the rest of the encoding (quality, speed, keyframe spacing), unchanged:
CRF 23 at preset ``veryfast``, a keyframe every 2 s. What this costs is measured by
``benchmarks/render_speed.py`` (encoding figure) against the encoder's own defaults.
"""

from __future__ import annotations

import platform
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from streamspatial.core.errors import InputError

CODEC = "libx264"
PIXEL_FORMAT = "yuv420p"
CRF = 23  # H.264's visually good default; house textures are drawn to survive it
PRESET = "veryfast"
KEYFRAME_SECONDS = 2  # a keyframe every 2 s: seeking to a prefix decodes at most 2 s
THREADS = 1
# x264.h: X264_CPU_MMX (1<<0), X264_CPU_MMX2 (1<<1), X264_CPU_SSE (1<<2), X264_CPU_SSE2 (1<<3)
X264_SSE2 = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3)
# libswscale/swscale.h: SWS_BILINEAR, SWS_ACCURATE_RND, SWS_BITEXACT
SWS_FLAGS = 0x2 | 0x40000 | 0x80000
CONTAINER_OPTIONS = {"fflags": "+bitexact"}


def x264_asm() -> int:
    """x264's CPU flags: SSE2 on x86-64 (its output is plain C's), none elsewhere (plain C)."""
    return X264_SSE2 if platform.machine().lower() in ("x86_64", "amd64") else 0


def codec_options(fps: float, crf: int = CRF) -> dict[str, str]:
    """The libx264 options of a video at ``fps`` (see the module for each)."""
    return {
        "crf": str(crf),
        "preset": PRESET,
        "g": str(max(1, int(fps) * KEYFRAME_SECONDS)),
        "threads": str(THREADS),
        "x264-params": f"asm={x264_asm()}",
    }


class VideoWriter:
    """H.264 (yuv420p) mp4 writer over PyAV; frames must all have the writer's size.

    The same frames give the same bytes on any machine with the same PyAV build (module
    docstring)."""

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float, crf: int = CRF):
        width, height = size
        if width % 2 or height % 2:
            raise InputError(f"video size must be even for H.264, got {width}x{height}")
        self.path = Path(path)
        self.size = (width, height)
        self._container = av.open(str(self.path), mode="w", options=CONTAINER_OPTIONS)
        rate = Fraction(fps).limit_denominator(1001)
        self._stream = self._container.add_stream(CODEC, rate=rate)
        self._stream.width = width
        self._stream.height = height
        self._stream.pix_fmt = PIXEL_FORMAT
        self._stream.codec_context.thread_count = THREADS
        self._stream.options = codec_options(fps, crf)
        self.frames = 0

    def write(self, rgb: np.ndarray) -> None:
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
        frame = frame.reformat(format=PIXEL_FORMAT, interpolation=SWS_FLAGS, threads=THREADS)
        frame.pts = self.frames
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def encoder_identity() -> dict[str, str | int]:
    """What made the bytes, for a manifest: the same settings give the same bytes only with
    the same libraries (x264 writes its version into every stream, PyAV bundles its own)."""
    return {
        "codec": CODEC,
        "crf": CRF,
        "preset": PRESET,
        "threads": THREADS,
        "pyav": av.__version__,
        "libavcodec": ".".join(map(str, av.library_versions["libavcodec"])),
    }
