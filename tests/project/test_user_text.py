"""What users read names papers, never our notes: no "seed 000 §4.3.3" anywhere.

The papers are OVO-S-Bench, VCBench, UCS-Bench and S3-Bench; a reference reads
"OVO-S-Bench, Table 2" or "VCBench §4.3.2".  Every command's --help (walked from the
application, so a new command is covered too), README.md and docs/ are checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from streamspatial.cli import app

ROOT = Path(__file__).resolve().parents[2]
JARGON = re.compile(r"\bseeds? 0\d\d\b", re.IGNORECASE)


def _commands(group, path: tuple[str, ...] = ()):
    yield path
    for name, sub in (getattr(group, "commands", None) or {}).items():
        yield from _commands(sub, (*path, name))


def _help_texts() -> list[tuple[str, str]]:
    runner = CliRunner()
    out = []
    for path in _commands(typer.main.get_command(app)):
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        out.append((" ".join(path) or "(root)", result.output))
    return out


def test_every_command_is_walked():
    names = {name for name, _ in _help_texts()}
    assert {"demo", "run", "report", "sim generate", "qc blind"} <= names


@pytest.mark.parametrize(("command", "text"), _help_texts())
def test_help_names_papers_not_notes(command, text):
    assert not JARGON.search(text), f"streamspatial {command} --help: {JARGON.search(text)[0]}"


@pytest.mark.parametrize(
    "doc", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name
)
def test_docs_name_papers_not_notes(doc):
    hits = [ln for ln in doc.read_text(encoding="utf-8").splitlines() if JARGON.search(ln)]
    assert not hits, hits[:3]


SOURCES = sorted(
    p
    for d in ("src", "benchmarks", "examples")
    for p in (ROOT / d).rglob("*")
    if p.suffix in {".py", ".js", ".html", ".css"}
)


def test_sources_name_papers_not_notes():
    # Docstrings are read through help(), the API docs and tracebacks: the same rule holds.
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in SOURCES
        for n, ln in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if JARGON.search(ln)
    ]
    assert SOURCES and not hits, hits[:5]
