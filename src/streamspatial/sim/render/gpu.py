"""Whether EGL finds a GPU on this machine: the devices headless rendering can use.

Generation renders through EGL (``MUJOCO_GL=egl``).  Where EGL's only device is Mesa's
software rasteriser (llvmpipe), a frame already spreads over every core, and one render
process per walk is right; where it finds a hardware device, one process keeps the GPU far
from busy, and one render process per core pays (S3-scale generation on a GPU node).

The question is asked the way MuJoCo picks its EGL device: ``eglQueryDevicesEXT`` lists the
devices, and each device's ``EGL_EXTENSIONS`` string says what it is — Mesa marks its software
device ``EGL_MESA_device_software``; a GPU's has no such mark (NVIDIA's carries
``EGL_NV_device_cuda``, Mesa's hardware drivers ``EGL_EXT_device_drm``).  It is asked in a child
interpreter, as every frame is drawn in one (:mod:`.process` says why: a GL driver mapped into
this process breaks a later ``import triton``), once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache

SOFTWARE_MARK = "EGL_MESA_device_software"
QUERY_TIMEOUT_S = 60.0


def hardware(extensions: list[str]) -> tuple[int, ...]:
    """Indexes (EGL device order, as ``MUJOCO_EGL_DEVICE_ID`` counts) of the devices whose
    extension strings do not mark them as software."""
    return tuple(i for i, ext in enumerate(extensions) if SOFTWARE_MARK not in ext.split())


@lru_cache(maxsize=1)
def gpu_devices() -> tuple[int, ...]:
    """The EGL devices of this machine that are GPUs (empty: software rendering only, EGL
    unavailable, or ``MUJOCO_GL`` set to something other than ``egl``)."""
    if os.environ.get("MUJOCO_GL", "egl") != "egl":
        return ()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "streamspatial.sim.render.gpu"],
            capture_output=True,
            text=True,
            timeout=QUERY_TIMEOUT_S,
        )
        if done.returncode != 0:
            return ()
        extensions = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return ()
    return hardware([str(e) for e in extensions])


def _query() -> list[str]:
    """Each EGL device's extension string (in this process: the child's job)."""
    import ctypes

    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    from mujoco.egl import egl_ext
    from OpenGL import EGL

    query = ctypes.CFUNCTYPE(ctypes.c_char_p, EGL.EGLDeviceEXT, EGL.EGLint)(
        EGL.eglGetProcAddress("eglQueryDeviceStringEXT")
    )
    return [
        (query(device, EGL.EGL_EXTENSIONS) or b"").decode("ascii", "replace")
        for device in egl_ext.eglQueryDevicesEXT()
    ]


if __name__ == "__main__":
    print(json.dumps(_query()))
