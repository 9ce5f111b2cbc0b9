"""README's first block: the two commands a newcomer runs, checked without running them.

It reads README.md the way a person (and the fresh-machine check) does — the first fenced
``bash`` block, one command per line — and checks that every program and
file it names exists and parses, that the extras it installs exist and pull no torch (the
main job's install stays small), and that ``.ci/run`` runs the test command exactly as
written.  Running the block for real, in a fresh clone and virtual environment, takes minutes and
is done outside the suite.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from streamspatial.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
HEAVY = ("torch", "ray", "transformers", "sentence-transformers")


def first_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"```(?:bash|sh|console|shell)\n(.*?)```", text, re.S)
    assert m, "README.md has no ```bash block"
    lines = [ln.strip() for ln in m.group(1).splitlines()]
    return [ln.removeprefix("$ ") for ln in lines if ln and not ln.startswith("#")]


def steps(line: str) -> list[list[str]]:
    """``a && b && c`` → the argv of each command."""
    return [shlex.split(part) for part in line.split("&&")]


def extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["optional-dependencies"]


def requirements_of(extra: str, table: dict[str, list[str]]) -> list[str]:
    """Every requirement an extra installs, its ``streamspatial[...]`` references followed."""
    out = []
    for req in table[extra]:
        m = re.fullmatch(r"streamspatial\[([\w,]+)\]", req)
        if m:
            for sub in m.group(1).split(","):
                out += requirements_of(sub, table)
        else:
            out.append(req)
    return out


def test_the_block_is_two_commands_that_parse():
    block = first_block()
    assert len(block) == 2, block
    for line in block:
        proc = subprocess.run(["bash", "-n", "-c", line], capture_output=True, text=True)
        assert proc.returncode == 0, (line, proc.stderr)


def test_first_command_sets_up_and_runs_the_demo():
    first = steps(first_block()[0])
    script, pip, demo = first
    path = ROOT / script[0]
    assert path.is_file() and path.stat().st_mode & 0o111, f"{script[0]} is not executable"
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    assert pip[:3] == ["pip", "install", "-e"], pip
    m = re.fullmatch(r"\.\[([\w,]+)\]", pip[3])
    assert m, pip
    table = extras()
    for extra in m.group(1).split(","):
        assert extra in table, f"README installs extra {extra!r}, pyproject has none"
        reqs = requirements_of(extra, table)
        names = {re.split(r"[<>=\[; ]", r, maxsplit=1)[0].lower() for r in reqs}
        assert not names & set(HEAVY), f"extra {extra!r} pulls {sorted(names & set(HEAVY))}"
    assert demo == ["streamspatial", "demo"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert "streamspatial" in scripts
    result = CliRunner().invoke(app, ["demo", "--help"])
    assert result.exit_code == 0, result.output


def test_second_command_runs_the_tests_and_ci_runs_it_verbatim():
    second = first_block()[1]
    assert shlex.split(second)[:3] == ["python", "-m", "pytest"], second
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert second in [ln.strip() for ln in ci], ".ci/run must run README's test command as is"


def test_one_list_of_system_packages_used_by_readme_and_ci():
    listing = ROOT / "scripts" / "system-packages.txt"
    names = [
        ln.split("#", 1)[0].strip()
        for ln in listing.read_text(encoding="utf-8").splitlines()
        if ln.split("#", 1)[0].strip()
    ]
    assert names and all(re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", n) for n in names), names
    assert len(names) == len(set(names))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/system-packages.sh" in ci
    assert "apt-get install" not in ci, "CI installs system packages only through the list"
    assert "scripts/system-packages.sh" in first_block()[0]


@pytest.mark.parametrize("target", re.findall(r"\]\(((?!https?:|#)[^)]+)\)", README.read_text()))
def test_readme_links_to_files_that_exist(target):
    assert (ROOT / target.split("#")[0]).exists(), target
