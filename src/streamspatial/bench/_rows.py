"""One raw benchmark record and the field checks that report into a problem list.

Released benchmark files are hand-edited, exported from spreadsheets and re-saved on many
machines, so a loader that stops at the first broken field hides the other ninety-nine.  A
:class:`Row` checks single fields, always appending a
:class:`~streamspatial.core.errors.Problem` instead of raising; reading the files themselves is
:mod:`._files`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from streamspatial.core.errors import Problem


@dataclass(eq=False)
class Row:
    """One raw record, its place in the file, and the problem list it reports into."""

    data: dict[str, Any]
    file: str
    location: str
    problems: list[Problem]
    item_id: str | None = None
    ok: bool = field(default=True, init=False)  # False once a problem was reported

    def problem(self, field: str, expected: str) -> None:
        self.ok = False
        self.problems.append(
            Problem(
                file=self.file,
                field=field,
                expected=expected,
                item_id=self.item_id,
                location=self.location,
            )
        )

    def has(self, name: str) -> bool:
        return name in self.data and self.data[name] is not None

    def _missing(self, name: str, what: str) -> None:
        self.problem(name, f"missing; expected {what}")

    def str(self, name: str, *, required: bool = True, allow_empty: bool = False) -> str | None:
        if not self.has(name):
            if required:
                self._missing(name, "a string")
            return None
        v = self.data[name]
        if not isinstance(v, str):
            self.problem(name, f"expected a string, got {_kind(v)} {_short(v)}")
            return None
        if not allow_empty and not v.strip():
            self.problem(name, "expected a non-empty string")
            return None
        return v

    def ident(self, name: str) -> str | None:
        """An id: a string or an integer, normalised to a string."""
        if not self.has(name):
            self._missing(name, "an id (string or integer)")
            return None
        v = self.data[name]
        if isinstance(v, bool) or not isinstance(v, str | int):
            self.problem(name, f"expected an id (string or integer), got {_kind(v)} {_short(v)}")
            return None
        s = str(v)
        if not s.strip():
            self.problem(name, "expected a non-empty id")
            return None
        return s

    def int(self, name: str, *, required: bool = True, minimum: int | None = None) -> int | None:
        if not self.has(name):
            if required:
                self._missing(name, "an integer")
            return None
        v = self.data[name]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            self.problem(name, f"expected an integer, got {_kind(v)} {_short(v)}")
            return None
        if minimum is not None and v < minimum:
            self.problem(name, f"expected an integer ≥ {minimum}, got {v}")
            return None
        return v

    def number(self, name: str, *, required: bool = True, what: str = "a number") -> float | None:
        if not self.has(name):
            if required:
                self._missing(name, what)
            return None
        return check_number(self, name, self.data[name], what=what)

    def time(self, name: str, *, required: bool = True) -> float | None:
        if not self.has(name):
            if required:
                self._missing(name, "a time in seconds")
            return None
        return check_time(self, name, self.data[name])

    def list(self, name: str, *, required: bool = True) -> list[Any] | None:
        return self._json(name, list, "a list", required)

    def objects(
        self, name: str, entries: list[Any], expected: str
    ) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """``(k, "name[k]", entry)`` for each object among ``entries``, the list field
        ``name`` (clips, probes, questions nested in a record); an entry that is not an object
        is reported at its place as ``expected`` and passed over."""
        for k, entry in enumerate(entries):
            where = f"{name}[{k}]"
            if isinstance(entry, dict):
                yield k, where, entry
            else:
                self.problem(where, expected)

    def dict(self, name: str, *, required: bool = True) -> dict[str, Any] | None:
        return self._json(name, dict, "an object", required)

    def _json(self, name: str, kind: type, what: str, required: bool) -> Any:
        """A field holding a ``kind`` (list or object), or JSON text of one."""
        if not self.has(name):
            if required:
                self._missing(name, what)
            return None
        v = decode_json_text(self.data[name], kind)
        if not isinstance(v, kind):
            self.problem(name, f"expected {what}, got {_kind(v)} {_short(v)}")
            return None
        return v


def check_number(row: Row, field: str, v: Any, *, what: str = "a number") -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        row.problem(field, f"expected {what}, got {_kind(v)} {_short(v)}")
        return None
    f = float(v)
    if not math.isfinite(f):
        row.problem(field, f"expected {what}, got {v}")
        return None
    return f


def check_time(row: Row, field: str, v: Any) -> float | None:
    t = check_number(row, field, v, what="a time in seconds")
    if t is None:
        return None
    if t < 0:
        row.problem(field, f"expected a time ≥ 0 seconds, got {v}")
        return None
    return t


_HMS = re.compile(r"^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)\s*$")


def parse_hms(text: str) -> float | None:
    """``"HH:MM:SS"`` (or ``"MM:SS"``, fractional seconds allowed) to seconds; None if not."""
    m = _HMS.match(text)
    if not m:
        return None
    h, mnt, sec = m.groups()
    if int(mnt) >= 60 or float(sec) >= 60:
        return None
    return int(h or 0) * 3600 + int(mnt) * 60 + float(sec)


def decode_json_text(v: Any, want: type) -> Any:
    """Parquet exports often store nested fields as JSON text; decode it when it fits."""
    if isinstance(v, str) and v.strip()[:1] in ("[", "{"):
        try:
            decoded = json.loads(v)
        except (ValueError, RecursionError):
            return v
        if isinstance(decoded, want):
            return decoded
    if want is list and isinstance(v, tuple):
        return list(v)
    return v


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list | tuple):
        return "list"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _short(v: Any, limit: int = 40) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
