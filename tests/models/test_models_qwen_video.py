"""The Qwen-VL family's video path through the real processors: the frames' true times reach
the model (Qwen3-VL's timestamps, Qwen2.5-VL's ``second_per_grid_ts``).

Qwen-VL processors need torchvision, which the suite's CPU torch has no build of; these tests
run ``tests/tiny_qwen_check.py`` with the interpreter of the environment that
``STREAMSPATIAL_TORCHVISION_ENV`` names (a venv with ``pip install torch==2.14.1
torchvision==0.29.1`` and this project's ``[hf]`` extra; ``.ci/run`` builds one), and skip with
that reason where it is not set.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tiny_qwen_check import FPS, INDICES

ROOT = Path(__file__).resolve().parents[2]
ENV = os.environ.get("STREAMSPATIAL_TORCHVISION_ENV")

pytestmark = pytest.mark.skipif(
    not ENV,
    reason="STREAMSPATIAL_TORCHVISION_ENV is not set: the tiny Qwen2.5-VL / Qwen3-VL tests run "
    "in a venv with torch 2.14.1 + torchvision 0.29.1 and streamspatial[hf] (.ci/run builds "
    "one; README, Installing)",
)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory) -> dict:
    python = Path(str(ENV)) / "bin" / "python"
    assert python.exists(), f"STREAMSPATIAL_TORCHVISION_ENV={ENV}: no {python}"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT / 'tests'}"}
    env["HF_HUB_OFFLINE"] = "1"
    script = ROOT / "tests" / "tiny_qwen_check.py"
    done = subprocess.run(
        [str(python), str(script), str(tmp_path_factory.mktemp("q"))],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_qwen3_vl_writes_our_frame_times_before_each_temporal_patch(outcome):
    got = outcome["qwen3_vl"]
    times = [i / FPS for i in INDICES]
    # two frames per temporal patch, stamped with the mean of their times (to 0.1 s)
    want = [round((times[k] + times[k + 1]) / 2, 1) for k in range(0, len(times), 2)]
    assert got["stamps"] == want == [0.3, 1.5, 2.7]
    assert got["video_grid_thw"][0][0] == len(INDICES) // 2
    assert got["image_pads"] == 0 and got["video_pads"] > 0
    assert got["error"] is None and got["completion_tokens"] >= 1


def test_qwen2_5_vl_temporal_ids_follow_the_frames_spacing(outcome):
    got = outcome["qwen2_5_vl"]
    spacing = (INDICES[1] - INDICES[0]) / FPS  # 0.6 s between frames
    assert got["second_per_grid_ts"] == pytest.approx([2 * spacing], rel=1e-6)
    assert got["video_grid_thw"][0][0] == len(INDICES) // 2
    assert got["stamps"] == []  # Qwen2.5-VL reads time through its ids, not the text
    assert got["image_pads"] == 0 and got["video_pads"] > 0
    assert got["error"] is None and got["completion_tokens"] >= 1


def test_a_run_of_the_tiny_qwen2_5_vl_sends_video_by_its_config(outcome):
    got = outcome["run"]
    assert got["errors"] == 0 and got["records"] >= 3
    assert got["inputs"] == {"frames": "video", "frame_size": 64, "max_pixels": None,
                             "recipe": "qwen2.5-vl", "video_metadata": True}  # fmt: skip
    assert got["sent"] == {"temperature": 0.0, "max_tokens": 1024}
