"""A real loopback OpenAI-compatible chat-completions server for tests and benchmarks.

It reads the frame index drawn into every image it receives (the barcode of
:func:`streamspatial.video.synthetic.draw_frame`), so a test can check end to end, over real
HTTP, that no request ever carried a frame later than its query time (the causality canary).
It can also misbehave on a seeded schedule (5xx, 429 with ``Retry-After``, hangs past the
client timeout, malformed JSON, empty ``choices``, a body dripped a byte at a time, the
client's ``Authorization`` header echoed back in an answer or an error) to exercise the
client's retries, deadline and redaction.

``http.server`` in a thread is enough: it needs no event loop of its own, works inside
pytest's and the benchmark's loops alike, and one thread per connection serves the
concurrency levels we test (up to 32).
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("500", "503", "429", "hang", "malformed", "empty", "drip", "echo-key", "echo-key-error")

_QUERY_TIME_RE = re.compile(
    r"(?:query time|current time|now)\s*[:=]?\s*([0-9]+(?:\.[0-9]+)?)\s*s", re.IGNORECASE
)


def _read_index(data: bytes) -> int | None:
    try:
        from streamspatial.video.synthetic import read_frame_index_jpeg
    except ImportError:  # pragma: no cover - the video package ships it
        return None
    try:
        return read_frame_index_jpeg(data)
    except Exception:  # not a barcode image, or not an image at all
        return None


@dataclass
class RecordedRequest:
    """What one HTTP request carried, as the server understood it."""

    number: int  # arrival order, from 0
    path: str
    headers: dict[str, str]
    model: str | None = None
    body: dict[str, Any] = field(default_factory=dict)  # with image URLs elided
    text: str = ""  # every text part of every message, joined by newlines
    system: str | None = None
    n_images: int = 0  # image_url parts
    # video_url parts (vLLM's data:video/jpeg;base64,<frame>,<frame>,…): frames in each
    videos: list[int] = field(default_factory=list)
    image_bytes: list[bytes] = field(default_factory=list)
    frame_indices: list[int | None] = field(default_factory=list)
    frame_times: list[float | None] = field(default_factory=list)
    query_time: float | None = None
    fault: str | None = None

    @property
    def max_frame_time(self) -> float | None:
        times = [t for t in self.frame_times if t is not None]
        return max(times) if times else None

    def violates_causality(self, tolerance: float = 1e-6) -> bool:
        """True when a frame is later than the query time (both must be known)."""
        latest = self.max_frame_time
        return (
            self.query_time is not None
            and latest is not None
            and latest > self.query_time + tolerance
        )


Answerer = Callable[[RecordedRequest], str]


def answer_fixed(text: str) -> Answerer:
    return lambda _req: text


def answer_latest_frame() -> Answerer:
    """Echo the index of the latest frame seen (``-1`` without a readable frame)."""

    def answer(req: RecordedRequest) -> str:
        seen = [i for i in req.frame_indices if i is not None]
        return str(max(seen)) if seen else "-1"

    return answer


class FakeOpenAIServer:
    """A context manager serving ``POST /v1/chat/completions`` on ``127.0.0.1:<free port>``.

    ``faults`` is a schedule consumed in arrival order (``None`` = behave); after it runs
    out, ``fault_rates`` (fault → probability) draws from a ``random.Random(seed)``.
    ``fault_for(request)``, when given, may name a fault for a request by its content.
    """

    def __init__(
        self,
        answer: Answerer | str = "A",
        *,
        latency: float = 0.0,  # seconds from a request's arrival to its answer
        fps: float | None = None,
        faults: Sequence[str | None] = (),
        fault_rates: dict[str, float] | None = None,
        seed: int = 0,
        retry_after: str = "0",
        hang_seconds: float = 30.0,
        drip_seconds: float = 0.05,
        keep_images: bool = False,
        decode_frames: bool = True,
        fault_for: Callable[[RecordedRequest], str | None] | None = None,
    ):
        for f in [*faults, *(fault_rates or {})]:
            if f is not None and f not in FAULTS:
                raise ValueError(f"unknown fault {f!r}; expected one of {FAULTS}")
        self.answer: Answerer = answer_fixed(answer) if isinstance(answer, str) else answer
        self.latency = latency
        self.fps = fps
        self.faults = list(faults)
        self.fault_rates = dict(fault_rates or {})
        self.retry_after = retry_after
        self.hang_seconds = hang_seconds
        self.drip_seconds = drip_seconds
        self.keep_images = keep_images
        self.decode_frames = decode_frames
        self.fault_for = fault_for  # a fault chosen by what the request carries
        self.requests: list[RecordedRequest] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        handler = type("_Handler", (_Handler,), {"owner": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # releases hanging handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # behaviour ---------------------------------------------------------------------------
    def _next_fault(self) -> tuple[int, str | None]:
        with self._lock:
            number = len(self.requests)
            if self.faults:
                return number, self.faults.pop(0)
            roll = self._rng.random()
            acc = 0.0
            for name, p in self.fault_rates.items():
                acc += p
                if roll < acc:
                    return number, name
            return number, None

    def _record(self, path: str, headers: dict[str, str], raw: bytes) -> RecordedRequest:
        number, fault = self._next_fault()
        rec = RecordedRequest(number=number, path=path, headers=headers, fault=fault)
        with self._lock:
            self.requests.append(rec)
        try:
            body = json.loads(raw)
        except ValueError:
            return rec
        rec.model = body.get("model")
        texts: list[str] = []
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                if message.get("role") == "system":
                    rec.system = content
                else:
                    texts.append(content)
                continue
            for part in content or []:
                if part.get("type") == "text":
                    texts.append(part.get("text", ""))
                elif part.get("type") == "image_url":
                    url = (part.get("image_url") or {}).get("url", "")
                    data = _decode_data_url(url)
                    rec.n_images += 1
                    _frame_of(self, rec, data)
                    part["image_url"] = {"url": f"<{len(data)} bytes>"}
                elif part.get("type") == "video_url":
                    url = (part.get("video_url") or {}).get("url", "")
                    frames = [_decode_b64(f) for f in url.partition("base64,")[2].split(",")]
                    rec.videos.append(len(frames))
                    for data in frames:
                        _frame_of(self, rec, data)
                    part["video_url"] = {"url": f"<{len(frames)} frames>"}
        rec.body = body
        rec.text = "\n".join(texts)
        header_time = headers.get("x-streamspatial-query-time")
        if header_time is not None:
            rec.query_time = float(header_time)
        else:
            m = _QUERY_TIME_RE.search(rec.text)
            rec.query_time = float(m.group(1)) if m else None
        return rec


def _frame_of(owner: Any, rec: RecordedRequest, data: bytes) -> None:
    """Record one frame a request carried (an image, or a frame of a video)."""
    if owner.keep_images:
        rec.image_bytes.append(data)
    index = _read_index(data) if owner.decode_frames else None
    rec.frame_indices.append(index)
    rec.frame_times.append(index / owner.fps if index is not None and owner.fps else None)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 drops connections at concurrency 32

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (its timeout, a killed run) is expected here, not an error:
        the default handler would print a traceback into the output tests read."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)


def _decode_data_url(url: str) -> bytes:
    return _decode_b64(url.partition("base64,")[2])


def _decode_b64(payload: str) -> bytes:
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return b""


class _Handler(BaseHTTPRequestHandler):
    owner: FakeOpenAIServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else Nagle + delayed ACK add ~40 ms per response

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        return None

    def _send(self, status: int, payload: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        owner = self.owner
        arrived = time.monotonic()
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        rec = owner._record(self.path, headers, raw)
        if owner.fault_for is not None and rec.fault is None:
            rec.fault = owner.fault_for(rec)
        if owner.latency:  # from the request's arrival: reading and parsing it count too
            time.sleep(max(0.0, owner.latency - (time.monotonic() - arrived)))
        fault = rec.fault
        if fault == "hang":
            owner._stop.wait(owner.hang_seconds)
            self.close_connection = True
            return
        if fault in ("500", "503"):
            self._send(int(fault), b'{"error": {"message": "injected server error"}}')
            return
        if fault == "429":
            self._send(
                429, b'{"error": {"message": "rate limited"}}', {"Retry-After": owner.retry_after}
            )
            return
        auth = headers.get("authorization", "")
        if fault == "echo-key-error":  # as some proxies do: the key in the error text
            self._send(500, json.dumps({"error": {"message": f"bad credentials {auth}"}}).encode())
            return
        if fault == "malformed":
            self._send(200, b'{"choices": [ {"message": ')
            return
        if rec.model is None:
            self._send(400, b'{"error": {"message": "body is not JSON with a model"}}')
            return
        if fault == "empty":
            self._send(
                200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode()
            )
            return
        text = owner.answer(rec)
        if fault == "echo-key":
            text = f"{text} (you sent {auth})"
        payload = {
            "id": f"chatcmpl-{rec.number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": rec.model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {
                "prompt_tokens": len(rec.text.split()) + 10 * rec.n_images,
                "completion_tokens": max(1, len(text.split())),
                "total_tokens": len(rec.text.split())
                + 10 * rec.n_images
                + max(1, len(text.split())),
            },
        }
        if fault == "drip":  # every byte on time, the whole far too slow
            self._drip(json.dumps(payload).encode())
            return
        self._send(200, json.dumps(payload).encode())

    def _drip(self, payload: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.flush()
        for i in range(len(payload)):
            if self.owner._stop.wait(self.owner.drip_seconds):
                break
            self.wfile.write(payload[i : i + 1])
            self.wfile.flush()
        self.close_connection = True
