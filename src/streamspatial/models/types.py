"""What crosses the model boundary: requests, responses and the backend interface.

A request is an ordered list of parts, text and frames interleaved, each frame carrying the
time (seconds into the video) it was recorded at, and the query time it is asked at.  The
request never carries answers or evidence; ``query_time`` lets backends and tests check that
no frame is later than the question (the causality canary).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ImagePart:
    """A frame as JPEG bytes straight from the frame cache (never re-encoded), with the time it
    was recorded; or, with ``time`` None, an image that belongs to the question itself (an
    answer option's map, OVO-S-Bench 4.3, in ``mime`` as released), which is no video frame.

    ``record`` is the simulator's ground truth of a rendered exploration view (pose, room,
    visible objects) for agents whose perception reads annotations; it never reaches a model.
    """

    jpeg: bytes
    time: float | None
    mime: str = "image/jpeg"
    record: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class VideoPart:
    """Frames sent as one video (``--frames video``): evenly spaced, in time order, each a
    cached JPEG (never re-encoded) with its recording time; ``indices`` are their frame
    numbers in the source video and ``fps`` its rate, so ``time = index / fps``.

    A model family whose video path reads time (Qwen2.5-VL's temporal ids, Qwen3-VL's
    timestamps) gets it from :meth:`metadata`, in the form ``transformers``' ``VideoMetadata``
    and vLLM's ``media_io_kwargs`` take.
    """

    frames: tuple[ImagePart, ...]
    indices: tuple[int, ...]
    fps: float

    def __post_init__(self) -> None:
        if not self.frames or len(self.frames) != len(self.indices) or self.fps <= 0:
            raise ValueError("a video needs ≥ 1 frame, one index per frame and fps > 0")

    @property
    def times(self) -> list[float]:
        return [float(f.time) for f in self.frames if f.time is not None]

    @property
    def spacing_frames(self) -> float:
        """The mean step between consecutive frames, in source frames (1 for one frame)."""
        n = len(self.indices)
        return (self.indices[-1] - self.indices[0]) / (n - 1) if n > 1 else 1.0

    def metadata(self) -> dict[str, Any]:
        """``fps`` (the source's), ``frames_indices`` and ``total_num_frames``: the frames'
        times are ``index / fps`` (Qwen3-VL's timestamps), and the sampled rate ``len(frames)
        / total_num_frames · fps`` is one frame per spacing (Qwen2.5-VL's
        ``second_per_grid_ts = 2 / rate``); the total is rounded to a whole frame."""
        n = len(self.indices)
        return {
            "fps": float(self.fps),
            "frames_indices": [int(i) for i in self.indices],
            "total_num_frames": max(n, round(n * self.spacing_frames)),
        }


Part = TextPart | ImagePart | VideoPart


@dataclass(frozen=True)
class Turn:
    """One earlier message of a multi-turn dialogue (OST-Bench): what the user sent then
    (frames and text), or the model's own reply, verbatim.  A request's ``history`` holds the
    dialogue so far, oldest first; its frames are frames of the same prefix."""

    role: Literal["user", "assistant"]
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class GenerationParams:
    """Sampling parameters; a field left ``None`` is not sent, so the server's default holds.

    Only what is set reaches the server: reasoning models reject ``temperature``, and some
    servers (``transformers serve``) answer 422 to fields they do not know.  A run sets them
    from its benchmark's declared decoding and what overrides it (``eval.decoding``); the
    papers' protocol, greedy with a 1,024-token cap (OVO-S-Bench G.2), is
    :data:`PROTOCOL_PARAMS` here.  ``extra`` is
    passed through to the request body as is, e.g.
    ``{"chat_template_kwargs": {"enable_thinking": True}}``.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            k: v
            for k, v in (
                ("temperature", self.temperature),
                ("max_tokens", self.max_tokens),
                ("top_p", self.top_p),
                ("seed", self.seed),
            )
            if v is not None
        }
        out.update(self.extra)
        return out


# The papers' decoding settings, for callers that want them explicitly (QC probes, judges).
PROTOCOL_PARAMS = GenerationParams(temperature=0.0, max_tokens=1024)


@dataclass(frozen=True)
class ModelRequest:
    parts: tuple[Part, ...]
    query_time: float
    system: str | None = None
    params: GenerationParams = field(default_factory=GenerationParams)
    # Letters of a choice item, so baselines can answer without parsing the prompt.
    choices: str = ""
    # Task key used by the frequent-answer baseline (never the answer itself).
    task_key: str = ""
    item_id: str = ""
    # Earlier turns of a dialogue, sent as chat messages before ``parts`` (empty: one message).
    history: tuple[Turn, ...] = ()

    @property
    def all_parts(self) -> list[Part]:
        """The history's parts, then this turn's: everything the model is sent."""
        return [p for turn in self.history for p in turn.parts] + list(self.parts)

    @property
    def images(self) -> list[ImagePart]:
        """Every image sent: single images, and the frames of videos."""
        out: list[ImagePart] = []
        for p in self.all_parts:
            if isinstance(p, ImagePart):
                out.append(p)
            elif isinstance(p, VideoPart):
                out.extend(p.frames)
        return out

    @property
    def frame_times(self) -> list[float]:
        """Recording times of the video frames, single or in a video (question images have
        none)."""
        return [p.time for p in self.images if p.time is not None]

    def content_hash(self, model: str) -> str:
        """Stable key of (model, content, generation parameters) for the response cache."""
        h = hashlib.sha256()
        head = {
            "model": model,
            "system": self.system,
            "params": self.params.as_dict(),
            "choices": self.choices,
            "task_key": self.task_key,
            "item_id": self.item_id,
        }
        h.update(json.dumps(head, sort_keys=True, default=str).encode())
        for turn in self.history:  # a request without history hashes as it always did
            h.update(b"R" + turn.role.encode())
            _hash_parts(h, turn.parts)
        _hash_parts(h, self.parts)
        return h.hexdigest()


def _hash_parts(h: Any, parts: tuple[Part, ...]) -> None:
    for part in parts:
        if isinstance(part, TextPart):
            h.update(b"T" + part.text.encode())
        elif isinstance(part, VideoPart):  # the frames, and that they went as one video
            h.update(b"V%d" % len(part.frames))
            _hash_parts(h, part.frames)
        else:
            when = "question" if part.time is None else f"{part.time:.6f}"
            h.update(b"I" + when.encode() + hashlib.sha1(part.jpeg).digest())


@dataclass(frozen=True)
class ModelResponse:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    error: str | None = None  # set when the call failed permanently; text is then ""
    cached: bool = False


@dataclass(frozen=True)
class ModelSpec:
    """A ``--model`` spec read once (:func:`streamspatial.models.registry.parse_spec`): its
    kind (``random``, ``frequent``, ``openai``, ``hf``; or the name an agent answering without
    a model records, ``rules``), its argument (a model name, a folder or a Hub id), and the
    text as given, which records and file names keep."""

    text: str
    kind: str
    arg: str = ""

    def __str__(self) -> str:
        return self.text


@runtime_checkable
class Backend(Protocol):
    """An async model.  ``generate`` never raises for a failed call: it returns an error."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...


def placement(backend: Backend | None) -> dict[str, Any] | None:
    """Where a local model runs and in which precision (``run.json``'s ``placement``); None
    for models that place nothing here (a server, a baseline)."""
    inner = getattr(backend, "inner", backend)  # through the response cache
    where = getattr(inner, "placement", None)
    return where.as_dict() if where is not None else None
