"""The agent contract: what an agent receives at a query point, and what it gives back.

The runner owns decoding, scheduling, causality checks and recording; an agent owns only
*what the model is shown* (or, for an agent that reasons without a model, the answer).  The
contract is small and typed, so a memory method written outside this package plugs in by
name (see :mod:`.registry`) without the runner knowing anything about it:

1. **One instance per video.**  The runner makes a fresh agent from its factory for each
   video it streams (several videos stream at once), calls :meth:`Agent.reset` with the
   video's :class:`VideoStream`, and drops the instance when the video is done.  An agent's
   state is therefore its own video's, and never shared with another stream.
2. **Frames first.**  Before decoding, the runner asks :meth:`Agent.frames_needed` for each
   query point: the frame indices that query will read (all ≤ ⌊t_q·fps⌋; asking for a later
   one is a :class:`~streamspatial.core.errors.CausalityError`).  One sequential decoding pass
   then serves every query of the video.
3. **Streaming agents observe.**  A :class:`StreamingAgent` receives every frame it asked for,
   once and in time order, through :meth:`StreamingAgent.observe` — always before the query
   whose prefix holds it, never a frame after that query's time.
4. **One decision per query point.**  :meth:`Agent.decide` gets a :class:`QueryContext` — the
   item, the query point, a :class:`~streamspatial.video.PrefixView` cut at t_q (the only way
   to frames, refusing anything later), the answers the model gave to the earlier questions
   of a chain, and the run's backend for side calls that build memory — and returns either
   :class:`Ask` (a model request; the runner sends it) or :class:`Answer` (the agent answered
   itself), each with typed :class:`Diagnostics`.

Nothing else is probed: no optional methods looked up by name, no shared "last request"
state, no catch-all keyword arguments.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import AttemptFailed
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.requests import item_request
from streamspatial.models.types import Backend, GenerationParams, ModelRequest, Part, Turn
from streamspatial.video.coverage import coverage
from streamspatial.video.prefix import JpegFrame, PrefixView


@dataclass(frozen=True)
class VideoStream:
    """The video an agent follows: its name in the benchmark, its file, rate and length.

    ``n_frames`` is 0 (and ``fps`` 0) when the run reads no video (an agent that sends text
    only); ``path`` is where the video is, or would be.
    """

    video: str
    path: Path
    fps: float
    n_frames: int


@dataclass(frozen=True)
class Diagnostics:
    """What one query's input kept of its prefix (OVO-S-Bench §4.3.3), plus the agent's own
    counters (memory size, folds made, rule used…), JSON-ready, stored with the record."""

    compression_ratio: float
    evidence_recall: float | None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of_times(cls, kept_times: Sequence[float], query: QueryPoint, **detail: Any) -> Diagnostics:
        """CR and ER of the seconds in ``kept_times`` (each ≤ t_q) for ``query``."""
        cov = coverage(kept_times, query.evidence, query.time)
        return cls(cov.compression_ratio, cov.evidence_recall, detail)

    @classmethod
    def of_request(cls, request: ModelRequest, query: QueryPoint) -> Diagnostics:
        """A request that shows the model frames only: the frames are what reached it."""
        times = request.frame_times
        return cls.of_times(times, query, frames_sent=len(times))

    def as_dict(self) -> dict[str, Any]:
        return {
            "compression_ratio": self.compression_ratio,
            "evidence_recall": self.evidence_recall,
            **self.detail,
        }


@dataclass(frozen=True)
class Ask:
    """Send ``request`` to the run's model.  Without diagnostics, the runner measures the
    request's own frames (:meth:`Diagnostics.of_request`)."""

    request: ModelRequest
    diagnostics: Diagnostics | None = None
    # A backend of the agent's own that answers this request instead of the run's model (the
    # rules agent on an explorable item: the exploration controller asks it, it looks around).
    backend: Backend | None = None


@dataclass(frozen=True)
class Answer:
    """The agent's own answer text, recorded and scored like a model's (no model is called)."""

    text: str
    diagnostics: Diagnostics | None = None


Decision = Ask | Answer


class MemoryCallError(AttemptFailed):
    """A side call that builds an agent's memory (a fold summary, a frame caption) failed.

    Raised from :meth:`Agent.decide` after the backend's own retries: the runner then records
    the query point with this error instead of answering from memory that was never built,
    so the run exits 1 and ``--retry-errors`` asks again.  The agent keeps no trace of the
    failed call, so the next query (or the retry) makes it again.
    """


@dataclass(frozen=True)
class QueryContext:
    """Everything an agent may use to decide one query point, and nothing from after t_q.

    ``view`` is None when the agent reads no video.  ``frames`` are the indices the agent's
    :meth:`Agent.frames_needed` gave for this query (already decoded).  ``prior_answers``
    maps each earlier item of a multi-turn chain to the *model's* answer (S3-Bench), and
    ``prior_replies`` to its reply verbatim (a dialogue's history, OST-Bench); None for an
    item without one.  ``backend`` serves side calls: a side call made for time t must
    carry ``query_time = t`` and show only frames ≤ t (the view refuses later ones).
    """

    item: Item
    query: QueryPoint
    stream: VideoStream
    view: PrefixView | None
    adapter: BenchmarkAdapter
    backend: Backend | None
    frames: tuple[int, ...] = ()
    prior_answers: Mapping[str, str] | None = None
    # The model's own earlier replies of the chain, verbatim (a dialogue's history).
    prior_replies: Mapping[str, str] | None = None
    # ``run --history``: "official" shows a dialogue's earlier turns as the benchmark's official
    # script does (StreamingBench SQA: their ground-truth answers), a marked, non-streaming run.
    history: str = "own"

    def prompt(
        self, *, variant: str = "default", text_only: bool = False, scorer: str = "paper"
    ) -> str:
        """The benchmark's own prompt for this query point (with the chain's prior answers)."""
        return self.adapter.prompt(
            self.item,
            self.query,
            variant=variant,  # type: ignore[arg-type]
            text_only=text_only,
            prior_answers=self.prior_answers,
            scorer=scorer,
            history=self.history,
        )

    def request(
        self,
        parts: Sequence[Part],
        *,
        params: GenerationParams,
        system: str | None = None,
        history: Sequence[Turn] = (),
    ) -> ModelRequest:
        """The answer request for this query point from ``parts`` (after a dialogue's
        ``history``; see :func:`~streamspatial.models.requests.item_request`)."""
        return item_request(
            self.item,
            self.query.time,
            parts,
            system=system,
            params=params,
            answering=True,
            history=history,
        )


class Agent(ABC):
    """Decides what the model is shown for each query point of one video (see the module).

    Subclasses set :attr:`name` (what ``--agent`` and the registry call it), implement
    :meth:`frames_needed` and :meth:`decide`, and may override :meth:`reset`, :attr:`label`,
    :attr:`offline`, :attr:`reads_video`, :attr:`polls` and :meth:`from_options`.
    """

    name: ClassVar[str]
    # True for an agent that runs a benchmark's polling protocol (StreamingBench's proactive
    # items, :meth:`~streamspatial.bench.base.BenchmarkAdapter.polling`).
    polls: ClassVar[bool] = False

    def video_refusal(self) -> str | None:
        """Why this agent cannot send its frames as one video (``--frames video``), or None
        when it can.  An agent that interleaves its own text with frames (memory, captions)
        sends images."""
        return f"--agent {self.name} interleaves its own text with its frames"

    @classmethod
    def from_options(cls, options: AgentOptions) -> Agent:
        """The agent a run's options ask for (``--policy``, ``--variant``, …); the default
        takes none of them."""
        return cls()

    @property
    def label(self) -> str:
        """What records call the agent's input, e.g. ``uniform-128`` or ``scene-graph[…]``."""
        return self.name

    @property
    def offline(self) -> bool:
        """True when the agent reads evidence annotations (oracle-evidence): never deployable."""
        return False

    @property
    def reads_video(self) -> bool:
        """False for an agent that sends text only: the run then opens no video at all."""
        return True

    @abstractmethod
    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        """Sorted frame indices this query will read, all ≤ ⌊t_q·fps⌋ (empty: none).

        Called before decoding for every query of the video, and again as each is asked: it
        must depend on its arguments only, not on what the agent has seen.
        """

    def reset(self, stream: VideoStream) -> None:  # noqa: B027 — optional hook
        """The video this instance follows starts (called once, before its first query)."""

    @abstractmethod
    async def decide(self, ctx: QueryContext) -> Decision:
        """Ask the model (:class:`Ask`) or answer (:class:`Answer`) for one query point."""


class StreamingAgent(Agent):
    """An agent with state fed frame by frame, in time order, by the runner."""

    @abstractmethod
    def observe(self, frame: JpegFrame) -> None:
        """One frame this agent asked for, after every earlier one and before any query
        whose prefix holds it."""


FOLD_EVERY_S = 10.0  # K, seconds between the folding agent's folds (--fold-every)


@dataclass(frozen=True)
class AgentOptions:
    """A run's options an agent may take (``streamspatial run`` flags); each agent's
    :meth:`Agent.from_options` reads the ones it uses."""

    policy: str = "uniform-128"
    params: GenerationParams = field(default_factory=GenerationParams)
    variant: str = "default"
    scorer: str = "paper"
    perception: str | None = None
    fold_every: float = FOLD_EVERY_S
    fold_memory: str = "prose"  # folding: prose, or the JSON memory of agents.fold_memory
    frames: str = "images"  # images | video: how the policy agent sends its frames
