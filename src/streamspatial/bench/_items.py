"""Checks shared by every adapter: options, evidence, duplicate ids, building the Item, and
reading a file whose every record makes its own items."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from streamspatial.core.schema import LETTERS, Item, Option

from ._files import read_records
from ._rows import Row, check_time, parse_hms
from .base import LoadResult

# An option is an image only when it is a base64 data URL; other text stays text.
_IMAGE_URL = re.compile(r"^data:image/[a-z0-9.+-]+;base64,", re.IGNORECASE)
_LETTERED = re.compile(r"^\s*([A-Ga-g])\s*[.):]\s+(.*)$", re.DOTALL)


def option_from(letter: str, content: str) -> Option:
    """Text, or an inline image (``data:image/png;base64,...``) for map options (OVO-S 4.3)."""
    if _IMAGE_URL.match(content):
        return Option(letter=letter, image=content)
    return Option(letter=letter, text=content)


def options_from_map(row: Row, field: str, raw: dict[str, Any]) -> tuple[Option, ...] | None:
    """Options keyed by letter; letters must run A, B, C, … without gaps, at most up to G."""
    ok = True
    keys = [str(k).strip() for k in raw]
    beyond = [k for k in keys if k not in LETTERS]
    if beyond:
        row.problem(field, f"expected option letters A–G, got {', '.join(beyond)}")
        return None
    expected = list(LETTERS[: len(keys)])
    if sorted(keys) != expected:
        row.problem(
            field,
            f"expected option letters {', '.join(expected)} without gaps, got "
            f"{', '.join(sorted(keys))}",
        )
        return None
    out = []
    for k, v in sorted(zip(keys, raw.values(), strict=True)):
        if not isinstance(v, str) or not v.strip():
            row.problem(f"{field}.{k}", "expected non-empty option text or a data:image URL")
            ok = False
            continue
        option = option_from(k, v)
        if option.image is not None and not _is_base64(option.image.partition(",")[2]):
            row.problem(f"{field}.{k}", "expected a data:image URL with base64 content")
            ok = False
            continue
        out.append(option)
    return tuple(out) if ok else None


def _is_base64(payload: str) -> bool:
    try:
        base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(payload)


def options_from_list(row: Row, field: str, raw: list[Any]) -> tuple[Option, ...] | None:
    """Options as a list: ``[[label, content], …]`` pairs, ``{"key", "value"}`` records (a
    parquet map written as a list of structs), or plain strings lettered in order."""
    if raw and all(isinstance(e, dict) and {"key", "value"} <= set(e) for e in raw):
        raw = [[e["key"], e["value"]] for e in raw]
    if raw and all(isinstance(e, list | tuple) and len(e) == 2 for e in raw):
        as_map: dict[str, Any] = {}
        for label, content in raw:
            key = str(label).strip().rstrip(".):")
            if key in as_map:
                row.problem(field, f"expected each option letter once, got {key} twice")
                return None
            as_map[key] = content
        return options_from_map(row, field, as_map)
    if len(raw) > len(LETTERS):
        row.problem(field, f"expected at most {len(LETTERS)} options (A–G), got {len(raw)}")
        return None
    as_map = {}
    for i, e in enumerate(raw):
        if not isinstance(e, str):
            row.problem(f"{field}[{i}]", "expected option text")
            return None
        m = _LETTERED.match(e)
        # "A. chair" strings carry their own letter; it must be the one their position gives.
        if m is not None and m.group(1).upper() == LETTERS[i]:
            e = m.group(2).strip()
        as_map[LETTERS[i]] = e
    return options_from_map(row, field, as_map)


def interval(row: Row, field: str, raw: Any) -> tuple[float, float] | None:
    """An evidence interval in any released spelling.

    ``[start, end]`` (seconds or ``"HH:MM:SS"``), ``{"start", "end"}`` or
    ``"HH:MM:SS-HH:MM:SS"``.
    """
    if isinstance(raw, dict) and set(raw) >= {"start", "end"}:
        raw = [raw["start"], raw["end"]]
    if isinstance(raw, str) and "-" in raw:
        raw = [p.strip() for p in raw.split("-", 1)]
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        row.problem(field, f"expected an interval [start, end] in seconds, got {raw!r}")
        return None
    ends = []
    for v in raw:
        if isinstance(v, str):
            t = parse_hms(v)
            if t is None:
                row.problem(field, f"expected a time in seconds or HH:MM:SS, got {v!r}")
                return None
            ends.append(t)
        else:
            t = check_time(row, field, v)
            if t is None:
                return None
            ends.append(t)
    start, end = ends
    if end < start:
        row.problem(field, f"expected start ≤ end, got [{start:g}, {end:g}]")
        return None
    return (start, end)


def evidence_before(
    row: Row, field: str, spans: list[tuple[float, float]], query_time: float
) -> bool:
    """Evidence must start no later than its query time.

    An interval may end at or after the query time: releases annotate ``[t_start, t_q]``
    (OVO-S-Bench) or past it (its paper's own Figure 11 example), and the prefix rule governs
    the frames shown, not the annotation.  Evidence that *starts* after the question is about
    the future, which no streaming item can ask, so that is reported.
    """
    ok = True
    for start, end in spans:
        if start > query_time:
            row.problem(
                field,
                f"expected evidence starting no later than the query time "
                f"{query_time:g} s, got [{start:g}, {end:g}]",
            )
            ok = False
    return ok


def build_item(row: Row, **fields: Any) -> Item | None:
    """Construct the Item, whose ``id`` is the row's own (:attr:`Row.item_id`, the id its
    problems name) unless ``fields`` give another; a schema rule we did not check ourselves
    still becomes a Problem."""
    if not row.ok:
        return None
    try:
        return Item(**{"id": row.item_id, **fields})
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"])
            row.problem(where, err["msg"].removeprefix("Value error, "))
        return None


class IdRegistry:
    """Reports an id seen twice, naming where it was first seen."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def check(self, row: Row, field: str, item_id: str) -> bool:
        if item_id in self.seen:
            row.problem(field, f"duplicate id; first used at {self.seen[item_id]}")
            return False
        self.seen[item_id] = row.location
        return True

    def item_id(self, row: Row) -> str | None:
        """The row's ``id`` (None when missing or malformed), checked unique; later problems
        of the row name it."""
        item_id = row.ident("id")
        row.item_id = item_id
        if item_id is not None:
            self.check(row, "id", item_id)
        return item_id


def load_items(
    path: Path,
    item_of: Callable[[Row], Item | list[Item] | None],
    columns: tuple[str, ...] | None = None,
) -> LoadResult:
    """Every record of a release (parquet holding ``columns`` when given, else JSON in any
    layout: :func:`~._files.read_records`) read as the items ``item_of`` makes of it — one, a
    list (OVO-Bench's forward probes) or None for a record with problems — each located at its
    record."""
    result = LoadResult()
    for loc, rec in read_records(path, result.problems, columns):
        made = item_of(Row(rec, str(path), loc, result.problems))
        for item in made if isinstance(made, list) else [made]:
            result.add(item, loc)
    return result
