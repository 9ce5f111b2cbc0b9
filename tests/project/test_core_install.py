"""The core install is enough for the core commands: validate, run, report, compare.

Heavy parts are extras (README: the core install and its extras): a user who installs
``streamspatial`` alone must be able to check a benchmark and evaluate a model over HTTP.  A
module-level import of an extra (matplotlib, torch, mujoco, …) anywhere on those paths would
break that without any test noticing, because the test environment has every extra.  So this
runs the CLI in a fresh interpreter where every optional module is unimportable.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from runner_fixtures import write_ovos

OPTIONAL = [
    "matplotlib",
    "scipy",
    "torch",
    "transformers",
    "mujoco",
    "gymnasium",
    "cv2",
    "sklearn",
    "ray",
    "fastapi",
    "uvicorn",
    "sentence_transformers",
    "psutil",
    "hypothesis",
    "pytest",
    "playwright",
]

SCRIPT = textwrap.dedent(
    """
    import json, sys

    BLOCK = set(json.loads(sys.argv[1]))

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCK:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Blocker())
    for mod in list(sys.modules):
        if mod.split(".")[0] in BLOCK:
            del sys.modules[mod]

    from streamspatial.cli import main

    codes = []
    for args in json.loads(sys.argv[2]):
        try:
            main(args)
            codes.append(0)
        except SystemExit as exc:
            codes.append(int(exc.code or 0))
    print("CODES", json.dumps(codes))
    """
)


def run_args(data: Path, videos: Path, out: Path, policy: str) -> list[str]:
    return [
        *("run", "--data", str(data), "--videos", str(videos), "--model", "random"),
        *("--policy", policy, "--out", str(out), "--no-progress"),
    ]


def cli_without_extras(commands: list[list[str]]) -> tuple[list[int], str]:
    """Exit codes of ``commands`` run one after another in a core-only interpreter."""
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(OPTIONAL), json.dumps(commands)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = proc.stdout.splitlines()[-1]
    assert last.startswith("CODES "), proc.stderr[-2000:]
    return json.loads(last.removeprefix("CODES ")), proc.stderr


def test_validate_run_report_compare_without_any_extra(tmp_path: Path) -> None:
    data, videos = write_ovos(tmp_path)
    out = tmp_path / "run"
    codes, stderr = cli_without_extras(
        [
            ["validate", str(data), "--videos", str(videos)],
            run_args(data, videos, out, "uniform-8"),
            ["report", str(out)],
            ["compare", str(out)],
        ]
    )
    assert codes == [0, 0, 0, 0], stderr[-2000:]
    assert "is not installed" not in stderr
    assert (out / "scores.json").exists() and (out / "report.md").exists()
    assert len((out / "predictions.jsonl").read_text().splitlines()) == 11


def test_an_extra_that_is_missing_is_one_line_naming_it(tmp_path: Path) -> None:
    data, videos = write_ovos(tmp_path)
    out = tmp_path / "run"
    codes, stderr = cli_without_extras(
        [run_args(data, videos, out, "none"), ["report", str(out), "--html"]]
    )
    assert codes == [0, 2], stderr[-2000:]
    assert "Traceback" not in stderr
    assert (
        "the HTML report needs the report extra (matplotlib): pip install 'streamspatial[report]'"
        in stderr
    )


def test_commands_of_an_extra_name_it_in_one_line(tmp_path: Path) -> None:
    """``demo`` and ``sim generate`` need MuJoCo; without it, one line says which extra."""
    codes, stderr = cli_without_extras(
        [
            ["demo", "--out", str(tmp_path / "demo")],
            ["sim", "generate", "--houses", "1", "--out", str(tmp_path / "gen")],
        ]
    )
    assert codes == [2, 2], stderr[-2000:]
    assert "Traceback" not in stderr
    lines = [ln for ln in stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 2, stderr[-2000:]
    assert all("pip install 'streamspatial[sim]'" in ln for ln in lines)
    assert not (tmp_path / "demo").exists() and not (tmp_path / "gen").exists()
