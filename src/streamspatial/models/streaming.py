"""The streaming-native interface, and an adapter that makes any Backend streaming.

Stateful models and memory agents see the video as the runner plays it: ``ingest`` each
frame in time order, ``answer`` when a question is asked.  A plain request/response backend is
driven the same way through :class:`BufferedStreamingModel`, which keeps a bounded buffer of
frames, so the runner needs one code path for both.  Causality is checked at answer time: a
buffered frame later than the question is a bug (:class:`CausalityError`), never a user error.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from streamspatial.core.errors import CausalityError
from streamspatial.models.types import (
    Backend,
    GenerationParams,
    ImagePart,
    ModelRequest,
    ModelResponse,
    Part,
    TextPart,
)
from streamspatial.video.frames import Frame


@dataclass(frozen=True)
class StreamQuestion:
    """A question as the streaming model receives it: the prompt text and what baselines need."""

    text: str
    choices: str = ""
    task_key: str = ""
    item_id: str = ""
    system: str | None = None
    params: GenerationParams = field(default_factory=GenerationParams)


@runtime_checkable
class StreamingModel(Protocol):
    """A model that keeps state across a stream; the runner calls it in time order."""

    name: str

    def reset(self) -> None:
        """Forget everything: a new video starts."""
        ...

    async def ingest(self, frame: Frame | ImagePart, t: float) -> None:
        """Observe the frame recorded at ``t`` seconds (times never decrease)."""
        ...

    async def answer(self, question: StreamQuestion, t: float) -> ModelResponse:
        """Answer at time ``t`` from what was ingested up to ``t`` only."""
        ...

    async def aclose(self) -> None: ...


def encode_jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    """JPEG bytes for a decoded frame, for callers that hold pixels rather than cached bytes."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def build_request(
    frames: Sequence[ImagePart],
    question: StreamQuestion,
    query_time: float,
    frame_label: str | None = "Frame at {t:.1f}s:",
) -> ModelRequest:
    """Frames in time order, each after an optional timestamp label, then the question."""
    parts: list[Part] = []
    for image in frames:
        if frame_label:
            parts.append(TextPart(frame_label.format(t=image.time)))
        parts.append(image)
    parts.append(TextPart(question.text))
    return ModelRequest(
        parts=tuple(parts),
        query_time=query_time,
        system=question.system,
        params=question.params,
        choices=question.choices,
        task_key=question.task_key,
        item_id=question.item_id,
    )


class BufferedStreamingModel:
    """Drives a plain :class:`Backend` as a streaming model over a bounded frame buffer.

    ``keep="recent"`` keeps the last ``max_frames`` frames (a sliding window).
    ``keep="uniform"`` keeps an evenly thinned sample of everything seen: when the buffer is
    full every second frame is dropped and the admission stride doubles, so memory stays
    bounded and the sample still spans the whole prefix.
    """

    def __init__(
        self,
        backend: Backend,
        max_frames: int = 32,
        keep: Literal["recent", "uniform"] = "uniform",
        frame_label: str | None = "Frame at {t:.1f}s:",
    ):
        if max_frames < 1:
            raise ValueError("max_frames must be at least 1")
        if keep not in ("recent", "uniform"):
            raise ValueError(f"keep must be 'recent' or 'uniform', got {keep!r}")
        self.backend = backend
        self.name = backend.name
        self.max_frames = max_frames
        self.keep = keep
        self.frame_label = frame_label
        self.reset()

    def reset(self) -> None:
        self._frames: list[ImagePart] = []
        self._stride = 1
        self._seen = 0
        self._last_t = float("-inf")

    @property
    def frames(self) -> list[ImagePart]:
        return list(self._frames)

    async def ingest(self, frame: Frame | ImagePart, t: float) -> None:
        if t < self._last_t:
            raise CausalityError(f"frame at {t}s ingested after one at {self._last_t}s")
        self._last_t = t
        admit = self._seen % self._stride == 0
        self._seen += 1
        if not admit:
            return
        image = frame if isinstance(frame, ImagePart) else ImagePart(encode_jpeg(frame.image), t)
        if image.time != t:
            image = ImagePart(image.jpeg, t, image.mime)
        self._frames.append(image)
        if len(self._frames) > self.max_frames:
            if self.keep == "recent":
                del self._frames[0]
            else:
                self._frames = self._frames[::2]
                self._stride *= 2

    async def answer(self, question: StreamQuestion, t: float) -> ModelResponse:
        late = [f.time for f in self._frames if f.time > t]
        if late:
            raise CausalityError(f"asked at {t}s holding frames from {late[0]}s")
        return await self.backend.generate(
            build_request(self._frames, question, t, self.frame_label)
        )

    async def aclose(self) -> None:
        await self.backend.aclose()
