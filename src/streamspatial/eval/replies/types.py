"""What every reader of predictions made elsewhere produces, and the release it reads against.

A *source* (OVO-Bench's ``results/<Model>/*.json``, lmms-eval's ``--log_samples`` files,
VLMEvalKit's prediction sheets, a plain JSONL) turns each of its records into :class:`Reply`
values: the reply's text and whatever the record says about which question it answers — the
release record's id, its position in the release, or its content — and the ground truth the
record stored with it, which pairing checks against the release (:mod:`.pairing`).  Readers
know their own layout only; the release's items come from the benchmark adapter, so no reader
re-reads the benchmark file.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import Problem
from streamspatial.core.schema import Item


@dataclass(frozen=True)
class Reply:
    """One reply a model made elsewhere, and what its record says it answers.

    Exactly one way of naming the item is set: ``item_id`` (streamspatial's own id, the plain
    JSONL), ``record`` (the release record's id; :meth:`BenchmarkAdapter.record_id`),
    ``position`` (the record's 0-based place in the release file) or ``match`` (fields the
    item must have: ``video``, ``question``, ``task``).  ``query_index`` or ``t_q`` picks the
    query point when the item has several.  ``text`` is None where the record holds no reply
    (a failed call, JSON ``null``).  ``truth``, the ground truth the record stored, and
    ``question``, its question, are checked against the release.
    """

    file: str
    location: str
    text: str | None
    item_id: str | None = None
    record: str | None = None
    position: int | None = None
    match: tuple[tuple[str, str], ...] = ()
    query_index: int | None = None
    t_q: float | None = None
    truth: str | float | None = None
    question: str | None = None
    # What the record's layout calls the fields that name its question, for messages.
    id_field: str = "id"
    time_field: str = "t_q"

    @property
    def where(self) -> str:
        """``FILE:LOCATION``, for one-line messages."""
        return f"{self.file}:{self.location}" if self.location else self.file

    def problem(self, field: str, expected: str, item_id: str | None = None) -> Problem:
        return Problem(self.file, field, expected, item_id=item_id, location=self.location)


@dataclass
class Release:
    """The benchmark file the replies are paired with: its adapter, items and where each item
    was read from (so a record's position in the file can name it)."""

    path: Path
    adapter: BenchmarkAdapter
    items: list[Item]
    locations: dict[str, str] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, Item]:
        return {it.id: it for it in self.items}

    @cached_property
    def by_record(self) -> dict[str, list[Item]]:
        """Items by the id of the release record they came from, in file order."""
        out: dict[str, list[Item]] = {}
        for it in self.items:
            out.setdefault(self.adapter.record_id(it), []).append(it)
        return out

    @cached_property
    def in_file_order(self) -> list[Item]:
        """Items in the order their records stand in the file (by the line each starts on)."""

        def place(pair: tuple[int, Item]) -> tuple[int, int]:
            n, it = pair
            m = re.search(r"(\d+)", self.locations.get(it.id, ""))
            return (int(m.group(1)) if m else 0, n)

        return [it for _, it in sorted(enumerate(self.items), key=place)]


class ReplySource(ABC):
    """One layout of predictions made elsewhere (``score --from NAME``).

    ``sniff`` recognises a file of the layout (``--from auto``); ``read`` yields its replies,
    appending a :class:`Problem` for each record it cannot read (never raising for bad
    content); ``model_name`` is the model the files say made them, when they say.
    """

    name: ClassVar[str]
    title: ClassVar[str]

    @abstractmethod
    def sniff(self, path: Path) -> bool:
        """True when ``path`` is a file of this layout."""

    @abstractmethod
    def read(self, path: Path, release: Release, problems: list[Problem]) -> Iterator[Reply]:
        """Every reply of ``path``."""

    def model_name(self, path: Path) -> str | None:
        """The model that made ``path``'s replies, where the layout names it."""
        return None


def json_lines(path: Path, problems: list[Problem]) -> Iterator[tuple[str, Any]]:
    """``("line N", value)`` for each non-blank line of a JSONL file; a line that is not JSON
    is one problem."""
    for n, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield f"line {n}", json.loads(raw)
        except ValueError as exc:
            problems.append(Problem(str(path), "", f"not valid JSON ({exc})", location=f"line {n}"))


def first_json_line(path: Path) -> Any:
    """The first line of ``path`` as JSON (None when it is not): what a sniff reads."""
    with path.open("rb") as fh:
        first = fh.readline(1 << 16)
    try:
        return json.loads(first)
    except ValueError:
        return None


__all__ = ["Release", "Reply", "ReplySource", "first_json_line", "json_lines"]
