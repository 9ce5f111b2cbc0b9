"""Replies a model made elsewhere, read from the layouts the field's code writes them in.

``streamspatial score`` (:mod:`streamspatial.eval.importer`) turns them into an ordinary run
folder; this package reads them: one module per layout (:data:`SOURCES`), the types they share
(:mod:`.types`) and the pairing with the release's query points (:mod:`.pairing`).  A layout
is named by ``--from`` or recognised by :func:`detect_source`; folders given as predictions
are searched for the layout's files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from streamspatial.core.errors import StreamspatialError

from .lmms_eval import LmmsEvalSamples
from .ovobench import OVOBenchResults
from .pairing import Pairing, pair
from .plain import PlainReplies
from .types import Release, Reply, ReplySource
from .vlmevalkit import VLMEvalKitPredictions

SOURCES: dict[str, ReplySource] = {
    s.name: s
    for s in (OVOBenchResults(), LmmsEvalSamples(), VLMEvalKitPredictions(), PlainReplies())
}
FROM = ("auto", *SOURCES)


def get_source(name: str) -> ReplySource:
    try:
        return SOURCES[name]
    except KeyError:
        raise StreamspatialError(f"--from {name!r}: expected one of {', '.join(FROM)}") from None


def prediction_files(paths: Sequence[Path], source: str = "auto") -> tuple[ReplySource, list[Path]]:
    """The layout of ``paths`` and every file of it they hold (a folder: its files of that
    layout, searched recursively, in name order); one line for anything unreadable, a file of
    no known layout, or files of two layouts."""
    wanted = list(SOURCES.values()) if source == "auto" else [get_source(source)]
    found: list[tuple[Path, ReplySource]] = []
    for path in paths:
        if not path.exists():
            raise StreamspatialError(f"{path}: not found; expected a predictions file or folder")
        if path.is_dir():
            inside = [
                (f, s)
                for f in sorted(path.rglob("*"))
                if f.is_file() and not f.name.startswith(".")
                for s in [_layout(f, wanted)]
                if s is not None
            ]
            if not inside:
                raise StreamspatialError(f"{path}: holds no predictions file ({_names(wanted)})")
            found += inside
            continue
        layout = _layout(path, wanted)
        if layout is None:
            raise StreamspatialError(f"{path}: not a predictions file of {_names(wanted)}")
        found.append((path, layout))
    layouts = {s.name for _, s in found}
    if len(layouts) > 1:
        raise StreamspatialError(
            f"--predictions: files of several layouts ({', '.join(sorted(layouts))}); import "
            "one at a time, or pass --from"
        )
    return found[0][1], [f for f, _ in found]


def _layout(path: Path, wanted: list[ReplySource]) -> ReplySource | None:
    try:
        return next((s for s in wanted if s.sniff(path)), None)
    except OSError as exc:
        raise StreamspatialError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _names(sources: list[ReplySource]) -> str:
    return " / ".join(s.title for s in sources)


__all__ = [
    "FROM",
    "SOURCES",
    "Pairing",
    "Release",
    "Reply",
    "ReplySource",
    "get_source",
    "pair",
    "prediction_files",
]
