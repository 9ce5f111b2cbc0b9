"""Reading benchmark files (JSONL, JSON arrays, parquet) into ``(location, record)`` pairs.

Every reader reports what is wrong with the file itself (a byte-order mark, a line that is not
JSON, a missing parquet column) as a :class:`~streamspatial.core.errors.Problem` and keeps
reading, so one run of ``validate`` lists every problem.  Locations are ``"line N"`` or
``"row N"`` so a problem points at the exact place in the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from streamspatial.core.errors import Problem

from ._rows import _kind

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
            return _annotation_keys(obj) or set(obj)
    wrapped = _annotations_object(path)  # a pretty-printed {"annotations": [...]} file
    return _annotation_keys(wrapped) if wrapped is not None else set()


def _annotation_keys(obj: dict[str, Any]) -> set[str]:
    """Keys of the first record of a ``{"annotations": [...]}`` file, else empty."""
    records = obj.get("annotations")
    if set(obj) == {"annotations"} and isinstance(records, list) and records:
        first = records[0]
        return set(first) if isinstance(first, dict) else set()
    return set()


def _annotations_object(path: Path) -> dict[str, Any] | None:
    """The whole file as one JSON object holding an ``annotations`` list, else None.

    OVO-S-Bench's loader accepts this wrapping besides a bare JSON array.
    """
    text = path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    if not text.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and isinstance(obj.get("annotations"), list):
        return obj
    return None


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


def write_jsonl(records: Iterable[dict[str, Any]], path: Path) -> None:
    """One JSON object a line, UTF-8 unescaped (the released files' own layout)."""
    with Path(path).open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_json_array(records: list[dict[str, Any]], path: Path) -> int:
    """Write ``records`` as one indented JSON array (the layout of releases that ship one),
    through a temporary file so a reader never sees half of it; returns the count."""
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    tmp.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return len(records)


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


def read_json_records(path: Path, problems: list[Problem]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Records of a JSON file in any layout a release uses: one object per line (JSONL), a
    top-level array of objects, or one object wrapping them as ``{"annotations": [...]}``."""
    head = path.read_bytes()[:4096].removeprefix(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"["):
        yield from read_json_array(path, problems)
        return
    wrapped = _annotations_object(path)
    if wrapped is None:
        yield from read_jsonl(path, problems)
        return
    _bytes_without_bom(path, problems)  # a byte-order mark is still worth one line
    for i, rec in enumerate(wrapped["annotations"]):
        loc = f"annotations[{i}]"
        if isinstance(rec, dict):
            yield loc, rec
        else:
            problems.append(
                Problem(str(path), "", f"expected a JSON object, got {_kind(rec)}", location=loc)
            )


def read_records(
    path: Path, problems: list[Problem], columns: tuple[str, ...] | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """A release's records, from parquet (``.parquet`` / ``.pq``, which must hold ``columns``)
    when the benchmark publishes one (``columns`` given), else from JSON in any layout
    (:func:`read_json_records`)."""
    if columns is not None and path.suffix.lower() in (".parquet", ".pq"):
        return read_parquet(path, problems, columns)
    return read_json_records(path, problems)


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
