"""Reading raw benchmark records while collecting every problem.

Released benchmark files are hand-edited, exported from spreadsheets and re-saved on many
machines, so a loader that stops at the first broken line hides the other ninety-nine.  These
helpers read JSONL, JSON arrays and parquet into ``(location, record)`` pairs and check single
fields, always appending a :class:`~streamspatial.core.errors.Problem` instead of raising.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamspatial.core.errors import Problem

_BOM = b"\xef\xbb\xbf"


def _bytes_without_bom(path: Path, problems: list[Problem]) -> bytes:
    """The file's bytes; a UTF-8 byte-order mark is reported once and dropped, not fatal."""
    raw = path.read_bytes()
    if raw.startswith(_BOM):
        problems.append(
            Problem(
                str(path),
                "",
                "unexpected UTF-8 byte-order mark; save as UTF-8 without BOM",
                location="line 1",
            )
        )
        raw = raw[len(_BOM) :]
    return raw


class Row:
    """One raw record, its place in the file, and the problem list it reports into."""

    def __init__(
        self,
        data: dict[str, Any],
        file: str,
        location: str,
        problems: list[Problem],
        item_id: str | None = None,
    ):
        self.data = data
        self.file = file
        self.location = location
        self.problems = problems
        self.item_id = item_id
        self.ok = True

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
        if not self.has(name):
            if required:
                self._missing(name, "a list")
            return None
        v = decode_json_text(self.data[name], list)
        if not isinstance(v, list):
            self.problem(name, f"expected a list, got {_kind(v)} {_short(v)}")
            return None
        return v

    def dict(self, name: str, *, required: bool = True) -> dict[str, Any] | None:
        if not self.has(name):
            if required:
                self._missing(name, "an object")
            return None
        v = decode_json_text(self.data[name], dict)
        if not isinstance(v, dict):
            self.problem(name, f"expected an object, got {_kind(v)} {_short(v)}")
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


def first_keys(path: Path, max_lines: int = 50) -> set[str]:
    """Field names of the first readable record, or the parquet columns; empty if none.

    Broken lines before the first good one are skipped, so a damaged file is still recognised
    and every problem in it reported.
    """
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return set(pq.read_schema(path).names)
        except Exception:  # not parquet at all: the loader reports it
            return set()
    # Whole lines, however long: a record may carry inline images (OVO-S 4.3 map options),
    # so a fixed-size head would cut the first record and hide the format.
    with path.open("rb") as fh:
        lines = [fh.readline() for _ in range(max_lines)]
    lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    if lines[0].lstrip().startswith(b"["):
        return _first_keys_json_array(path)
    for blob in lines:
        try:
            obj = json.loads(blob.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            return set(obj)
    return set()


def _first_keys_json_array(path: Path) -> set[str]:
    """Keys of the first element of a JSON array, even if a later element is broken."""
    text = path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    start = text.find("{")
    if start < 0:
        return set()
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return set()
    return set(obj) if isinstance(obj, dict) else set()


# --- file readers ------------------------------------------------------------------------


def read_jsonl(path: Path, problems: list[Problem]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``("line N", object)`` for every good line; report every bad one.

    A UTF-8 byte-order mark, blank lines inside the file, undecodable bytes, text that is not
    JSON and JSON that is not an object are each reported on their own line; the rest of the
    file is still read.
    """
    file = str(path)
    raw = _bytes_without_bom(path, problems)
    lines = raw.split(b"\n")
    # A final newline is normal; trailing empty lines after it are not worth a complaint.
    while lines and not lines[-1].strip():
        lines.pop()
    for n, blob in enumerate(lines, start=1):
        loc = f"line {n}"
        try:
            text = blob.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    file, "", f"bytes that are not UTF-8 at column {exc.start + 1}", location=loc
                )
            )
            continue
        if not text.strip():
            problems.append(
                Problem(file, "", "blank line; expected one JSON object per line", location=loc)
            )
            continue
        try:
            # NaN / Infinity are parsed (Python's json writes them) and rejected by the field
            # checks, so the rest of the line is still checked.
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            problems.append(
                Problem(file, "", f"not valid JSON ({_json_reason(exc)})", location=loc)
            )
            continue
        if not isinstance(obj, dict):
            problems.append(
                Problem(file, "", f"expected a JSON object, got {_kind(obj)}", location=loc)
            )
            continue
        yield loc, obj


def read_json_array(path: Path, problems: list[Problem]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``("line N", object)`` for each element of a top-level JSON array.

    Elements are decoded one at a time so every element is located by the line it starts on.
    """
    file = str(path)
    raw = _bytes_without_bom(path, problems)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        problems.append(Problem(file, "", "bytes that are not UTF-8", location=f"line {line}"))
        return
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if i >= len(text) or text[i] != "[":
        problems.append(
            Problem(
                file,
                "",
                "expected a JSON array of question objects",
                location=f"line {text.count(chr(10), 0, i) + 1}",
            )
        )
        return
    i = _skip_ws(text, i + 1)
    if i < len(text) and text[i] == "]":
        return
    while i < len(text):
        line = text.count("\n", 0, i) + 1
        try:
            obj, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError) as exc:
            problems.append(
                Problem(
                    file,
                    "",
                    f"not valid JSON ({_json_reason(exc)})",
                    location=f"line {text.count(chr(10), 0, _pos(exc, i)) + 1}",
                )
            )
            return
        if isinstance(obj, dict):
            yield f"line {line}", obj
        else:
            problems.append(
                Problem(
                    file, "", f"expected a JSON object, got {_kind(obj)}", location=f"line {line}"
                )
            )
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            if _skip_ws(text, i + 1) < len(text):
                problems.append(
                    Problem(
                        file,
                        "",
                        "unexpected text after the JSON array",
                        location=f"line {text.count(chr(10), 0, i) + 1}",
                    )
                )
            return
        problems.append(
            Problem(
                file,
                "",
                "expected ',' or ']' in the JSON array",
                location=f"line {text.count(chr(10), 0, i) + 1}",
            )
        )
        return
    problems.append(
        Problem(
            file, "", "the JSON array is not closed", location=f"line {text.count(chr(10)) + 1}"
        )
    )


def read_parquet(
    path: Path, problems: list[Problem], required: tuple[str, ...]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``("row N", record)`` (1-based rows); report missing columns once, up front."""
    import pyarrow.parquet as pq

    file = str(path)
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises many types for a broken file
        problems.append(Problem(file, "", f"not a readable parquet file ({exc})"))
        return
    missing = [c for c in required if c not in table.column_names]
    for c in missing:
        problems.append(Problem(file, c, "missing column"))
    if missing:
        return
    for n, rec in enumerate(table.to_pylist(), start=1):
        yield f"row {n}", {k: _plain(v) for k, v in rec.items()}


def _plain(v: Any) -> Any:
    """pyarrow map columns arrive as lists of (key, value) tuples: make them dicts."""
    if isinstance(v, list) and v and all(isinstance(e, tuple) and len(e) == 2 for e in v):
        return {k: _plain(x) for k, x in v}
    if isinstance(v, list):
        return [_plain(e) for e in v]
    if isinstance(v, float) and math.isnan(v):
        return v
    return v


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _pos(exc: Exception, default: int) -> int:
    return getattr(exc, "pos", default) or default


def _json_reason(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    msg = getattr(exc, "msg", None)
    return msg if msg else str(exc).split(":")[0]
