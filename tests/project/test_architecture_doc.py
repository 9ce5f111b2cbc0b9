"""docs/architecture.md says what the code does: its room table is the measured import graph,
its room map draws every import downwards, and the files the docs name exist.

The table and the map are what a newcomer reads first; a test keeps them from drifting the
way they did once (``sim`` importing ``qc`` while the map put ``qc`` above ``sim``).
"""

from __future__ import annotations

import re
from pathlib import Path

from test_import_graph import room_graph

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
SRC = REPO / "src" / "streamspatial"


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end >= 0 else len(text)]


def documented_table() -> dict[str, set[str]]:
    """The ``| room | imports |`` table of the room map, as room -> rooms."""
    rows: dict[str, set[str]] = {}
    section = _section(DOC.read_text(encoding="utf-8"), "## The room map")
    lines = section.splitlines()
    start = lines.index("| room | imports |")
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        room, imports = (cell.strip() for cell in line.strip("|").split("|"))
        names = {n.strip().strip("`") for n in imports.split(",")} - {"—", ""}
        rows[room.strip("`")] = names
    return rows


def documented_layers() -> list[set[str]]:
    """The room map's lines, top first, each the set of rooms it names."""
    section = _section(DOC.read_text(encoding="utf-8"), "## The room map")
    block = section.split("```")[1]
    layers = []
    for line in block.strip().splitlines():
        rooms = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        layers.append({r.strip() for r in rooms.split("·")})
    return layers


def test_the_room_table_is_the_measured_import_graph():
    measured = room_graph()
    documented = documented_table()
    missing = sorted(set(measured) - set(documented))
    extra = sorted(set(documented) - set(measured))
    wrong = {
        room: {"documented": sorted(documented[room]), "measured": sorted(measured[room])}
        for room in sorted(set(measured) & set(documented))
        if documented[room] != measured[room]
    }
    assert not missing and not extra and not wrong, (missing, extra, wrong)


def test_the_room_map_draws_every_import_downwards():
    layers = documented_layers()
    level = {room: i for i, rooms in enumerate(layers) for room in rooms}
    graph = room_graph()
    drawn = {room for room in graph if room not in ("testing", "streamspatial", "__main__")}
    assert set(level) == drawn, sorted(set(level) ^ drawn)
    upward = [
        f"{room} (line {level[room] + 1}) imports {other} (line {level[other] + 1})"
        for room in sorted(level)
        for other in sorted(graph[room])
        if other in level and level[other] <= level[room]
    ]
    assert not upward, upward


def test_the_package_docstring_points_to_the_map_instead_of_drawing_another():
    import streamspatial

    doc = streamspatial.__doc__ or ""
    assert "docs/architecture.md" in doc
    assert "←" not in doc  # the layer order is drawn once, in the document


_PATH = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.(?:py|md))`")
# Where a path names a file of this project: the rooms (but ``eval/``, which other projects'
# scripts the docs cite share) and the repository's own folders.
_OURS = (
    "sim/", "agents/", "perception/", "qc/", "scoring/", "bench/", "video/", "core/", "report/",
    "analysis/", "web/", "models/", "cli/", "testing/", "train/", "tests/", "benchmarks/",
    "docs/", "scene/", "scans/", "src/streamspatial/",
)  # fmt: skip


def _exists(name: str) -> bool:
    candidates = [REPO / name, SRC / name, REPO / "docs" / name, REPO / "src" / name]
    return any(c.exists() for c in candidates)


def test_every_file_the_docs_name_exists():
    """Module paths in the docs follow the code (``scene/catalog.py``, not the path a
    module had before it moved), and no document cites one that is not there."""
    missing = []
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for name in _PATH.findall(doc.read_text(encoding="utf-8")):
            if name.startswith(_OURS) and not _exists(name):
                missing.append(f"{doc.relative_to(REPO)}: {name}")
    assert not missing, missing


def test_no_file_cites_a_design_document_the_project_does_not_have():
    cited = []
    sources = [*SRC.rglob("*.py"), *(REPO / "tests").rglob("*.py")]
    for path in [*sources, *(REPO / "docs").glob("*.md")]:
        for name in re.findall(r"\b([A-Z][A-Z_]+\.md)\b", path.read_text(encoding="utf-8")):
            if not (REPO / name).exists():
                cited.append(f"{path.relative_to(REPO)}: {name}")
    assert not cited, cited
