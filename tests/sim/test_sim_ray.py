"""``sim generate --executor ray`` on a local Ray instance: the same bytes as a local run, and
``--resume`` renders on the cluster only what ``--out`` lacks.

Ray starts once for the module (``ray.init(num_cpus=2)``, a few seconds) and each generation
starts its actors; the walks are two of a few seconds at 96×72.
"""

from __future__ import annotations

import pytest

from generate_fixtures import files_of, tiny
from streamspatial.sim.generate import generate_benchmark

ray = pytest.importorskip("ray")
pytest.importorskip("mujoco")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


def test_ray_generation_has_the_bytes_of_a_local_one_and_resumes(local_ray, tmp_path):
    here = generate_benchmark(tiny(tmp_path / "here"))
    there = generate_benchmark(tiny(tmp_path / "ray", executor="ray"))
    assert files_of(there.out) == files_of(here.out)
    assert there.stages["render"]["cpu_s"] > 0 and there.stages["ask"]["cpu_s"] > 0
    # interrupted while one walk was written: --resume sends only that walk to the cluster
    frames_dir = there.videos / "streamspatial-sim"
    lost = sorted(frames_dir.glob("*-walk.mp4"))[0]
    kept = sorted(frames_dir.glob("*-walk.mp4"))[1]
    lost.with_name(lost.name + ".meta.json.gz").unlink()
    before = kept.stat().st_mtime_ns
    stages = []
    again = generate_benchmark(
        tiny(tmp_path / "ray", executor="ray", resume=True), lambda *a: stages.append(a)
    )
    assert kept.stat().st_mtime_ns == before
    assert [a for a in stages if a[0] == "plan"][-1] == ("plan", 1, 1)
    assert files_of(again.out) == files_of(here.out)
    assert not list(frames_dir.glob("*.part"))  # the driver's writes were completed
