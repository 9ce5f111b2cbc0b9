"""The agent interface: what turns a causal prefix of a video into one model request.

The runner owns decoding, scheduling and recording; an agent owns only *what the model is
shown*.  Splitting it this way keeps causality in one place: an agent never opens a file or
decodes video, it receives a :class:`~streamspatial.video.PrefixView` cut at the query time and
can only ask it for frames up to that time.  The runner asks an agent first which frames it will
want (so one sequential decoding pass can serve every query of the video), then, once the
stream has reached the query time, for the request itself.

Two shapes share this interface:

* a **query agent** (``streaming = False``, e.g. the frame-policy agent) chooses a set of frame
  indices per query and builds its request from them;
* a **streaming agent** (``streaming = True``: scene-graph memory) additionally
  receives every frame it asked for in time order through :meth:`ingest`, keeping bounded state,
  and answers from that state.  The runner calls :meth:`reset` once per video.
* a **preparing agent** (memory folding, spatial captions) has its memory written by the model:
  the runner awaits its :meth:`~PreparingAgent.prepare` step, which makes those side calls
  through the run's backend, before the request is built.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, Part, TextPart

OPTION_IMAGE_CAPTION = "Option {letter}:"


def option_image_parts(item: Item) -> list[Part]:
    """The item's image options (OVO-S-Bench 4.3 maps) as images, each after a caption naming
    its letter, in letter order; empty for text options.

    The images are sent as released (their own MIME type, no re-encoding; the benchmark
    reader has checked the base64) with no recording time: they are part of the question, not
    frames of the video.
    """
    parts: list[Part] = []
    for option in item.options:
        if option.image is None:
            continue
        header, _, payload = option.image.partition(",")
        mime = header.removeprefix("data:").split(";")[0] or "image/png"
        parts.append(TextPart(OPTION_IMAGE_CAPTION.format(letter=option.letter)))
        parts.append(ImagePart(jpeg=base64.b64decode(payload), time=None, mime=mime))
    return parts


class MemoryCallError(Exception):
    """A side call that builds an agent's memory (a fold summary, a frame caption) failed.

    Raised by :meth:`PreparingAgent.prepare` after the backend's own retries: the runner then
    records the query point with this error instead of answering from memory that was never
    built, so the run exits 1 and ``--retry-errors`` asks again.  The agent keeps no trace of
    the failed call, so the next query (or the retry) makes it again.
    """


@runtime_checkable
class Agent(Protocol):
    """Builds model requests from causal prefixes.  One instance serves a whole run."""

    name: ClassVar[str]  # what ``--agent`` calls it: "policy", later "scene-graph", "folding"
    streaming: ClassVar[bool]

    @property
    def label(self) -> str:
        """What records call the input policy, e.g. ``uniform-128`` or ``none``."""
        ...

    @property
    def offline(self) -> bool:
        """True when the agent reads evidence annotations (oracle-evidence): never deployable."""
        ...

    def frames_needed(self, item: Item, query: QueryPoint, fps: float, n_frames: int) -> list[int]:
        """Sorted frame indices this query will read, all ≤ ⌊t_q·fps⌋ (empty: text only)."""
        ...

    def build_request(
        self,
        view: Any,  # streamspatial.video.PrefixView cut at query.time
        item: Item,
        query: QueryPoint,
        adapter: BenchmarkAdapter,
        *,
        prior_answers: Mapping[str, str] | None = None,
    ) -> ModelRequest:
        """The request for one query point, from frames the view hands out and the prompt."""
        ...


class StreamingAgent(Agent, Protocol):
    """An agent with state fed in time order; the runner drives it, one video at a time."""

    def reset(self, video: str) -> None: ...

    def ingest(self, frame: Any, t: float) -> None: ...


@runtime_checkable
class PreparingAgent(Agent, Protocol):
    """An agent whose memory is itself written by the model (folding, spatial captions).

    Before :meth:`Agent.build_request` the runner awaits :meth:`prepare` with the query's
    ``PrefixView`` and the run's backend, so the agent can make its side calls (a fold summary,
    a frame caption) through the same backend and response cache as the answers.  A side call
    made for time ``t`` must carry ``query_time = t`` and only frames ≤ ``t``; the view refuses
    anything after t_q, so nothing prepared for a query can come from its future.
    """

    async def prepare(
        self, view: Any, item: Item, query: QueryPoint, adapter: BenchmarkAdapter, backend: Any
    ) -> None: ...


def indices_for(frames: Sequence[int]) -> list[int]:
    """Sorted unique indices: the shape :meth:`Agent.frames_needed` promises."""
    return sorted(set(int(i) for i in frames))


def answer_request(
    item: Item,
    query: QueryPoint,
    parts: Sequence[Part],
    *,
    params: GenerationParams,
    system: str | None = None,
) -> ModelRequest:
    """The request that answers ``query`` of ``item``: the one place that fills in what a
    backend may key on besides the content (choice letters, the frequent baseline's task key,
    the item id), so every agent works with every backend, the baselines included."""
    from streamspatial.models.baselines import frequent_task_key

    return ModelRequest(
        parts=tuple(parts),
        query_time=float(query.time),
        system=system,
        params=params,
        choices=item.letters,
        task_key=frequent_task_key(item),
        item_id=item.id,
    )
