"""Generation at scale: stage times in the manifest, groups of walks asked apart, worker
processes and render processes that change no byte, and how many processes a machine gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generate_fixtures import files_of, tiny
from streamspatial.cli import main
from streamspatial.sim.generate import generate_benchmark
from streamspatial.sim.pipeline import executors
from streamspatial.sim.pipeline.jobs import GROUP_WALKS, groups_of
from streamspatial.sim.pipeline.stages import STAGES
from streamspatial.sim.render import gpu

pytest.importorskip("mujoco")


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    return generate_benchmark(tiny(tmp_path_factory.mktemp("here")))


def test_manifest_has_wall_and_cpu_per_stage(here):
    stages = json.loads((here.out / "manifest.json").read_text())["stages"]
    assert set(stages) == {*STAGES, "elapsed_s"}
    for name in STAGES:
        assert set(stages[name]) == {"wall_s", "cpu_s"}
        assert stages[name]["wall_s"] >= 0 and stages[name]["cpu_s"] >= 0
    for name in ("plan", "render", "ask"):  # the stages that did work here
        assert stages[name]["wall_s"] > 0 and stages[name]["cpu_s"] > 0
    assert stages == here.stages
    # the render processes' CPU is counted: drawing the frames happens in a child
    assert stages["render"]["cpu_s"] > 0


def test_the_same_seed_gives_the_same_bytes_in_another_process(here, tmp_path):
    """Every file, videos included, of a second generation of the seed in a fresh process
    whose heap memory glibc fills with other bytes (MALLOC_PERTURB_: what memory nobody wrote
    holds differs from run to run), byte for byte; the manifest apart from out and stage
    times."""
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]);"
        "from generate_fixtures import tiny;"
        "from streamspatial.sim.generate import generate_benchmark;"
        "generate_benchmark(tiny(Path(sys.argv[1])))"
    )
    again = tmp_path / "again"
    env = {**os.environ, "MALLOC_PERTURB_": "85"}
    tests = str(Path(__file__).parents[1])
    subprocess.run([sys.executable, "-c", script, str(again), tests], env=env, check=True)
    theirs, ours = files_of(again), files_of(here.out)
    assert sorted(theirs) == sorted(ours)
    assert [name for name in ours if theirs[name] != ours[name]] == []
    assert any(name.endswith(".mp4") for name in ours)


def test_worker_processes_and_spread_frames_change_no_byte(here, tmp_path, monkeypatch):
    """Two worker processes, and each walk's frames spread over two render processes (as on
    a GPU machine), write the very files one process writes."""
    monkeypatch.setattr(executors, "process_plan", lambda cfg, walks, frames: (2, 2))
    pooled = generate_benchmark(tiny(tmp_path / "pool", workers=2))
    assert files_of(pooled.out) == files_of(here.out)


def test_groups_split_jobs_evenly_in_order():
    jobs = [("walk", i) for i in range(2 * GROUP_WALKS + 3)]
    groups = groups_of(jobs)
    assert len(groups) == 3
    assert [j for g in groups for j in g.jobs] == jobs
    sizes = [len(g.jobs) for g in groups]
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= GROUP_WALKS
    assert [g.index for g in groups] == [0, 1, 2]
    # up to sixteen walks are asked together, the spin probe with them
    probe = [*jobs[:GROUP_WALKS], ("spin", 0)]
    assert groups_of(probe) == [type(groups[0])(0, tuple(probe))]
    # more: the probe goes with its house's walk, last
    spun = groups_of([*jobs, ("spin", 2 * GROUP_WALKS + 1)])
    assert spun[2].jobs[-1] == ("spin", 2 * GROUP_WALKS + 1)
    assert ("walk", 2 * GROUP_WALKS + 1) in spun[2].jobs
    assert [len(g.jobs) for g in spun] == [*sizes[:2], sizes[2] + 1]


def test_groups_are_asked_on_their_own_and_pooled_alike(tmp_path, monkeypatch):
    """With one walk a group, each walk is asked by its own generator (its own letter and
    order streams): the same files whether the groups are asked here or in workers."""
    import streamspatial.sim.pipeline.jobs as jobs

    monkeypatch.setattr(jobs, "GROUP_WALKS", 1)
    one = generate_benchmark(tiny(tmp_path / "one"))
    monkeypatch.setattr(executors, "process_plan", lambda cfg, walks, frames: (2, 1))
    two = generate_benchmark(tiny(tmp_path / "two", workers=2))
    assert files_of(one.out) == files_of(two.out)
    assert len(one.episodes) == 2


def test_gpu_devices_are_the_devices_not_marked_software(monkeypatch):
    assert gpu.hardware(["EGL_MESA_device_software EGL_EXT_device_drm_render_node"]) == ()
    nvidia = "EGL_NV_device_cuda EGL_EXT_device_drm EGL_EXT_device_persistent_id"
    assert gpu.hardware([nvidia, "EGL_MESA_device_software", nvidia]) == (0, 2)
    # this machine, as EGL sees it (no GPU in the project's test machines: nothing found)
    gpu.gpu_devices.cache_clear()
    monkeypatch.setenv("MUJOCO_GL", "osmesa")
    assert gpu.gpu_devices() == ()  # OSMesa never uses a GPU
    gpu.gpu_devices.cache_clear()


@pytest.mark.parametrize("devices", [(), (0,)])
def test_one_rendering_process_per_core_only_where_there_is_a_gpu(monkeypatch, devices, tmp_path):
    monkeypatch.setattr(gpu, "gpu_devices", lambda: devices)
    monkeypatch.setattr(executors.os, "cpu_count", lambda: 16)
    cfg = tiny(tmp_path)
    small, big = 2 * 60, executors.PARALLEL_FROM_FRAMES
    if not devices:  # as before: one worker per core from enough video, else this process
        assert executors.process_plan(cfg, 2, small) == (1, 1)
        assert executors.process_plan(cfg, 2, big) == (2, 1)
        assert executors.process_plan(cfg, 40, big) == (16, 1)
        assert executors.process_plan(tiny(tmp_path, workers=3), 40, small) == (3, 1)
    else:  # every core renders, however few the walks
        assert executors.process_plan(cfg, 2, small) == (2, 8)
        assert executors.process_plan(cfg, 40, big) == (16, 1)
        assert executors.process_plan(tiny(tmp_path, workers=4), 40, small) == (4, 4)


@pytest.mark.parametrize(
    "args, words",
    [
        (["--executor", "spark"], "--executor must be local or ray"),
        (["--address", "auto"], "--address needs --executor ray"),
    ],
)
def test_bad_executor_options_are_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as exc:
        main(["sim", "generate", "--out", str(tmp_path / "x"), *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert not (tmp_path / "x").exists()


def test_no_progress_prints_no_bars_and_a_stage_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sim", "generate", "--out", str(tmp_path / "g"), "--houses", "1", "--minutes",
              "0.1", "--size", "64x48", "--fps", "5", "--rooms", "3", "--no-prune",
              "--no-progress"])  # fmt: skip
    assert exc.value.code == 0
    captured = capsys.readouterr()
    assert "frames" not in captured.err and "━" not in captured.err
    assert "time per stage, wall (CPU) s: plan " in captured.out
