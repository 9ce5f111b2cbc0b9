"""A persistent response cache: re-running a model costs no calls and reproduces its answers.

sqlite3 in WAL mode: one file, durable after each commit, safe for several processes (runs
sharing a cache) and for the threads of one.  Keys are ``ModelRequest.content_hash(model)``,
so any change to the model name, the content (text, frame bytes, frame times) or the
generation parameters is a miss.  Only successful responses are stored: a failed call is
retried on the next run rather than replayed.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.secrets import redact
from streamspatial.models.types import Backend, ModelRequest, ModelResponse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseCache:
    """Key → successful :class:`ModelResponse`, persisted in one sqlite file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, timeout=30.0, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise StreamspatialError(
                f"{self.path}: cannot open the response cache: {exc}"
            ) from None
        self._lock = threading.Lock()

    def get(self, key: str) -> ModelResponse | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, latency_s FROM responses "
                "WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        return ModelResponse(
            text=row[0],
            prompt_tokens=row[1],
            completion_tokens=row[2],
            latency_s=row[3],
            cached=True,
        )

    def put(self, key: str, model: str, response: ModelResponse) -> None:
        if response.error is not None:
            raise ValueError("only successful responses are cached")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    redact(response.text),  # whatever backend wrote it: no secret on disk
                    response.prompt_tokens,
                    response.completion_tokens,
                    response.latency_s,
                    time.time(),
                ),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


class CachedBackend:
    """Wraps a backend: a hit returns ``cached=True`` without a call; misses are stored.

    Identical requests in flight at the same time share one call.
    """

    def __init__(self, inner: Backend, cache: ResponseCache):
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.stats = CacheStats()
        self._inflight: dict[str, asyncio.Future[ModelResponse]] = {}

    def __repr__(self) -> str:
        return f"CachedBackend({self.inner!r}, cache={str(self.cache.path)!r})"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        key = request.content_hash(self.inner.name)
        hit = self.cache.get(key)
        if hit is not None:
            self.stats.hits += 1
            return hit
        pending = self._inflight.get(key)
        if pending is not None:
            self.stats.hits += 1
            response = await asyncio.shield(pending)
            return replace(response, cached=response.error is None)
        self.stats.misses += 1
        future: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            response = await self.inner.generate(request)
            if response.error is None:
                self.cache.put(key, self.inner.name, response)
            future.set_result(response)
            return response
        except BaseException as exc:
            if isinstance(exc, Exception):
                future.set_exception(exc)
                future.exception()  # mark retrieved: nobody may be waiting
            else:
                future.cancel()
            raise
        finally:
            del self._inflight[key]

    async def aclose(self) -> None:
        await self.inner.aclose()
