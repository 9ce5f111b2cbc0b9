"""The chat-completions request body as a stream of bytes of known length.

A request with 128 frames at 448 px is ~5 MB of JPEG: as one JSON document it would be that
again as base64 inside a Python string, once more as the ``json.dumps`` result and once more
encoded to bytes, all resident per request in flight and all built on the event loop.  Here
the body is cut into pieces instead: the small JSON around the images is serialised once (by
``json.dumps``, so text escaping is the standard library's), and each image's base64 is made
only when the HTTP client is ready to send it, in a worker thread, a batch at a time.  The
length of every piece is known in advance (base64 of ``n`` bytes is ``4·⌈n/3⌉`` characters),
so the request carries an exact ``Content-Length`` (no chunked encoding, which some servers
refuse) and the bytes on the wire are exactly those of :func:`build_body` serialised.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    Part,
    TextPart,
)

__all__ = ["StreamedBody", "build_body", "build_messages", "data_url", "streamed_body"]

# Images are base64-encoded in batches of about this many bytes, one worker-thread hop each.
BATCH_BYTES = 1 << 20


def data_url(image: ImagePart) -> str:
    """The image as a base64 data URL, from its bytes as they are (no re-encoding)."""
    return f"data:{image.mime};base64,{base64.b64encode(image.jpeg).decode('ascii')}"


def _content(parts: tuple[Part, ...]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        else:
            content.append({"type": "image_url", "image_url": {"url": data_url(part)}})
    return content


def _turns(request: ModelRequest) -> list[tuple[str, tuple[Part, ...]]]:
    """(role, parts) of every chat message after the system one: the dialogue's earlier turns
    (a model reply as plain text, as the model gave it), then the user message of this turn."""
    return [(t.role, t.parts) for t in request.history] + [("user", request.parts)]


def _is_reply(role: str, parts: tuple[Part, ...]) -> bool:
    return role == "assistant" and all(isinstance(p, TextPart) for p in parts)


def build_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The dialogue's earlier turns (if any), then one user message interleaving text and image
    parts, after an optional system message."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for role, parts in _turns(request):
        if _is_reply(role, parts):
            text = "".join(p.text for p in parts if isinstance(p, TextPart))
            messages.append({"role": role, "content": text})
        else:
            messages.append({"role": role, "content": _content(parts)})
    return messages


def request_params(request: ModelRequest, defaults: GenerationParams) -> dict[str, Any]:
    """Sampling fields of the body: the request's when it sets any, else the backend's."""
    params = request.params if request.params != GenerationParams() else defaults
    return params.as_dict()


def build_body(model: str, request: ModelRequest, defaults: GenerationParams) -> dict[str, Any]:
    """The chat-completions body as a dict (the reference :func:`streamed_body` matches)."""
    body: dict[str, Any] = {"model": model, "messages": build_messages(request)}
    body.update(request_params(request, defaults))
    return body


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


@dataclass(frozen=True)
class StreamedBody:
    """``length`` bytes, produced piece by piece by :meth:`chunks` (callable once per attempt).

    ``pieces`` alternates literal JSON bytes and images; an image becomes
    ``data:<mime>;base64,<base64>`` inside the JSON string its neighbours open and close.
    """

    pieces: tuple[bytes | ImagePart, ...]
    length: int

    async def chunks(
        self, run: Callable[..., Any] | None = None, batch_bytes: int = BATCH_BYTES
    ) -> AsyncIterator[bytes]:
        """The body's bytes; images are encoded by ``run(fn)`` (default: a worker thread) in
        batches of about ``batch_bytes`` raw bytes, so the event loop never encodes."""
        run = run or asyncio.to_thread
        batch: list[bytes | ImagePart] = []
        size = 0
        for piece in self.pieces:
            batch.append(piece)
            if isinstance(piece, ImagePart):
                size += len(piece.jpeg)
                if size >= batch_bytes:
                    yield await run(_encode, batch)
                    batch, size = [], 0
        if batch:
            yield await run(_encode, batch) if size else _encode(batch)

    def to_bytes(self) -> bytes:
        """The whole body at once (tests, and small requests)."""
        return _encode(list(self.pieces))


def _encode(pieces: list[bytes | ImagePart]) -> bytes:
    out = bytearray()
    for p in pieces:
        if isinstance(p, ImagePart):
            out += b"data:%s;base64," % p.mime.encode("ascii")
            out += base64.b64encode(p.jpeg)
        else:
            out += p
    return bytes(out)


def streamed_body(model: str, request: ModelRequest, defaults: GenerationParams) -> StreamedBody:
    """The body of :func:`build_body`, as pieces whose base64 is made only when sent.

    Raises ``TypeError``/``ValueError`` as ``json.dumps`` does for a parameter that is not JSON.
    """
    params = request_params(request, defaults)
    if "model" in params or "messages" in params:  # extra fields overriding the body's own
        return _literal(json.dumps(build_body(model, request, defaults)).encode())
    for part in request.all_parts:  # a MIME type that is not plain ASCII cannot be a literal piece
        if isinstance(part, ImagePart) and (not part.mime.isascii() or '"' in part.mime):
            return _literal(json.dumps(build_body(model, request, defaults)).encode())
    pieces: list[bytes | ImagePart] = []
    text = ['{"model": ', json.dumps(model), ', "messages": [']
    if request.system:
        text += [json.dumps({"role": "system", "content": request.system}), ", "]
    for m, (role, parts) in enumerate(_turns(request)):
        if m:
            text.append(", ")
        if _is_reply(role, parts):
            reply = "".join(p.text for p in parts if isinstance(p, TextPart))
            text.append(json.dumps({"role": role, "content": reply}))
            continue
        text.append(f'{{"role": {json.dumps(role)}, "content": [')
        for k, part in enumerate(parts):
            if k:
                text.append(", ")
            if isinstance(part, TextPart):
                text.append(json.dumps({"type": "text", "text": part.text}))
            else:
                text.append('{"type": "image_url", "image_url": {"url": "')
                pieces.append("".join(text).encode())
                pieces.append(part)
                text = ['"}}']
        text.append("]}")
    text.append("]")
    if params:
        text += [", ", json.dumps(params)[1:-1]]
    text.append("}")
    pieces.append("".join(text).encode())
    length = 0
    for p in pieces:
        if isinstance(p, ImagePart):
            length += len(f"data:{p.mime};base64,") + _b64_len(len(p.jpeg))
        else:
            length += len(p)
    return StreamedBody(tuple(pieces), length)


def _literal(data: bytes) -> StreamedBody:
    return StreamedBody((data,), len(data))
