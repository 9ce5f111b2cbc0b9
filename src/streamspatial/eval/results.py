"""The durable results store of one run folder: ``predictions.jsonl`` and ``run.json``.

Why this shape: a run can be killed at any instant (SIGKILL, OOM, a laptop lid), and the only
acceptable outcome is that re-running the same command finishes with exactly the scores an
uninterrupted run gives.  So every finished query point is one JSON line, written in a single
``write`` and flushed to the operating system at once (a killed process loses nothing it
recorded), then fsynced by a background thread within milliseconds — one fsync covering every
line written meanwhile, so a disk's fsync latency never stalls the event loop that sends the
requests (a power cut may lose those last milliseconds, never a line's integrity).  The
identity of a record is ``(item_id, query_index)``; on open, a last line cut short by a kill is
dropped (it was never acknowledged) while every complete line is kept.  ``run.json`` is
replaced atomically (write to a temporary file, fsync, rename): always the old or the new one.

Over 400 lines on purpose: the record schema, its writer and its reader are one durability
argument (what a killed run leaves, how a resume reads it) and are checked together.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamspatial.core.errors import InputError, Problem, StreamspatialError
from streamspatial.core.secrets import redact, redact_obj

if TYPE_CHECKING:
    from streamspatial.core.schema import Item, QueryPoint
    from streamspatial.grading.verdict import Scored

PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"
LOCK = "run.lock"


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

    @classmethod
    def of_query(cls, item: Item, query: QueryPoint, own: Scored, **rest: Any) -> Record:
        """The fields the item, its query point and the run scorer's verdict fix, filled in one
        place for a query point answered here (``runner``) and a reply imported (``importer``),
        so the two records read alike; ``rest``: how it was answered."""
        return cls(
            item_id=item.id,
            query_index=query.index,
            t_q=query.time,
            benchmark=item.benchmark,
            task=item.task.model_dump(),
            answer_type=item.answer_type.value,
            extracted=own.extracted,
            answer=query.answer,
            score=own.score,
            valid=own.valid,
            source=item.source,
            **rest,
        )

    @property
    def key(self) -> tuple[str, int]:
        return (self.item_id, self.query_index)

    def to_json(self) -> str:
        """One line, every string redacted (a key a server echoed never reaches the disk)."""
        return json.dumps(redact_obj(asdict(self)), ensure_ascii=False, separators=(",", ":"))

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
        self._dirty = threading.Event()
        self._closing = False
        self._syncer = threading.Thread(
            target=self._sync_loop, name="streamspatial-fsync", daemon=True
        )
        self._syncer.start()

    def _sync_loop(self) -> None:
        while True:
            self._dirty.wait()
            self._dirty.clear()
            with contextlib.suppress(OSError, ValueError):  # closed under us: close() syncs
                os.fsync(self._fh.fileno())
            if self._closing:
                return

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
        self._dirty.set()  # fsynced by the background thread
        self._records[record.key] = record

    def close(self) -> None:
        """Wait for the last fsync, then close; safe to call twice."""
        if not self._closing:
            self._closing = True
            self._dirty.set()
            self._syncer.join()
        with contextlib.suppress(OSError, ValueError):
            self._fh.flush()
            os.fsync(self._fh.fileno())
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
    """Replace ``path`` atomically with ``payload`` (every string redacted)."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(redact_obj(payload), fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_run_json(run_dir: Path) -> dict[str, Any]:
    path = run_dir / RUN_JSON
    if not path.exists():
        raise StreamspatialError(f"{run_dir}: not a run folder (no {RUN_JSON})")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(
            Problem(file=str(path), field="", expected=f"expected JSON ({exc})")
        ) from None
    if isinstance(meta, dict) and meta.get("status") == "running" and lock_holder(run_dir) is None:
        # Only a process holding the folder's lock may be running it: this one was killed
        # (SIGKILL, power loss) before it could say so.
        meta["status"] = "killed"
        meta.setdefault("reason", "the process ended without finishing (killed); re-run to resume")
    return meta


def lock_holder(run_dir: Path) -> int | None:
    """The PID of the process holding ``run_dir``'s lock, or None when nobody holds it."""
    from filelock import FileLock, Timeout

    path = Path(run_dir) / LOCK
    if not path.exists():
        return None
    probe = FileLock(path, timeout=0, is_singleton=False)
    try:
        probe.acquire()
    except Timeout:
        return _lock_pid(path) or -1
    except OSError:
        return None
    probe.release()
    return None


def _lock_pid(path: Path) -> int | None:
    try:
        first = path.read_text(encoding="utf-8").split()
        return int(first[0]) if first else None
    except (OSError, ValueError):
        return None


def _folder_error(path: Path, exc: OSError) -> StreamspatialError:
    reason = exc.strerror or type(exc).__name__
    return StreamspatialError(f"{path}: cannot use as a run folder: {reason}")


@dataclass
class RunFolder:
    """A run folder: one writer at a time, checks a resume matches the original configuration,
    keeps ``run.json``.

    :meth:`open` takes an exclusive lock on ``run.lock`` (``flock`` through ``filelock``) and
    keeps it until :meth:`close`: a second process opening the same folder is refused with one
    line naming the folder and the holder's PID, so two runs can never interleave records.  The
    OS drops the lock when its process dies, however it dies, so a killed run never leaves a
    stale lock behind.
    """

    path: Path
    _lock: Any = field(default=None, repr=False, compare=False)

    @property
    def predictions(self) -> Path:
        return self.path / PREDICTIONS

    def lock(self) -> None:
        """Take the folder's exclusive lock (no waiting); refuse when another process holds it."""
        from filelock import FileLock, Timeout

        if self._lock is not None:
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock = FileLock(self.path / LOCK, timeout=0, is_singleton=False)
        except OSError as exc:
            raise _folder_error(self.path, exc) from None
        try:
            lock.acquire()
        except Timeout:
            pid = _lock_pid(self.path / LOCK)
            who = f"process {pid}" if pid else "another process"
            raise StreamspatialError(
                f"{self.path}: in use by {who}, which is running into this folder; wait for it "
                "to finish, or give this run another --out"
            ) from None
        except OSError as exc:
            raise _folder_error(self.path, exc) from None
        try:  # who holds it, for the refusal above and for readers of run.json
            with open(self.path / LOCK, "r+", encoding="utf-8") as fh:
                fh.truncate(0)
                fh.write(f"{os.getpid()}\n")
        except OSError:
            pass
        self._lock = lock

    def close(self) -> None:
        """Release the lock (the OS does it too when the process ends)."""
        if self._lock is not None:
            with contextlib.suppress(OSError):
                (self.path / LOCK).write_text("", encoding="utf-8")
            self._lock.release()
            self._lock = None

    def __enter__(self) -> RunFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(
        self,
        config: dict[str, Any],
        config_hash: str,
        *,
        force: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Lock, then create or resume; refuse a different configuration unless ``force``.

        With ``force`` and a different configuration, the old predictions are set aside as
        ``predictions.jsonl.<old-hash>.bak`` rather than mixed with the new run.
        """
        self.lock()
        try:
            return self._open(config, config_hash, force=force, extra=extra)
        except OSError as exc:
            raise _folder_error(self.path, exc) from None

    def _open(
        self,
        config: dict[str, Any],
        config_hash: str,
        *,
        force: bool,
        extra: dict[str, Any] | None,
    ) -> dict[str, Any]:
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
            "pid": os.getpid(),
            **(extra or {}),
        }
        write_json_atomic(self.path / RUN_JSON, meta)
        return meta

    def note(self, meta: dict[str, Any], **fields: Any) -> None:
        """Add what is learnt once the run is under way (where its model was placed) to
        ``meta``, in place (so :meth:`finish` keeps it), and to ``run.json`` now."""
        meta.update(fields)
        write_json_atomic(self.path / RUN_JSON, meta)

    def finish(
        self,
        meta: dict[str, Any],
        status: str,
        counts: dict[str, int],
        *,
        reason: str | None = None,
    ) -> None:
        """Write the final state: ``complete``, ``errors``, ``failed`` or ``interrupted``
        (the last two with the one-line ``reason``)."""
        meta = {**meta, "status": status, "ended_at": now_iso(), "counts": counts}
        meta.pop("reason", None)
        if reason is not None:
            meta["reason"] = redact(reason)
        write_json_atomic(self.path / RUN_JSON, meta)


_SECRET_FLAGS = ("--api-key", "--key", "--token")


def _safe_argv() -> list[str]:
    """The command line as typed, with anything that looks like a secret value removed."""
    out: list[str] = []
    skip = False
    for arg in map(redact, sys.argv):
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
