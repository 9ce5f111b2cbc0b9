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
    VideoPart,
)

__all__ = [
    "VIDEO_MIME",
    "StreamedBody",
    "build_body",
    "build_messages",
    "data_url",
    "streamed_body",
    "video_io_kwargs",
    "video_url",
]

# Images are base64-encoded in batches of about this many bytes, one worker-thread hop each.
BATCH_BYTES = 1 << 20


# vLLM's form for pre-extracted frames: one data URL, the frames' base64 joined by commas
# (vllm/multimodal/media/video.py, VideoMediaIO.load_base64 for "video/jpeg").
VIDEO_MIME = "video/jpeg"


def data_url(image: ImagePart) -> str:
    """The image as a base64 data URL, from its bytes as they are (no re-encoding)."""
    return f"data:{image.mime};base64,{base64.b64encode(image.jpeg).decode('ascii')}"


def video_url(video: VideoPart) -> str:
    """``data:video/jpeg;base64,<frame>,<frame>,…``: the frames' JPEG bytes as they are."""
    frames = ",".join(base64.b64encode(f.jpeg).decode("ascii") for f in video.frames)
    return f"data:{VIDEO_MIME};base64,{frames}"


def _content(parts: tuple[Part, ...]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, VideoPart):
            content.append({"type": "video_url", "video_url": {"url": video_url(part)}})
        else:
            content.append({"type": "image_url", "image_url": {"url": data_url(part)}})
    return content


def video_io_kwargs(request: ModelRequest) -> dict[str, Any] | None:
    """vLLM's per-request ``media_io_kwargs`` giving the request's video its true times: the
    source's fps, the frames' indices and a total that makes their rate right, and
    ``num_frames: -1`` (vLLM keeps only the first 32 frames of a ``video/jpeg`` URL
    otherwise).  None without a video (or with several: the kwargs would apply to all)."""
    videos = [p for p in request.all_parts if isinstance(p, VideoPart)]
    if len(videos) != 1:
        return None
    return {"video": {**videos[0].metadata(), "num_frames": -1}}


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


def build_body(
    model: str, request: ModelRequest, defaults: GenerationParams, *, video_metadata: bool = False
) -> dict[str, Any]:
    """The chat-completions body as a dict (the reference :func:`streamed_body` matches);
    ``video_metadata`` adds :func:`video_io_kwargs` for a request holding a video."""
    body: dict[str, Any] = {"model": model, "messages": build_messages(request)}
    body.update(request_params(request, defaults))
    kwargs = video_io_kwargs(request) if video_metadata else None
    if kwargs is not None:
        body["media_io_kwargs"] = kwargs
    return body


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


@dataclass(frozen=True)
class StreamedBody:
    """``length`` bytes, produced piece by piece by :meth:`chunks` (callable once per attempt).

    ``pieces`` alternates literal JSON bytes and images; an image becomes
    ``data:<mime>;base64,<base64>`` inside the JSON string its neighbours open and close, a
    video's frame (:class:`_Frame`) its bare base64.
    """

    pieces: tuple[bytes | ImagePart | _Frame, ...]
    length: int

    async def chunks(
        self, run: Callable[..., Any] | None = None, batch_bytes: int = BATCH_BYTES
    ) -> AsyncIterator[bytes]:
        """The body's bytes; images are encoded by ``run(fn)`` (default: a worker thread) in
        batches of about ``batch_bytes`` raw bytes, so the event loop never encodes."""
        run = run or asyncio.to_thread
        batch: list[bytes | ImagePart | _Frame] = []
        size = 0
        for piece in self.pieces:
            batch.append(piece)
            if not isinstance(piece, bytes):
                size += len(piece.jpeg)
                if size >= batch_bytes:
                    yield await run(_encode, batch)
                    batch, size = [], 0
        if batch:
            yield await run(_encode, batch) if size else _encode(batch)

    def to_bytes(self) -> bytes:
        """The whole body at once (tests, and small requests)."""
        return _encode(list(self.pieces))


@dataclass(frozen=True)
class _Frame:
    """A frame of a video URL: its bare base64, no ``data:`` prefix of its own."""

    jpeg: bytes


def _encode(pieces: list[bytes | ImagePart | _Frame]) -> bytes:
    out = bytearray()
    for p in pieces:
        if isinstance(p, ImagePart):
            out += b"data:%s;base64," % p.mime.encode("ascii")
            out += base64.b64encode(p.jpeg)
        elif isinstance(p, _Frame):
            out += base64.b64encode(p.jpeg)
        else:
            out += p
    return bytes(out)


def streamed_body(
    model: str, request: ModelRequest, defaults: GenerationParams, *, video_metadata: bool = False
) -> StreamedBody:
    """The body of :func:`build_body`, as pieces whose base64 is made only when sent.

    Raises ``TypeError``/``ValueError`` as ``json.dumps`` does for a parameter that is not JSON.
    """
    params = request_params(request, defaults)
    kwargs = video_io_kwargs(request) if video_metadata else None
    if kwargs is not None:
        params = {**params, "media_io_kwargs": kwargs}

    def whole() -> StreamedBody:
        body = build_body(model, request, defaults, video_metadata=video_metadata)
        return _literal(json.dumps(body).encode())

    if "model" in params or "messages" in params:  # extra fields overriding the body's own
        return whole()
    for part in request.images:  # a MIME type that is not plain ASCII cannot be a literal piece
        if not part.mime.isascii() or '"' in part.mime:
            return whole()
    pieces: list[bytes | ImagePart | _Frame] = []
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
            elif isinstance(part, VideoPart):
                text.append('{"type": "video_url", "video_url": {"url": "')
                text.append(f"data:{VIDEO_MIME};base64,")
                for f, frame in enumerate(part.frames):
                    if f:
                        text.append(",")
                    pieces.append("".join(text).encode())
                    pieces.append(_Frame(frame.jpeg))
                    text = []
                text = ['"}}']
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
        elif isinstance(p, _Frame):
            length += _b64_len(len(p.jpeg))
        else:
            length += len(p)
    return StreamedBody(tuple(pieces), length)


def _literal(data: bytes) -> StreamedBody:
    return StreamedBody((data,), len(data))
