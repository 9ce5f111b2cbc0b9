"""OpenAI-compatible chat completions over httpx: the path to vLLM, SGLang, LMDeploy and APIs.

Why httpx and not the ``openai`` package: we need exact control of the body (images as data
URLs built straight from cached JPEG bytes, arbitrary pass-through fields such as
``chat_template_kwargs``), of retries (``Retry-After`` as seconds *or* HTTP date, retries on
malformed bodies and empty ``choices``) and of what reaches logs, and httpx is already a core
dependency.  A failed call never raises: it comes back as ``ModelResponse(error=...)`` so the
runner records it and scores it wrong instead of losing the query.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import logging
import os
import random
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from streamspatial.core import secrets
from streamspatial.core.errors import AttemptFailed, EndpointError, StreamspatialError
from streamspatial.models.body import (  # re-exported: the body's shape lives there
    StreamedBody,
    build_body,
    build_messages,
    data_url,
    streamed_body,
)
from streamspatial.models.types import GenerationParams, ModelRequest, ModelResponse

__all__ = [
    "OpenAIChatBackend",
    "build_body",
    "build_messages",
    "data_url",
    "endpoint_url",
    "parse_retry_after",
]

log = logging.getLogger(__name__)
secrets.guard_logger("httpx")  # it logs each request's URL, credentials and all, at INFO

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = {408, 409, 425, 429}
# What vLLM answers (HTTP 400) to per-request media_io_kwargs without --trust-request-mm-kwargs.
MEDIA_IO_REFUSED = "media_io_kwargs"


class _Secret:
    """Holds the API key so that no repr, log line or traceback local ever shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value
        secrets.register(value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__


@dataclass
class BackendStats:
    """Counters for progress bars and tests: how many HTTP attempts, retries and failures."""

    requests: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


def endpoint_url(base: str, path: str) -> str:
    """``path`` under the base URL's path, keeping its query (``…/v1?api-version=…``)."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + path))


class _Retryable(AttemptFailed):
    def __init__(self, message: str, wait: float | None = None):
        super().__init__(message)
        self.wait = wait


# Statuses that say the server cannot serve this run at all (wrong key, path, model or body
# shape): when the server has not answered once yet, they stop the run (EndpointError).
_FATAL_STATUS = {401, 403, 404, 405, 422}


class OpenAIChatBackend:
    """An async chat-completions client with a concurrency limit and bounded, jittered retries.

    ``base_url`` and ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``.  Without a
    base URL the official API is used and then a key is required; a self-hosted server (vLLM,
    SGLang, ``transformers serve``, …) may run without one, in which case no ``Authorization``
    header is sent.

    ``timeout`` is a *total* deadline per attempt (connect, send, wait, read the whole body): a
    server that drips bytes cannot hold a request longer.  A server that cannot be reached, or
    answers its first request with 401/403/404/405/422, raises :class:`EndpointError` at once
    (retrying a dead or misconfigured endpoint only wastes minutes); so does a server that
    vanishes mid-run, once a request's retries all end refused.  Every other failure comes back
    as ``ModelResponse(error=...)``.  Every text that leaves the backend (answers, errors, log
    lines) is passed through :func:`streamspatial.core.secrets.redact`.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 6,
        params: GenerationParams | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 120.0,
        trace_headers: bool = False,
        headers: dict[str, str] | None = None,
        seed: int | None = None,
        key_env: str = "OPENAI_API_KEY",
        video_metadata: bool = True,
    ):
        if not model:
            raise StreamspatialError("openai backend: expected a model name, as in openai:<model>")
        if concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise StreamspatialError(
                "openai backend: expected concurrency ≥ 1, max_retries ≥ 0 and timeout > 0"
            )
        base = base_url or os.environ.get("OPENAI_BASE_URL") or ""
        key = api_key if api_key is not None else os.environ.get(key_env, "")
        secrets.register_url(base)
        if not base:
            if not key:
                raise StreamspatialError(
                    f"openai:{model}: no API key and no server: set {key_env} to use the OpenAI "
                    "API, or OPENAI_BASE_URL to the URL of a self-hosted server (vLLM, SGLang, "
                    "transformers serve)"
                )
            base = OPENAI_DEFAULT_BASE_URL
        if not base.startswith(("http://", "https://")):
            raise StreamspatialError(
                f"openai:{model}: base URL must start with http:// or https://, "
                f"got {secrets.redact_url(base)!r}"
            )
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base.rstrip("/")
        self._chat_url = endpoint_url(base, "chat/completions")
        self._key = _Secret(key)
        self.params = params or GenerationParams()
        # A request holding a video carries its frames' times as vLLM's media_io_kwargs.
        self.video_metadata = video_metadata
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.trace_headers = trace_headers
        self.stats = BackendStats()
        self.answered = False  # the server has answered once: later refusals may be restarts
        self._rng = random.Random(seed)
        self._sem = asyncio.Semaphore(concurrency)
        self.concurrency = concurrency
        send_headers = {"content-type": "application/json", **(headers or {})}
        if key:
            send_headers["authorization"] = f"Bearer {key}"
        # One pooled HTTP/1.1 keep-alive connection per request in flight: no request waits
        # for a connection, and none pays a new TCP handshake in a long run.
        limits = httpx.Limits(
            max_connections=concurrency,
            max_keepalive_connections=concurrency,
            keepalive_expiry=max(60.0, timeout),
        )
        self._client = httpx.AsyncClient(
            headers=send_headers, timeout=httpx.Timeout(timeout), limits=limits
        )
        # base64 of the frames is made here, not on the event loop, and not in the loop's
        # default executor, which decoding threads may fill.
        self._encoder = concurrent.futures.ThreadPoolExecutor(
            max_workers=2, thread_name_prefix="streamspatial-encode"
        )

    @property
    def public_url(self) -> str:
        """The base URL as it may be shown: no userinfo, no credential parameters."""
        return secrets.redact_url(self.base_url)

    def __repr__(self) -> str:
        return (
            f"OpenAIChatBackend(model={self.model!r}, base_url={self.public_url!r}, "
            f"api_key={'***' if self._key.reveal() else None}, "
            f"concurrency={self.concurrency})"
        )

    async def __aenter__(self) -> OpenAIChatBackend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()
        self._encoder.shutdown(wait=False, cancel_futures=True)

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(max, base·2^attempt)] (AWS architecture blog)."""
        return self._rng.uniform(0.0, min(self.backoff_max, self.backoff_base * 2.0**attempt))

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.stats.requests += 1
        try:
            body = streamed_body(
                self.model, request, self.params, video_metadata=self.video_metadata
            )
        except (TypeError, ValueError) as exc:  # e.g. a non-JSON value in params.extra
            self.stats.failures += 1
            return ModelResponse(text="", error=f"cannot encode the request body: {exc}")
        headers: dict[str, str] = {}
        if self.trace_headers:
            headers = {
                "x-streamspatial-item": request.item_id,
                "x-streamspatial-query-time": repr(request.query_time),
            }
        start = time.perf_counter()
        error = "no attempt made"
        refused = False
        for attempt in range(self.max_retries + 1):
            hint: float | None = None
            try:
                async with self._sem:
                    response = await self._attempt(body, headers)
                self.answered = True
                return response
            except _Refused as exc:
                error, refused = str(exc), True
                if not self.answered:
                    raise self._unreachable(error) from None
            except _Retryable as exc:
                error, refused, hint = str(exc), False, exc.wait
            except _Permanent as exc:
                error = str(exc)
                if exc.fatal and not self.answered:
                    raise EndpointError(f"{self.name} at {self.public_url}: {error}") from None
                if error.startswith("HTTP 400") and MEDIA_IO_REFUSED in error and not self.answered:
                    raise EndpointError(
                        f"{self.name} at {self.public_url} refuses the video's frame times "
                        f"(media_io_kwargs): start vLLM with --trust-request-mm-kwargs, or run "
                        f"with --no-video-metadata (times in the prompt only: vLLM then reads "
                        f"the frames as 1 fps from 0 s and keeps the first 32 unless started "
                        f'with --media-io-kwargs \'{{"video": {{"num_frames": -1}}}}\')'
                    ) from None
                break
            if attempt == self.max_retries:
                break
            wait = self.backoff(attempt)
            if hint is not None:
                wait = max(wait, min(hint, self.max_retry_after))
            self.stats.retries += 1
            log.debug(
                "%s: attempt %d failed (%s); retrying in %.3fs", self.name, attempt + 1, error, wait
            )
            await asyncio.sleep(wait)
        self.stats.failures += 1
        if refused:  # the server answered before and is gone now: stop rather than wait on it
            raise self._unreachable(error)
        log.warning("%s: call failed permanently: %s", self.name, error)
        return ModelResponse(text="", error=error, latency_s=time.perf_counter() - start)

    def _unreachable(self, error: str) -> EndpointError:
        return EndpointError(
            f"{self.name}: cannot reach {self.public_url} ({error}); is the server running "
            "and the base URL right?"
        )

    def _encode(self, fn: Any, *args: Any) -> Any:
        return asyncio.get_running_loop().run_in_executor(self._encoder, fn, *args)

    async def _attempt(self, body: StreamedBody, headers: dict[str, str]) -> ModelResponse:
        self.stats.attempts += 1
        t0 = time.perf_counter()
        url = self._chat_url
        # The frames' base64 is made as the connection takes it (a fresh stream per attempt);
        # the exact length is known up front, so no chunked encoding.
        headers = {**headers, "content-length": str(body.length)}
        try:
            # One deadline for the whole exchange: httpx's timeout bounds each read only.
            async with asyncio.timeout(self.timeout):
                resp = await self._client.post(
                    url, content=body.chunks(self._encode), headers=headers
                )
        except (TimeoutError, httpx.TimeoutException):
            raise _Retryable(f"timed out after {self.timeout:g}s") from None
        except httpx.ConnectError as exc:
            raise _Refused(f"connection error: {_describe(exc)}") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {_describe(exc)}") from None
        except httpx.HTTPError as exc:  # e.g. an invalid URL: retrying cannot help
            raise _Permanent(f"request error: {_describe(exc)}") from None
        latency = time.perf_counter() - t0
        status = resp.status_code
        if status in _RETRY_STATUS or status >= 500:
            raise _Retryable(
                f"HTTP {status}: {_snippet(resp.text)}",
                wait=parse_retry_after(resp.headers.get("retry-after")),
            )
        if status >= 400:
            raise _Permanent(f"HTTP {status}: {_snippet(resp.text)}", fatal=status in _FATAL_STATUS)
        try:
            data = resp.json()
            message = data["choices"][0].get("message") or {}
            text = message.get("content")
            usage = data.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or 0)
            completion_tokens = int(usage.get("completion_tokens") or 0)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise _Retryable(f"malformed response body: {_snippet(resp.text)}") from None
        # content may be null (e.g. a reasoning model cut off by max_tokens): an empty answer
        return ModelResponse(
            text=secrets.redact(text) if isinstance(text, str) else "",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=latency,
        )


class _Refused(_Retryable):
    """Nothing accepted the connection."""


class _Permanent(AttemptFailed):
    def __init__(self, message: str, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


def _describe(exc: Exception) -> str:
    return secrets.redact(f"{type(exc).__name__}: {exc}")


def _snippet(text: str, limit: int = 200) -> str:
    """A server's text for an error line: redacted whole, then shortened (never the reverse)."""
    return secrets.clip(text, limit)
