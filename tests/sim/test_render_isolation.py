"""Rendering and torch in one process: the crash that must not come back.

Mesa's software GL driver brings its own LLVM into the process's global symbol scope when the
first GL context is made; triton's ``libtriton.so`` (imported lazily by CUDA builds of torch)
then binds its LLVM symbols to Mesa's copy and segfaults while loading.  The project renders in
a child process (:mod:`streamspatial.sim.render.process`), so the process that renders a
benchmark and then imports torch never maps a GL driver.  These tests run in a fresh
interpreter each (a crash is an exit status, not a dead test session):

- the user's path — render an episode, then import torch (and triton where installed) — exits
  0 and the process has no GL driver or LLVM mapped;
- the check is not vacuous: rendering in-process does map Mesa's LLVM on a machine whose GL is
  Mesa (skipped on a machine with a hardware EGL driver).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("mujoco")

# Shared objects that a GL context brings into a process: Mesa's drivers and their LLVM.
# (libEGL_mesa, the EGL vendor library, is loaded by ``import mujoco`` alone and is harmless.)
GL_DRIVER_MARKERS = ("libLLVM", "swrast_dri", "libgallium", "libOSMesa", "_dri.so")

MAPPED = f"MARKERS = {GL_DRIVER_MARKERS!r}\n" + textwrap.dedent(
    """
    def gl_driver_libraries():
        names = set()
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if any(m in path for m in MARKERS):
                    names.add(path.rsplit("/", 1)[-1])
        return sorted(names)
    """
)

RENDER_THEN_IMPORT = MAPPED + textwrap.dedent(
    """
    import importlib.util, sys, tempfile
    from streamspatial.sim.render.episode import render_episode
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.walk.nav import plan_trajectory

    house = generate_house(3)
    walk = plan_trajectory(house, duration=2.0, fps=5, seed=0)
    with tempfile.TemporaryDirectory() as d:
        paths = render_episode(house, walk, d, (64, 48), name="walk")
        assert paths.video.stat().st_size > 0
    print("after rendering:", gl_driver_libraries(), flush=True)
    assert gl_driver_libraries() == [], gl_driver_libraries()
    for name in ("torch", "triton"):
        if importlib.util.find_spec(name) is not None:
            __import__(name)
            print("imported", name, flush=True)
    print("OK")
    """
)

IN_PROCESS = MAPPED + textwrap.dedent(
    """
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.walk.nav import plan_trajectory
    from streamspatial.sim.render.renderer import HouseRenderer

    house = generate_house(3)
    pose = plan_trajectory(house, duration=1.0, fps=2, seed=0).poses[0]
    with HouseRenderer(house, (64, 48)) as r:
        r.render(pose)
    print("MAPPED", ",".join(gl_driver_libraries()))
    """
)


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)


def test_render_then_import_torch_in_one_process():
    proc = _python(RENDER_THEN_IMPORT)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert proc.stdout.strip().endswith("OK")
    if importlib.util.find_spec("torch") is not None:
        assert "imported torch" in proc.stdout


def test_rendering_in_process_would_map_the_gl_driver():
    """The marker check above sees Mesa's LLVM when GL runs in the test's own process."""
    proc = _python(IN_PROCESS)
    assert proc.returncode == 0, proc.stderr[-2000:]
    mapped = proc.stdout.strip().rsplit("MAPPED ", 1)[-1].split(",")
    if not any("libLLVM" in m or "swrast" in m or "gallium" in m for m in mapped):
        pytest.skip(f"this machine's GL is not Mesa's software driver (mapped: {mapped})")
    assert any(m.startswith("libLLVM") for m in mapped), mapped
