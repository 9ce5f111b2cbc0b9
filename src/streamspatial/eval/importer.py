"""``streamspatial score``: replies a model made elsewhere, scored into an ordinary run folder.

Why: the first question a harness's user asks is whether its numbers are the leaderboard's,
and the only way to show it is on the replies the leaderboard was computed from (OVO-Bench
ships its models' replies).  So the replies are read in their own layout
(:mod:`.replies`), paired with the release's query points (repairs named), and each becomes the
record ``run`` would have written for it: the raw reply, every scorer's verdict in
``extra["scorers"]``, the run scorer's in the record's own fields.  ``report``, ``report
--scorer official|paper``, ``compare`` and the HTML report then read it as any run.

A query point without a reply gets a record too, marked ``missing``: its official verdict is
:data:`~streamspatial.scoring.scorers.NO_REPLY`, so the official tables leave it out (every
official scorer scores the replies it is given, nothing else), and the paper's counts it
wrong.  ``run.json`` says the run was imported, from which files
(their SHA-256) and as which model.  Everything is read and paired before anything is written,
and the folder appears whole (written beside it, then renamed): bad input leaves no folder.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamspatial.bench.registry import check_benchmark
from streamspatial.core.errors import InputError, Problem, StreamspatialError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.eval.judge import Judge
from streamspatial.eval.replies import Release, Reply, pair, prediction_files
from streamspatial.eval.results import (
    PREDICTIONS,
    RUN_JSON,
    Record,
    _safe_argv,
    lock_holder,
    now_iso,
    package_versions,
    write_json_atomic,
)
from streamspatial.grading.verdict import Scored
from streamspatial.scoring.scorers import (
    JUDGE_KEY,
    NO_REPLY,
    SCORER_KEY,
    SCORERS_KEY,
    default_scorer,
    score_all,
)

IMPORTED = "imported"  # the agent name of imported records, and run.json's key


@dataclass(frozen=True)
class Imported:
    """What an import did: the folder, the counts, and the lines a user should read."""

    out: Path
    source: str
    model: str
    scorer: str
    files: int
    replies: int
    query_points: int
    repairs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    missing: tuple[str, ...] = field(default=())


def import_predictions(
    data: Path,
    predictions: Sequence[Path],
    out: Path,
    *,
    source: str = "auto",
    model_name: str | None = None,
    format: str = "auto",
    force: bool = False,
    judge: Judge | None = None,
) -> Imported:
    """Score ``predictions`` (files or folders, of one layout) against the release ``data``
    into the run folder ``out``; one :class:`StreamspatialError` for any bad input, before
    anything is written."""
    adapter, loaded = check_benchmark(Path(data), format)
    if loaded.problems:
        raise InputError(loaded.problems)
    release = Release(Path(data), adapter, loaded.items, loaded.locations)
    layout, files = prediction_files([Path(p) for p in predictions], source)
    problems: list[Problem] = []
    replies: list[Reply] = [r for f in files for r in layout.read(f, release, problems)]
    if problems:
        raise InputError(problems)
    if not replies:
        raise StreamspatialError(f"--predictions: no replies in {len(files)} file(s)")
    model = model_name or _model_from(layout, files)
    paired = pair(release, replies)
    scorer = default_scorer(release.items)
    said = asyncio.run(_judged(judge, adapter, release.items, paired.replies)) if judge else {}
    records = [
        _record(
            item,
            q,
            paired.replies.get((item.id, q.index)),
            model,
            layout.name,
            scorer,
            said.get((item.id, q.index)),
        )
        for item in release.items
        for q in item.queries
    ]
    hashes = [{"path": str(f), "sha256": _sha256(f)} for f in files]
    missing = [f"{i}#{k}" for i, k in paired.missing]
    meta = _run_json(
        release,
        layout.name,
        layout.title,
        model,
        model_name,
        scorer,
        hashes,
        paired.repairs,
        paired.notes,
        missing,
        records,
    )
    _write_folder(Path(out), meta, records, force=force)
    return Imported(
        out=Path(out),
        source=layout.name,
        model=model,
        scorer=scorer,
        files=len(files),
        replies=len(paired.replies),
        query_points=len(records),
        repairs=tuple(paired.repairs),
        notes=tuple(paired.notes),
        missing=tuple(missing),
    )


def _model_from(layout: Any, files: list[Path]) -> str:
    names = sorted({n for f in files if (n := layout.model_name(f))})
    if not names:
        raise StreamspatialError(
            f"--model-name: {layout.title} files do not name their model; pass --model-name NAME"
        )
    if len(names) > 1:
        raise StreamspatialError(
            f"--predictions: the files name several models ({', '.join(names)}); import one "
            "model at a time, or pass --model-name"
        )
    return names[0]


async def _judged(
    judge: Judge, adapter: Any, items: list[Item], replies: dict[tuple[str, int], Reply]
) -> dict[tuple[str, int], dict[str, Any]]:
    """The judge's say on every imported reply of a judged item (``score --judge``), asked
    concurrently; nothing for an item scored by rule or without a reply."""
    keys, calls = [], []
    for item in items:
        for q in item.queries:
            reply = replies.get((item.id, q.index))
            if reply is not None:
                keys.append((item.id, q.index))
                calls.append(judge.verdict(adapter, item, q, reply.text))
    try:
        said = await asyncio.gather(*calls)
    finally:
        await judge.close()
    return {k: v for k, v in zip(keys, said, strict=True) if v is not None}


def _record(
    item: Item,
    query: QueryPoint,
    reply: Reply | None,
    model: str,
    source: str,
    scorer: str,
    judge: dict[str, Any] | None = None,
) -> Record:
    """The record ``run`` would write for this reply (or a ``missing`` one without)."""
    if reply is None:
        verdicts = {
            "official": Scored(None, None, False, NO_REPLY),
            "paper": Scored(None, 0.0, False, "paper"),
        }
        origin: dict[str, Any] = {"missing": True}
    else:
        verdicts = score_all(item, query, reply.text, judge)
        origin = {"from": reply.where, **({"null_reply": True} if reply.text is None else {})}
    own = verdicts[scorer]
    return Record.of_query(
        item,
        query,
        own,
        frame_times=[],
        policy=source,
        model=model,
        raw_output="" if reply is None or reply.text is None else reply.text,
        latency_s=0.0,
        agent=IMPORTED,
        extra={
            SCORER_KEY: scorer,
            SCORERS_KEY: {k: v.as_dict() for k, v in verdicts.items()},
            IMPORTED: origin,
            **({JUDGE_KEY: judge} if judge is not None else {}),
        },
    )


def _run_json(
    release: Release,
    source: str,
    title: str,
    model: str,
    model_name: str | None,
    scorer: str,
    files: list[dict[str, str]],
    repairs: list[str],
    notes: list[str],
    missing: list[str],
    records: list[Record],
) -> dict[str, Any]:
    adapter = release.adapter
    data_sha = _sha256(release.path)
    config = {
        "data": str(release.path),
        "format": adapter.name,
        "model": model,
        "agent": IMPORTED,
        "policy": source,
        "scorer": scorer,
    }
    blob = json.dumps(
        {"config": config, "data": data_sha, "files": [f["sha256"] for f in files]}, sort_keys=True
    )
    now = now_iso()
    return {
        "config": config,
        "config_hash": hashlib.sha256(blob.encode()).hexdigest()[:16],
        "versions": package_versions(),
        "argv": _safe_argv(),
        "started_at": now,
        "resumed_at": [],
        "ended_at": now,
        "status": "complete",
        IMPORTED: {
            "from": source,
            "layout": title,
            "model_name": model,
            "model_named_by": "--model-name" if model_name else "the files",
            "data_sha256": data_sha,
            "files": files,
            "repairs": repairs,
            "notes": notes,
            "missing": missing,
        },
        "benchmark": {
            "format": adapter.name,
            "table": adapter.scoring.table,
            "invalid": adapter.scoring.invalid,
            "number_metric": adapter.scoring.number_metric,
            "scorer": scorer,
            "official": adapter.scoring.official,
            "clips": "prefix",
            "history": "own",
            "items": len(release.items),
            "query_points": len(records),
        },
        "offline": False,
        "counts": {
            "records": len(records),
            "errors_total": 0,
            "invalid_total": sum(1 for r in records if not r.valid),
            "missing": len(missing),
        },
    }


def _write_folder(out: Path, meta: dict[str, Any], records: list[Record], *, force: bool) -> None:
    """Write the folder beside ``out`` and rename it into place: whole or not at all."""
    if out.exists() and not out.is_dir():
        raise StreamspatialError(f"{out}: is a file; expected a run folder to write")
    if out.is_dir() and any(out.iterdir()):
        if lock_holder(out) is not None:
            raise StreamspatialError(f"{out}: a run is writing into it; give --out another folder")
        if not force and not _same_import(out, meta):
            raise StreamspatialError(f"{out}: holds another run; use a new --out folder or --force")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # a run folder as `run` makes it, not mkdtemp's 0700
    try:
        with (tmp / PREDICTIONS).open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(record.to_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        write_json_atomic(tmp / RUN_JSON, meta)
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StreamspatialError(f"{out}: cannot write the run folder ({exc.strerror})") from None


def _same_import(out: Path, meta: dict[str, Any]) -> bool:
    """The folder holds this very import (same release, files and model): redo it in place."""
    try:
        old = json.loads((out / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(old, dict) and old.get("config_hash") == meta["config_hash"]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = ["IMPORTED", "Imported", "import_predictions"]
