"""The adapter interface every benchmark format implements.

An adapter reads a file *as released* into unified :class:`~streamspatial.core.Item` s,
collecting every problem rather than stopping at the first, writes the benchmark's own prompt
for a query point, and says how its answers are scored and tabulated.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from streamspatial.core.errors import Problem
from streamspatial.core.schema import Item, QueryPoint

from ._files import first_keys


@dataclass(frozen=True)
class ScoringSpec:
    """How a benchmark scores and tabulates.

    These are the *paper* scorer's rules (``--scorer paper``); ``--scorer official`` follows
    the code named by ``official`` (see :mod:`streamspatial.scoring.scorers`).

    ``invalid``: what an unparseable answer counts as — ``"wrong"`` (OVO-S-Bench: it stays in
    every denominator) or ``"exclude"`` (VCBench: left out of the metric, invalid rate
    reported).  ``number_metric``: ``"mra"`` (S3-Bench, VSI-Bench), ``"gpa"`` (VCBench counting
    trajectories) or ``"exact"``.  ``table``: the layout of the paper's results table, by its
    name among :data:`streamspatial.scoring.tables.TABLES`; left None, an adapter's class gives
    it the benchmark's own, its format name, or ``"generic"`` outside a benchmark's folder
    (:meth:`BenchmarkAdapter.__init_subclass__`).
    """

    invalid: Literal["wrong", "exclude"] = "wrong"
    number_metric: Literal["mra", "gpa", "exact"] = "mra"
    table: str | None = None
    # The benchmark's official scoring code, which ``--scorer official`` reproduces; None when
    # the benchmark publishes none (then the official scorer is the paper's formulas).
    official: str | None = None


@dataclass(frozen=True)
class GenerationSettings:
    """A benchmark's official decoding, as plain values with where they are written.

    What a run sends by default (``run``, ``sweep``, ``evaluate``): a flag, a per-model
    ``sampling:`` entry or a thinking model's recipe override it field by field.  A field left
    ``None`` is not sent, as the benchmark's official code does not send it (the server's own
    default holds).  Plain values, not the models' request type: ``bench`` imports no model
    code.  ``temperature`` 0 is greedy decoding.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    source: str = ""

    def fields(self) -> dict[str, float | int | None]:
        """The decoding fields by name (``temperature``, ``max_tokens``, ``top_p``)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens,
                "top_p": self.top_p}  # fmt: skip


# The papers' protocol for a benchmark whose official code fixes no decoding of its own:
# greedy with a 1,024-token cap (OVO-S-Bench App. G.2, the non-reasoning baseline).
PAPERS_PROTOCOL = "OVO-S-Bench App. G.2: greedy, 1,024-token cap"


def greedy(max_tokens: int, source: str) -> GenerationSettings:
    """Greedy decoding (temperature 0) capped at ``max_tokens``, as most benchmarks' official
    code fixes it; ``source`` names where."""
    return GenerationSettings(temperature=0.0, max_tokens=max_tokens, source=source)


def papers_protocol(why: str) -> GenerationSettings:
    """Greedy with 1,024 tokens (:data:`PAPERS_PROTOCOL`), for a benchmark that publishes no
    decoding of its own; ``why`` says so."""
    return greedy(1024, f"{why}; the papers' protocol, {PAPERS_PROTOCOL}")


@dataclass
class LoadResult:
    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Where each item was read from ("line 12", "row 3"), so later checks (videos) can point
    # at the exact place in the file.
    locations: dict[str, str] = field(default_factory=dict)

    def add(self, item: Item | None, location: str) -> bool:
        """Keep a valid item with where it came from; ``None`` (a row with problems) is skipped."""
        if item is None:
            return False
        self.items.append(item)
        self.locations[item.id] = location
        return True


@dataclass(frozen=True)
class DialogueTurn:
    """An earlier turn of a dialogue: its item (whose reply the model gave), the span of
    seconds ``[start, end]`` holding the frames that turn added, and the prompt it was asked."""

    item_id: str
    start: float
    end: float
    prompt: str


@dataclass(frozen=True)
class Dialogue:
    """A turn of a multi-turn dialogue (OST-Bench): the earlier turns, each re-sent with its
    own frames, prompt and the model's own reply; this turn shows the frames from ``start``."""

    earlier: tuple[DialogueTurn, ...]
    start: float


@dataclass(frozen=True)
class Polling:
    """A proactive item, asked by polling rather than once (StreamingBench's Proactive Output).

    A benchmark declares it per item (:meth:`BenchmarkAdapter.polling`), as it declares a
    dialogue, and whatever agent runs the item follows it: at each time ``start + every``,
    ``start + 2·every``, … up to ``until`` (never past the query time) the model is shown the
    frames of ``[shown_from, t]`` (``shown_from`` None: ``start``) and asked ``probe``; on a
    reply containing "yes" (any case) it is asked ``answer`` at that same time (when there is
    one), and polling stops unless ``stop_at_yes`` is False (then every "yes" is recorded and
    polling goes on, as alerting benchmarks count each alert).
    """

    start: float
    until: float
    probe: str
    answer: str | None = None
    every: float = 1.0
    shown_from: float | None = None
    stop_at_yes: bool = True

    @property
    def window_start(self) -> float:
        """Where every poll's frames begin."""
        return self.start if self.shown_from is None else self.shown_from

    def times(self, t_q: float) -> list[float]:
        """The poll times, in order, none after ``until`` or ``t_q``."""
        out: list[float] = []
        k = 1
        while (t := self.start + k * self.every) <= min(self.until, t_q) + 1e-9:
            out.append(round(t, 6))
            k += 1
        return out


# meta key: the item is asked at the end of its video, which only the video knows; its query
# time is a placeholder 0.0 until :meth:`BenchmarkAdapter.with_duration` sets it.
QUERY_AT_END = "query_at_end"


def interval_sampling(total: int, k: int) -> list[int]:
    """MMSI-Video-Bench ``dataset.py`` ``interval_sampling_list``: ``int(i · (total − 1) /
    (k − 1))`` for ``i < k`` (``[0]·k`` when ``k`` is 1), float arithmetic as written."""
    step = (total - 1) / (k - 1) if k > 1 else 0
    return [int(i * step) for i in range(k)]


@dataclass(frozen=True)
class Clips:
    """An item made of several clips and reference images (MMSI-Video-Bench).

    Its stream is every clip's released frames in listed order, then the reference images, one
    image a second (:meth:`BenchmarkAdapter.frame_files`); ``sizes`` counts each clip's frames
    and ``refs`` the reference images.  The prompt names where each goes: every ``<video>``
    placeholder takes its clip's sampled frames, every ``<image>`` a reference image.  The
    whole clips are shown, with no query time: an offline protocol, marked so.
    """

    sizes: tuple[int, ...]
    refs: int
    video_tag: str = "<video>"
    image_tag: str = "<image>"

    def frames(self, budget: int) -> list[list[int]]:
        """Stream indices shown of each clip: ``dataset.py`` ``proportional_sample_from_lists``
        when the clips hold more than ``budget`` frames (a clip left without one shows its
        first), else every frame."""
        offsets = [sum(self.sizes[:i]) for i in range(len(self.sizes))]
        total = sum(self.sizes)
        if total <= budget:
            return [list(range(o, o + n)) for o, n in zip(offsets, self.sizes, strict=True)]
        picked = interval_sampling(total, budget)
        out = []
        for o, n in zip(offsets, self.sizes, strict=True):
            local = [k - o for k in picked if o <= k < o + n] or [0]
            out.append([o + j for j in local])
        return out

    def ref_indices(self) -> list[int]:
        """Stream indices of the reference images, after every clip's frames."""
        first = sum(self.sizes)
        return list(range(first, first + self.refs))


# Report figures a benchmark may list in ``BenchmarkAdapter.figures`` (beyond those every
# benchmark gets): per-question prediction trajectories over the query points (VCBench).
TRAJECTORIES = "trajectories"


@dataclass(frozen=True)
class PromptOptions:
    """How a prompt is asked for: ``variant`` (``default`` or ``cot``), text only (no frames
    shown), the model's earlier answers of a chain, and the scorer whose words to use."""

    variant: Literal["default", "cot"] = "default"
    text_only: bool = False
    prior_answers: Mapping[str, str] | None = None
    scorer: str = "paper"
    # "official": a dialogue's earlier turns as the official script shows them (``run --history``)
    history: str = "own"

    @property
    def cot(self) -> bool:
        return self.variant == "cot"

    @property
    def official(self) -> bool:
        return self.scorer == "official"


class BenchmarkAdapter(ABC):
    """One benchmark format: read, validate, prompt, and everything its reports need to know.

    Besides reading and prompting, an adapter carries how its benchmark is *presented*, so
    no report, demo or server branches on benchmark names: ``title`` (as its paper names it),
    ``short_title`` (a narrow column), ``headline_metric`` (the one number a summary shows),
    ``figures`` (report figures that apply to it beyond the common ones), ``scoring`` (how
    answers are scored and which results table lays them out) and ``generation`` (its official
    decoding, :class:`GenerationSettings`, sent by default).

    ``--format auto`` recognises a file by the field names of its first record (or its parquet
    columns): it must have every key of ``keys_all`` and, when ``keys_any`` is not empty, at
    least one of ``keys_any``.  An adapter whose format needs more than that overrides
    :meth:`sniff`.
    """

    # The short format name used by --format (ovos, vcbench, ucs, s3, vsibench): the name of
    # the benchmark's folder, bench/<name>/, for an adapter there (:meth:`__init_subclass__`).
    name: ClassVar[str]
    title: ClassVar[str]
    short_title: ClassVar[str]
    headline_metric: ClassVar[str] = "Overall"
    figures: ClassVar[tuple[str, ...]] = ()
    scoring: ClassVar[ScoringSpec]
    generation: ClassVar[GenerationSettings]
    keys_all: ClassVar[frozenset[str]]
    keys_any: ClassVar[frozenset[str]] = frozenset()
    # The frame policy the benchmark's official code samples with, which ``--scorer
    # official`` applies in place of ``--policy`` (RTV-Bench: 8 uniform frames of its clip);
    # None: the OVO-S-Bench sampling rules of ``--policy`` (docs/reproducing.md).
    official_policy: ClassVar[str | None] = None
    # How its questions meet the stream: "streaming" (asked at times, shown the prefix) or
    # "offline" (whole clips, no query time: MMSI-Video-Bench), which every report marks.
    protocol: ClassVar[str] = "streaming"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """An adapter in a benchmark's own folder (``streamspatial.bench.<name>.reader``) is
        named by that folder, the one place the name is written (the registry lists each
        folder's record by it), and its results table is the benchmark's own, under that name;
        an adapter elsewhere names itself, and its table is the generic one unless it names
        another."""
        super().__init_subclass__(**kwargs)
        package, _, module = cls.__module__.rpartition(".")
        home, _, folder = package.rpartition(".")
        housed = home == __package__ and module == "reader"
        if "name" not in cls.__dict__ and housed:
            cls.name = folder
        spec = cls.__dict__.get("scoring")
        if spec is not None and spec.table is None:
            cls.scoring = replace(spec, table=cls.name if housed else "generic")

    def sniff(self, path: Path) -> bool:
        """True when ``path`` looks like this format (used by ``--format auto``)."""
        keys = first_keys(path)
        return self.keys_all <= keys and (not self.keys_any or bool(self.keys_any & keys))

    def reads_folder(self, path: Path) -> bool:
        """True when ``path`` is a release folder this adapter reads whole (OmniMMI's six task
        lists, so one run holds every task its headline averages); by default none."""
        return False

    @abstractmethod
    def load(self, path: Path) -> LoadResult:
        """Read and validate the whole file; never raises for bad content."""

    def record_id(self, item: Item) -> str:
        """The id of the release record ``item`` was read from, as predictions made elsewhere
        name it (an OVO-Bench forward probe: its item's ``id``); by default the item's own."""
        return item.id

    def video_path(self, item: Item, videos: Path) -> Path:
        """Where the item's video (or 1 fps frame folder) is under ``videos``."""
        return videos / item.video

    def prompt(
        self,
        item: Item,
        query: QueryPoint,
        *,
        variant: Literal["default", "cot"] = "default",
        text_only: bool = False,
        prior_answers: Mapping[str, str] | None = None,
        scorer: str = "paper",
        history: str = "own",
    ) -> str:
        """The benchmark's own prompt text for one query point.

        ``prior_answers`` maps an item id to the *model's* earlier answer (S3-Bench multi-turn
        chains); ground truth never enters a prompt, except where ``history="official"`` asks
        for a dialogue's earlier turns as the benchmark's official script shows them (``run
        --history official``: StreamingBench SQA recounts them with their ground-truth answers;
        such a run is marked).  ``scorer="official"`` asks for the words the benchmark's
        official code sends, where they differ from the paper's.
        """
        return self.render_prompt(
            item, query, PromptOptions(variant, text_only, prior_answers, scorer, history)
        )

    @abstractmethod
    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        """:meth:`prompt`, with its options in one value."""

    def system_prompt(self, item: Item) -> str | None:
        """The benchmark's system prompt, if its protocol has one (S3-Bench does)."""
        return None

    # -- protocols beyond "frames up to t_q, one question" -------------------------------------

    def clip_end(self, item: Item, query: QueryPoint) -> float:
        """Where the benchmark's official clip for ``query`` ends (``run --clips official``):
        the query time, unless its released cutting shows more (OVO-Bench's forward probes)."""
        return query.time

    def with_duration(self, item: Item, duration: float) -> Item:
        """The item once its video's length is known (``load_benchmark(..., videos=DIR)``): a
        question asked at the end of its video (``meta["query_at_end"]``: VSI-Bench, OmniMMI's
        untimed tasks) gets that time; anything else is unchanged."""
        if not item.meta.get(QUERY_AT_END):
            return item
        q = item.queries[0].model_copy(update={"time": duration})
        meta = {**item.meta, QUERY_AT_END: False}
        return item.model_copy(update={"queries": (q,), "meta": meta})

    def official_clip_refusal(self, item: Item) -> str | None:
        """Why the benchmark's official offline pipeline cannot ask ``item`` at all (``run
        --clips official`` reproduces that pipeline): the item is then recorded invalid with
        this note and nothing is sent; None for an item it asks (every one, by default)."""
        return None

    def frame_files(self, item: Item, videos: Path) -> tuple[Path, ...] | None:
        """The still images the item's video is, in order, one per second (OST-Bench's turn
        observations); None for a video file or a frame folder (:meth:`video_path`)."""
        return None

    def dialogue(self, item: Item) -> Dialogue | None:
        """The dialogue ``item`` is a turn of (OST-Bench), else None."""
        return None

    def judge_prompt(self, item: Item, query: QueryPoint, reply: str) -> tuple[str, str] | None:
        """The (system, user) messages a language model judge is asked about ``reply`` with,
        for a benchmark whose official scorer is one (OmniMMI's open answers); None for an
        item scored by rule.  They carry the reference answer, so they never go to the model
        under evaluation (``run --judge``)."""
        return None

    def clips(self, item: Item) -> Clips | None:
        """The clips and reference images an item is made of (MMSI-Video-Bench), else None:
        the benchmark fixes what is shown and where in the prompt (``agents.clips``)."""
        return None

    def polling(self, item: Item) -> Polling | None:
        """How a proactive item is polled (StreamingBench Proactive Output), else None: the
        benchmark's declaration, which every run follows without a flag (``agents.polling``)."""
        return None


class NamedByAdapter:
    """A record about one benchmark, which its adapter names: a benchmark's registration
    (:class:`streamspatial.bench.home.Benchmark`) and a file read with it
    (:class:`streamspatial.api.Benchmark`) both take its name and title from it."""

    adapter: BenchmarkAdapter

    @property
    def name(self) -> str:
        """The format name (``--format``, ``Item.benchmark``)."""
        return self.adapter.name

    @property
    def title(self) -> str:
        """The benchmark's printed name, which its results table carries."""
        return self.adapter.title
