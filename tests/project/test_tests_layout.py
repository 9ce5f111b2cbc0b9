"""The tests mirror the rooms: ``tests/<room>/test_*.py``, so a room's tests are found where its
code is (``src/streamspatial/<room>/``), and a new test lands beside its neighbours.

Tests that cross rooms have two named folders of their own: ``project`` (the repository's own
rules: the import graph, the documents, README, the text users read, the install) and
``suites`` (the robustness suites that drive the whole CLI: bad inputs, causality, faults,
long streams, secrets; the crash suite sits in ``cli`` beside the ``run`` tests it reuses).
The top level holds only ``conftest.py`` and the helper modules the tests share
(``pyproject.toml``'s ``pythonpath`` puts them on the path).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import streamspatial

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = Path(streamspatial.__file__).parent
# Folders of tests that are no room, and what each holds (the module docstring says why).
CROSS_ROOM = {"project", "suites"}


def rooms() -> set[str]:
    """The package's rooms: its subpackages and its top-level modules (``api``)."""
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    return packages | modules


def misplaced(tests: Path, allowed: set[str]) -> list[str]:
    """Test files not at ``tests/<room or cross-room folder>/test_*.py``."""
    wrong = []
    for path in sorted(tests.rglob("test_*.py")):
        parts = path.relative_to(tests).parts
        if len(parts) != 2 or parts[0] not in allowed:
            wrong.append(path.relative_to(tests).as_posix())
    return wrong


def test_every_test_file_sits_in_a_room_folder():
    wrong = misplaced(TESTS, rooms() | CROSS_ROOM)
    assert not wrong, (
        f"move these to tests/<room>/ (rooms: {sorted(rooms())}; or {sorted(CROSS_ROOM)}): {wrong}"
    )


def test_the_check_catches_a_test_at_the_top_or_in_a_folder_that_is_no_room(tmp_path):
    for rel in ("test_top.py", "nowhere/test_x.py", "sim/deeper/test_y.py", "sim/test_ok.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    wrong = misplaced(tmp_path, {"sim"})
    assert wrong == ["nowhere/test_x.py", "sim/deeper/test_y.py", "test_top.py"]


def test_the_room_names_come_from_the_package():
    assert {"sim", "bench", "eval", "core", "api"} <= rooms()
    assert "__main__" not in rooms()


def test_test_file_names_are_unique_across_folders():
    """The folders are no packages, so pytest imports each test file by its base name: two
    files of one name in two folders would collide."""
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1]


def test_no_room_folder_holds_a_package_marker_or_helper():
    """Shared helpers live at the top level, where every folder's tests import them by name."""
    stray = [
        p.relative_to(TESTS).as_posix()
        for folder in TESTS.iterdir()
        if folder.is_dir() and folder.name in rooms() | CROSS_ROOM
        for p in folder.glob("*.py")
        if not p.name.startswith("test_")
    ]
    assert not stray, stray


def test_a_test_file_imports_other_test_files_only_from_its_own_folder():
    """pytest puts a test file's own folder on the path, no other: a test reused from another
    folder would import only when that folder happened to be collected first."""
    here = {p.stem: p.parent for p in TESTS.rglob("test_*.py")}
    crossing = []
    for name, folder in here.items():
        text = (folder / f"{name}.py").read_text(encoding="utf-8")
        for other in re.findall(r"^\s*(?:from|import) (test_\w+)", text, re.MULTILINE):
            if here.get(other) != folder:
                crossing.append(f"{folder.name}/{name}.py imports {other}")
    assert not crossing, crossing
