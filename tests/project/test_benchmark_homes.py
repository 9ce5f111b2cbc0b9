"""One home per benchmark: a benchmark in its own folder (``bench/<name>/``) is registered once,
and nothing outside its folder and the registry keys a dict, an ``if`` or a lookup on its name.

The checker reads every module of ``src/streamspatial`` and looks for the benchmark's format
name or printed title (``"rtvbench"``, ``"RTV-Bench"``, ``RTVBenchAdapter.title``) as a dict
key, a subscript, a side of a comparison (``==``, ``in`` a literal tuple or set) or a
``case``.  :data:`NOT_YET_MOVED` names the benchmarks whose rules and tables still live in
``scoring/``: the check skips them, and it only shrinks — a benchmark that has a folder may
not be listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import streamspatial
from streamspatial.bench.home import Benchmark
from streamspatial.bench.registry import ADAPTERS, HOMES

ROOT = Path(streamspatial.__file__).parent

# Benchmarks still scored from scoring/ rather than from a folder of their own: none now, and
# never add one.
NOT_YET_MOVED: set[str] = set()


def spellings(name: str) -> set[str]:
    """The strings a benchmark is keyed by: its format name and its title."""
    return {name, ADAPTERS[name].title}


def _named(node: ast.AST, strings: set[str], classes: set[str]) -> bool:
    """``node`` is one of ``strings``, or ``<Adapter>.title`` / ``.name`` of one of ``classes``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in strings
    if isinstance(node, ast.Attribute) and node.attr in ("title", "name"):
        return isinstance(node.value, ast.Name) and node.value.id in classes
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_named(e, strings, classes) for e in node.elts)
    return False


def keyed_on(source: str, strings: set[str], classes: set[str]) -> list[int]:
    """The lines of ``source`` where a dict, a lookup, a comparison or a case keys on a name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        hits: list[ast.AST] = []
        if isinstance(node, ast.Dict):
            hits = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Subscript):
            hits = [node.slice]
        elif isinstance(node, ast.Compare):
            hits = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            hits = [node.value]
        if any(_named(h, strings, classes) for h in hits):
            lines.append(node.lineno)
    return sorted(set(lines))


def home_of(name: str) -> Path:
    return ROOT / "bench" / name


def outside_home(name: str) -> list[str]:
    """Where, outside ``bench/<name>/`` and the registry, the code keys on ``name``."""
    strings = spellings(name)
    classes = {type(ADAPTERS[name]).__name__}
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if home_of(name) in path.parents or path == ROOT / "bench" / "registry.py":
            continue
        for line in keyed_on(path.read_text(encoding="utf-8"), strings, classes):
            found.append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_a_moved_benchmark_is_keyed_on_only_in_its_folder_and_the_registry() -> None:
    moved = sorted(set(ADAPTERS) - NOT_YET_MOVED)
    assert moved, "no benchmark has its own folder"
    wrong = {name: where for name in moved if (where := outside_home(name))}
    assert not wrong, f"benchmark names keyed on outside their folder: {wrong}"


def test_the_list_of_benchmarks_not_yet_moved_only_shrinks() -> None:
    assert set(ADAPTERS) >= NOT_YET_MOVED, NOT_YET_MOVED - set(ADAPTERS)
    housed = {p.name for p in (ROOT / "bench").iterdir() if (p / "__init__.py").is_file()}
    assert not NOT_YET_MOVED & housed, f"moved, so take off NOT_YET_MOVED: {NOT_YET_MOVED & housed}"
    assert set(HOMES) == set(ADAPTERS) - NOT_YET_MOVED


def test_each_moved_benchmark_is_registered_once_from_its_folder() -> None:
    import importlib

    for name, home in HOMES.items():
        assert isinstance(home, Benchmark) and home.name == name
        folder = importlib.import_module(f"streamspatial.bench.{name}")
        assert folder.BENCHMARK is home, name  # the registry lists the folder's own record
        assert ADAPTERS[name] is home.adapter
        assert home.table is not None and home.headline is not None, name
        assert (home.official is None) == (home.adapter.scoring.official is None), name


def test_the_checker_finds_a_dict_an_if_and_a_lookup() -> None:
    strings, classes = {"rtvbench", "RTV-Bench"}, {"RTVBenchAdapter"}
    source = (
        'EXPORTS = {"rtvbench": 1, "other": 2}\n'
        "def f(fmt, t, d):\n"
        '    if fmt == "rtvbench":\n'
        "        return 1\n"
        '    if t in ("x", "RTV-Bench"):\n'
        "        return 2\n"
        '    return d["rtvbench"], {RTVBenchAdapter.title: 3}\n'
        "def g(fmt):\n"
        "    match fmt:\n"
        '        case "rtvbench":\n'
        "            return 1\n"
        'HELP = "ovobench | rtvbench"  # a help text names it, keys nothing\n'
    )
    assert keyed_on(source, strings, classes) == [1, 3, 5, 7, 10]
