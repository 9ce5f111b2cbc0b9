"""The durable results store of one run folder: ``predictions.jsonl`` and ``run.json``.

Why this shape: a run can be killed at any instant (SIGKILL, OOM, a laptop lid), and the only
acceptable outcome is that re-running the same command finishes with exactly the scores an
uninterrupted run gives.  So every finished query point is one JSON line, written in a single
``write`` and flushed + fsynced before the next is recorded; the identity of a record is
``(item_id, query_index)``; and on open, a last line cut short by a kill is dropped (it was never
acknowledged) while every complete line is kept.  ``run.json`` is replaced atomically (write to
a temporary file, fsync, rename), so it is always either the old or the new version.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from streamspatial.core.errors import InputError, Problem, StreamspatialError

PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"


@dataclass
class Record:
    """One finished query point, exactly as stored on one line of ``predictions.jsonl``."""

    item_id: str
    query_index: int
    t_q: float
    benchmark: str
    task: dict[str, Any]
    answer_type: str
    frame_times: list[float]
    policy: str
    model: str
    raw_output: str
    extracted: str | float | None
    answer: str | float | None
    score: float | None
    valid: bool
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None
    offline: bool = False
    agent: str = "policy"
    cached: bool = False
    source: str | None = None
    diagnostics: dict[str, Any] | None = None
    actions: list[Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        return (self.item_id, self.query_index)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Record:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in raw.items() if k in known})


def _repair_tail(path: Path) -> int:
    """Cut a partial last line (no trailing newline) left by a kill; return bytes dropped."""
    size = path.stat().st_size
    if size == 0:
        return 0
    with path.open("rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        # Walk back to the last newline; everything after it was never acknowledged.
        pos = size - 1
        block = 4096
        keep = 0
        while pos > 0:
            start = max(0, pos - block)
            fh.seek(start)
            chunk = fh.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            pos = start
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


def read_records(path: Path) -> list[Record]:
    """Every complete record in a predictions file (read-only; the last record wins per key)."""
    if not path.exists():
        return []
    by_key: dict[tuple[str, int], Record] = {}
    with path.open("rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    if data and not data.endswith(b"\n"):
        lines = lines[:-1]  # partial tail from a kill: ignore when only reading
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = Record.from_dict(json.loads(line))
        except (ValueError, TypeError) as exc:
            raise InputError(
                Problem(
                    file=str(path),
                    location=f"line {lineno}",
                    field="",
                    expected=f"expected one JSON record per line ({exc})",
                )
            ) from None
        by_key[rec.key] = rec
    return list(by_key.values())


class PredictionWriter:
    """Append-only, crash-safe writer of ``predictions.jsonl``."""

    def __init__(self, path: Path):
        self.path = path
        self.repaired_bytes = _repair_tail(path) if path.exists() else 0
        self._records: dict[tuple[str, int], Record] = {r.key: r for r in read_records(path)}
        self._fh = path.open("a", encoding="utf-8")

    @property
    def records(self) -> dict[tuple[str, int], Record]:
        return self._records

    def done(self, key: tuple[str, int], *, retry_errors: bool = False) -> bool:
        """Finished; with ``retry_errors`` a record holding an error does not count."""
        rec = self._records.get(key)
        return rec is not None and not (retry_errors and rec.error is not None)

    def append(self, record: Record) -> None:
        """Write one record durably.  Only a record holding an error may be superseded (by a
        retry, ``--retry-errors``); readers keep the last line of a key."""
        old = self._records.get(record.key)
        if old is not None and old.error is None:
            raise RuntimeError(f"duplicate record for {record.key}")  # a runner bug
        self._fh.write(record.to_json() + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._records[record.key] = record

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._fh.close()

    def __enter__(self) -> PredictionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in (
        "streamspatial",
        "av",
        "numpy",
        "pydantic",
        "httpx",
        "pillow",
        "torch",
        "transformers",
    ):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


def write_json_atomic(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_run_json(run_dir: Path) -> dict[str, Any]:
    path = run_dir / RUN_JSON
    if not path.exists():
        raise StreamspatialError(f"{run_dir}: not a run folder (no {RUN_JSON})")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(
            Problem(file=str(path), field="", expected=f"expected JSON ({exc})")
        ) from None


@dataclass
class RunFolder:
    """A run folder: checks a resume matches the original configuration, keeps ``run.json``."""

    path: Path

    @property
    def predictions(self) -> Path:
        return self.path / PREDICTIONS

    def open(
        self,
        config: dict[str, Any],
        config_hash: str,
        *,
        force: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create or resume; refuse a different configuration unless ``force``.

        With ``force`` and a different configuration, the old predictions are set aside as
        ``predictions.jsonl.<old-hash>.bak`` rather than mixed with the new run.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        meta_path = self.path / RUN_JSON
        previous: dict[str, Any] | None = None
        if meta_path.exists():
            previous = read_run_json(self.path)
            old_hash = previous.get("config_hash")
            if old_hash != config_hash:
                if not force:
                    raise StreamspatialError(
                        f"{self.path}: holds a run with a different configuration "
                        f"(hash {old_hash}, now {config_hash}); use a new --out folder or --force"
                    )
                if self.predictions.exists():
                    os.replace(self.predictions, self.path / f"{PREDICTIONS}.{old_hash}.bak")
                previous = None
        elif self.predictions.exists() and self.predictions.stat().st_size > 0 and not force:
            raise StreamspatialError(
                f"{self.path}: has {PREDICTIONS} but no {RUN_JSON}; "
                "use a new --out folder or --force"
            )
        meta = {
            "config": config,
            "config_hash": config_hash,
            "versions": package_versions(),
            "argv": _safe_argv(),
            "started_at": (previous or {}).get("started_at", now_iso()),
            "resumed_at": [*(previous or {}).get("resumed_at", []), now_iso()] if previous else [],
            "ended_at": None,
            "status": "running",
            **(extra or {}),
        }
        write_json_atomic(meta_path, meta)
        return meta

    def finish(self, meta: dict[str, Any], status: str, counts: dict[str, int]) -> None:
        meta = {**meta, "status": status, "ended_at": now_iso(), "counts": counts}
        write_json_atomic(self.path / RUN_JSON, meta)


_SECRET_FLAGS = ("--api-key", "--key", "--token")


def _safe_argv() -> list[str]:
    """The command line as typed, with anything that looks like a secret value removed."""
    out: list[str] = []
    skip = False
    for arg in sys.argv:
        if skip:
            out.append("***")
            skip = False
            continue
        if any(arg.startswith(f + "=") for f in _SECRET_FLAGS):
            out.append(arg.split("=", 1)[0] + "=***")
            continue
        if arg in _SECRET_FLAGS:
            skip = True
        out.append(arg)
    return out


def iter_records(run_dir: Path) -> Iterator[Record]:
    yield from read_records(run_dir / PREDICTIONS)
