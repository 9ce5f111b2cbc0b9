"""The rooms import one way: no cycle between subpackages, none between files, and the layering
of docs/architecture.md.

Every import in ``src/streamspatial`` counts — module level, inside functions (lazy imports),
under ``TYPE_CHECKING`` — and so does a lazy-import target written as a string
(``"streamspatial.agents.folding:FoldingAgent"`` in a registry).  A room is a subpackage
(``agents``, ``eval``, …) or a top-level module (``api``, the package root).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

import streamspatial

ROOT = Path(streamspatial.__file__).parent
PACKAGE = "streamspatial"
_TARGET = re.compile(r"^streamspatial(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?::[A-Za-z_]\w*)?$")

# room -> rooms it must never import (docs/architecture.md's "must never", and the one-way flow).
FORBIDDEN: dict[str, set[str]] = {
    "core": {"*"},
    "video": {"bench", "models", "agents", "eval", "scoring", "sim", "perception", "train"},
    # a benchmark's folder holds its rules and tables: it reads grading, never scoring
    "bench": {"models", "agents", "eval", "scoring", "sim", "report", "web", "train"},
    "models": {"bench", "agents", "eval", "scoring", "sim", "train"},
    "scoring": {"agents", "eval", "sim", "perception", "report", "web", "qc", "train"},
    # the scene contract (episode records, schedule, vocabulary, door and camera conventions)
    # is below everything that reads an episode; it imports only core
    "scene": {
        "video",
        "bench",
        "models",
        "agents",
        "eval",
        "scoring",
        "sim",
        "perception",
        "qc",
        "report",
        "web",
        "analysis",
        "train",
        "scans",
        "api",
        "cli",
        "testing",
    },
    "sim": {"agents", "eval", "perception", "report", "web", "api", "cli", "train", "scans"},
    # real scans read into the generators' records: above sim, below api and cli
    "scans": {"agents", "eval", "perception", "report", "web", "api", "cli", "train", "qc"},
    # perception and agents read episodes through the scene contract, never the simulator
    "perception": {"agents", "eval", "sim", "scans", "report", "web", "train"},
    "agents": {"eval", "report", "web", "qc", "sim", "api", "cli", "train"},
    "eval": {"sim", "report", "web", "qc", "api", "cli", "train"},
    "qc": {"eval", "agents", "sim", "report", "web", "api", "cli", "train"},
    "report": {"web", "api", "cli"},
    "web": {"api", "cli"},
    "analysis": {"report", "web", "api", "cli"},
    # training data reads walks, perceives them and writes the folding agent's memory layout;
    # it never runs an evaluation, and only api / cli call it
    "train": {"eval", "report", "web", "qc", "analysis", "api", "cli"},
}
ROOMS_BELOW_EVERYTHING = {"core"}
# room -> the only rooms it may import.  grading is the scoring machinery every benchmark
# shares (extraction, metrics, aggregation, the table type): below the benchmarks' folders
# in bench/, which hold their own rules and tables, it names no benchmark.
ONLY: dict[str, set[str]] = {"grading": {"core"}}

# The simulator's steps, in pipeline order: a module of one may import an earlier one's, never a
# later one's (docs/architecture.md, "Inside the two largest rooms").  ``explore`` acts in
# finished episodes; ``pipeline`` runs the steps and ``generate`` the pipeline; the package
# itself (``sim/__init__``, which registers the environment) stands above them all.
SIM_STEPS = ("house", "walk", "events", "render", "qa", "explore", "pipeline", "generate")


def room_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    if len(parts) == 1:
        return PACKAGE  # the package root (__init__)
    return parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _parsed(path: Path) -> tuple[ast.Module, str]:
    """The file's syntax tree, and the package its relative imports start from."""
    me = module_name(path)
    return ast.parse(path.read_text(encoding="utf-8")), (
        me if path.name == "__init__.py" else me.rpartition(".")[0]
    )


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from … import`` reads (``from ..eval import x`` included)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute, wherever the import stands."""
    tree, package = _parsed(path)
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and _TARGET.match(node.value)
        ):
            out.add(node.value.partition(":")[0])
    return out


def room_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    for path in ROOT.rglob("*.py"):
        me = room_of(module_name(path))
        assert me is not None
        graph[me]
        for target in imported(path):
            # `from streamspatial.x import name`: a module when one exists by that name
            while target not in modules and "." in target and target != PACKAGE:
                target = target.rpartition(".")[0]
            other = room_of(target)
            if other is not None and other != me:
                graph[me].add(other)
    return dict(graph)


def sim_step_of(module: str) -> int | None:
    """The pipeline position of a ``streamspatial.sim`` module (the package itself: last)."""
    parts = module.split(".")
    if parts[:2] != [PACKAGE, "sim"]:
        return None
    if len(parts) == 2:
        return len(SIM_STEPS)
    if parts[2] not in SIM_STEPS:
        raise AssertionError(f"{module}: a part of sim that SIM_STEPS does not place")
    return SIM_STEPS.index(parts[2])


def sim_step_imports() -> list[str]:
    """Every import inside ``sim`` that goes from an earlier step to a later one."""
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    wrong: set[str] = set()
    for path in sorted((ROOT / "sim").rglob("*.py")):
        me = module_name(path)
        mine = sim_step_of(me)
        for target in sorted(imported(path)):
            while target not in modules and "." in target and target != PACKAGE:
                target = target.rpartition(".")[0]
            theirs = sim_step_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                wrong.add(f"{me} imports {target}")
    return sorted(wrong)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def file_edges(path: Path, modules: set[str]) -> set[str]:
    """The files (modules) ``path`` imports, lazy and ``TYPE_CHECKING`` imports included.

    ``from pkg import module`` is an edge to ``module`` alone (Python runs ``pkg``'s
    ``__init__`` first whatever imports it, so that is no choice of this file's); a string
    counts when it names a registry's lazy target (``"streamspatial.agents.policy:Agent"``)
    or a module that is not a package (an entry-point group named like a package is no
    import)."""
    tree, package = _parsed(path)
    me = module_name(path)
    packages = {module_name(p) for p in ROOT.rglob("__init__.py")}
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            subs = {f"{mod}.{a.name}" for a in node.names} & modules
            out.update(subs)
            if len(subs) < len(node.names):  # a name defined in ``mod`` itself
                out.add(mod)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _TARGET.match(node.value)
            and (":" in node.value or node.value not in packages)
        ):
            out.add(node.value.partition(":")[0])
    found = set()
    for target in out:
        while target not in modules and "." in target:
            target = target.rpartition(".")[0]
        if target in modules and target != me:
            found.add(target)
    return found


def file_graph() -> dict[str, set[str]]:
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    return {module_name(p): file_edges(p, modules) for p in ROOT.rglob("*.py")}


# Circles between files that remain, each to be broken where it is; none may be added.
KNOWN_FILE_CYCLES: set[frozenset[str]] = set()


def test_no_cycle_between_files() -> None:
    """No two files import each other, however lazily (``TYPE_CHECKING`` included); and no
    longer circle runs through files, once the known pairs are set aside."""
    graph = file_graph()
    pairs = {frozenset({a, b}) for a, targets in graph.items() for b in targets if a in graph[b]}
    assert pairs <= KNOWN_FILE_CYCLES, "files importing each other: " + "; ".join(
        " ↔ ".join(sorted(p)) for p in sorted(pairs - KNOWN_FILE_CYCLES, key=sorted)
    )
    known = {m for pair in KNOWN_FILE_CYCLES for m in pair}
    rest = {a: {b for b in targets if b not in known} for a, targets in graph.items()}
    cycle = find_cycle({a: t for a, t in rest.items() if a not in known})
    assert cycle is None, "import cycle between files: " + " → ".join(cycle or [])


def test_the_file_checker_sees_a_pair(tmp_path: Path) -> None:
    """A lazy import back is an edge; ``from pkg import module`` is an edge to the module."""
    pkg = tmp_path / "streamspatial" / "x"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from streamspatial.x import b\n")
    (pkg / "b.py").write_text("def f():\n    from streamspatial.x.a import g\n    return g\n")
    global ROOT
    old, ROOT = ROOT, tmp_path / "streamspatial"
    try:
        graph = file_graph()
    finally:
        ROOT = old
    assert graph["streamspatial.x.a"] == {"streamspatial.x.b"}
    assert graph["streamspatial.x.b"] == {"streamspatial.x.a"}
    assert find_cycle(graph) is not None


def test_no_cycle_between_rooms() -> None:
    graph = room_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between rooms: " + " → ".join(cycle or [])


def test_rooms_import_one_way() -> None:
    graph = room_graph()
    wrong = []
    for room, banned in FORBIDDEN.items():
        for other in sorted(graph.get(room, set())):
            if "*" in banned or other in banned:
                wrong.append(f"{room} imports {other}")
    for room, allowed in ONLY.items():
        wrong += [f"{room} imports {o}" for o in sorted(graph.get(room, set()) - allowed)]
    assert not wrong, "; ".join(wrong)


def test_sim_steps_import_one_way() -> None:
    """house → walk → events → render → qa (→ explore, pipeline, generate): what a step needs
    of a later one lives in the scene contract (``streamspatial.scene``) or in the earlier step."""
    wrong = sim_step_imports()
    assert not wrong, "; ".join(wrong)


def test_every_part_of_sim_has_a_place_in_the_order() -> None:
    parts = {p.name for p in (ROOT / "sim").iterdir() if p.name != "__pycache__"}
    placed = {f"{step}.py" for step in SIM_STEPS} | set(SIM_STEPS) | {"__init__.py"}
    assert parts <= placed, sorted(parts - placed)


def test_the_step_order_check_sees_a_backward_import() -> None:
    assert sim_step_of("streamspatial.sim.house.colors") == 0
    assert sim_step_of("streamspatial.sim.render.renderer") == SIM_STEPS.index("render")
    assert sim_step_of("streamspatial.sim") == len(SIM_STEPS)
    assert sim_step_of("streamspatial.scene.types") is None
    with pytest.raises(AssertionError, match="does not place"):
        sim_step_of("streamspatial.sim.newstep.x")


def test_the_checker_sees_lazy_and_string_imports(tmp_path: Path) -> None:
    """A function-level import and a registry's string target are edges too."""
    src = tmp_path / "streamspatial" / "x"
    src.mkdir(parents=True)
    mod = src / "m.py"
    mod.write_text(
        '"""streamspatial.eval.runner in a docstring is not an import."""\n'
        "def f():\n    from ..eval import runner\n    return runner\n"
        'TARGETS = {"a": "streamspatial.sim.explore.env:ExploreEnv"}\n'
    )
    global ROOT
    old, ROOT = ROOT, tmp_path / "streamspatial"
    try:
        got = imported(mod)
    finally:
        ROOT = old
    assert "streamspatial.eval" in got and "streamspatial.sim.explore.env" in got
    assert "streamspatial.eval.runner" in got  # `from ..eval import runner`
    assert not any("docstring" in g for g in got)


def test_a_cycle_is_found() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
