"""The library's front door: evaluate a model, load a benchmark, generate one.

::

    import streamspatial as ss

    bench = ss.generate("bench", houses=1, minutes=0.5, size=(320, 240))
    result = ss.evaluate(bench.files["ovos"], videos=bench.videos, model="frequent")
    result.headline          # {"L1": 0.41, …, "Overall": 0.38}: scores.json's headline
    result.tables["results"] # the paper's table
    result.to_frame()        # one row per query point (pandas)

Everything here is a thin layer over the rooms below it — the same code paths the command line
takes (``streamspatial run`` is :func:`run` on the flags' configuration; ``streamspatial
report`` computes the same tables), so a number from the library is the number the CLI prints.
This module sits at the top of the import graph with the CLI: nothing below imports it.
"""

from __future__ import annotations

import inspect
import logging
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamspatial.agents.contract import Agent
from streamspatial.agents.exploration import ExplorationWorld
from streamspatial.agents.registry import AgentFactory, agent_entry, agent_names, register_agent
from streamspatial.bench.base import BenchmarkAdapter, NamedByAdapter
from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import Item
from streamspatial.eval.config import RunConfig, build_config
from streamspatial.eval.execute import Notify, RunOutcome, execute
from streamspatial.eval.options import RUN_OPTIONS
from streamspatial.eval.results import Record, iter_records
from streamspatial.grading.aggregate import Table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from streamspatial.sim.generate import GenerateResult
    from streamspatial.sim.pipeline.config import GenerateConfig
    from streamspatial.train import TrainingSummary

log = logging.getLogger("streamspatial")

AgentSpec = str | type[Agent]


# -- benchmarks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Benchmark(NamedByAdapter):
    """A benchmark file read and validated: its format's adapter and its items."""

    path: Path
    adapter: BenchmarkAdapter
    items: tuple[Item, ...]

    @property
    def format(self) -> str:
        """The format the file was read as (its adapter's name)."""
        return self.name

    @property
    def query_points(self) -> int:
        return sum(len(it.queries) for it in self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)


def load_benchmark(
    path: str | Path, *, format: str = "auto", videos: str | Path | None = None
) -> Benchmark:
    """Read a benchmark file as released (OVO-S-Bench, VCBench, UCS-Bench, S3-Bench, VSI-Bench,
    OVO-Bench, StreamingBench, OST-Bench, VSI-SUPER).

    Raises :class:`~streamspatial.core.errors.InputError` listing every problem of the file
    (and, given ``videos``, every missing or too-short video).
    """
    from streamspatial.bench.registry import load_benchmark as load

    adapter, items = load(Path(path), format=format, videos=Path(videos) if videos else None)
    return Benchmark(Path(path), adapter, tuple(items))


# -- evaluation -------------------------------------------------------------------------------


@dataclass
class Result:
    """One evaluated run: every query point's record and the paper's tables.

    ``headline`` is the same dict as ``scores.json``'s ``headline`` (``streamspatial report``);
    ``tables`` holds ``results`` (the paper's table under the run's scorer) and, when the run
    has them, ``per_source`` and ``diagnostics`` (CR / ER per level).  ``exit_status`` is
    ``streamspatial run``'s (0: every planned query point has an error-free record, 1: some
    record holds an error; evaluating again resumes), and ``summary`` its one-line summary.
    """

    benchmark: str
    scorer: str
    headline: dict[str, float | None]
    tables: dict[str, Table]
    records: list[Record]
    counts: dict[str, int]
    offline: bool = False
    run_dir: Path | None = None
    notes: tuple[str, ...] = field(default=())
    exit_status: int = 0
    summary: str = ""

    def to_frame(self) -> pandas.DataFrame:
        """One row per query point: the record's fields, task labels and diagnostics spread
        into columns (``task.level``, ``diagnostics.compression_ratio``…)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise StreamspatialError(
                "Result.to_frame needs pandas: pip install 'streamspatial[frame]'"
            ) from None
        from dataclasses import asdict

        return pd.json_normalize([asdict(r) for r in self.records])


def run(
    config: RunConfig,
    *,
    world: ExplorationWorld | None = None,
    agent: AgentFactory | None = None,
    notify: Notify | None = None,
) -> RunOutcome:
    """Run (or resume) one configuration into ``config.out`` — ``streamspatial run``.

    Explorable items act in ``world`` (default: the simulator's episodes) when
    ``config.explore_steps`` > 0.
    """
    if config.explore_steps and world is None:
        from streamspatial.sim.explore.world import EpisodeWorld

        world = EpisodeWorld()
    return execute(config, world=world, agent=agent, notify=notify)


def evaluate(
    data: str | Path,
    videos: str | Path | None = None,
    *,
    model: str | None = None,
    policy: str = "uniform-128",
    agent: AgentSpec = "policy",
    out: str | Path | None = None,
    **options: Any,
) -> Result:
    """Evaluate ``model`` on the benchmark file ``data`` under the streaming protocol.

    ``model``: ``random``, ``frequent``, ``openai:<name>`` (``base_url=`` or
    ``$OPENAI_BASE_URL``), ``hf:<path>`` or ``hf:ORG/NAME[@REVISION]`` (a Hugging Face Hub
    id, through the Hugging Face cache); left out for an agent that answers itself.
    ``agent``: a registered name (``policy``, ``scene-graph``, ``folding``, …) or your own
    :class:`~streamspatial.agents.Agent` subclass (registered under its ``name``).
    ``out``: the run folder (created, or resumed); None runs in a temporary folder.
    ``options``: any other option of ``streamspatial run`` by its Python name (the
    signature lists each, as ``eval.options`` declares it) —
    ``format``, ``perception``, ``concurrency``, ``limit``, ``cache_dir``, ``frame_size``,
    ``scorer``, ``temperature``, ``max_tokens``, ``top_p``, ``leave_to_server`` (decoding:
    the benchmark's own unless given), ``frames`` (``auto``, ``images``, ``video``),
    ``explore_steps``, ``fold_every``, and for
    ``hf:`` models ``device`` (``auto``, ``cpu``, ``cuda``, ``cuda:N``), ``dtype`` (``auto``,
    ``bfloat16``, ``float16``, ``float32``) and ``batch_size``, …

    Returns the run's :class:`Result`; a user mistake raises
    :class:`~streamspatial.core.errors.StreamspatialError` before anything is written.
    """
    name = _agent_name(agent)
    if videos is None:
        videos = Path(data).parent / "videos"
    given: dict[str, Any] = {
        "data": Path(data),
        "videos": Path(videos),
        "model": model,
        "policy": policy,
        "agent": name,
        **options,
    }
    notes: list[str] = []

    def notify(line: str) -> None:
        notes.append(line)
        log.info(line)

    if out is not None:
        cfg = build_config({**given, "out": Path(out)})
        outcome = run(cfg, notify=notify)
        return _result(cfg.out, outcome)
    with tempfile.TemporaryDirectory(prefix="streamspatial-run-") as tmp:
        cfg = build_config({**given, "out": Path(tmp) / "run"})
        outcome = run(cfg, notify=notify)
        result = _result(cfg.out, outcome)
        result.run_dir = None
        return result


def _evaluate_signature() -> inspect.Signature:
    """``evaluate``'s parameters: its own, then every other run option by its Python name,
    typed and defaulted as declared (eval.options), so ``help(evaluate)`` and an editor show
    them all; each is passed on only when given, as a flag is."""
    own = inspect.signature(evaluate).parameters
    keyword = inspect.Parameter.KEYWORD_ONLY
    extra = [
        inspect.Parameter(
            o.name,
            keyword,
            default=o.factory() if o.factory is not None else o.default,
            annotation=o.type,
        )
        for o in RUN_OPTIONS.values()
        if o.name not in own and o.name not in _NOT_EVALUATE_OPTIONS
    ]
    kept = [p for p in own.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    return inspect.Signature([*kept, *extra], return_annotation=Result)


# Options evaluate() sets itself: the benchmark file and the run folder's configuration file.
_NOT_EVALUATE_OPTIONS = frozenset({"config"})
evaluate.__signature__ = _evaluate_signature()  # type: ignore[attr-defined]


def _agent_name(agent: AgentSpec) -> str:
    """The registered name of ``agent``; an Agent subclass is registered under its ``name``."""
    if isinstance(agent, str):
        agent_entry(agent)  # an unknown name is a one-line error now
        return agent
    if isinstance(agent, type) and issubclass(agent, Agent):
        try:
            name = agent.name
        except AttributeError:  # the ClassVar declared on Agent, never given a value
            name = None
        if not isinstance(name, str) or not name:
            raise StreamspatialError(f"{agent.__name__}: an Agent subclass needs a `name`")
        if name not in agent_names() or agent_entry(name).target is not agent:
            register_agent(name, agent)
        return name
    raise StreamspatialError(
        f"agent={agent!r}: expected a registered agent name or an Agent subclass"
    )


def _result(run_dir: Path, outcome: RunOutcome) -> Result:
    from streamspatial.eval.outcome import summary_line
    from streamspatial.report import load_run
    from streamspatial.report.tables import headline

    rep = load_run(run_dir)
    tables = {"results": rep.table}
    if rep.sources is not None:
        tables["per_source"] = rep.sources
    if rep.diagnostics is not None:
        tables["diagnostics"] = rep.diagnostics
    return Result(
        benchmark=rep.table.name,
        scorer=rep.scorer,
        headline=headline(rep.table),
        tables=tables,
        records=list(iter_records(run_dir)),
        counts={**outcome.counts, **rep.counts},
        offline=rep.offline,
        run_dir=run_dir,
        notes=outcome.notes,
        exit_status=outcome.exit_status,
        summary=summary_line(run_dir, outcome.counts, scorer=outcome.scorer),
    )


# -- generation -------------------------------------------------------------------------------


def generate(
    out: str | Path,
    *,
    houses: int = 3,
    minutes: float = 1.0,
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
    **options: Any,
) -> GenerateResult:
    """Render a simulator benchmark into ``out``: houses, egocentric walks with exact 3D ground
    truth, and question files in the OVO-S-Bench, S3-Bench and VCBench formats.

    ``options`` are the generator's (``streamspatial sim generate``): ``size`` (width,
    height), ``fps``, ``split``, ``per_family``, ``identity_turns``, ``rooms``, ….
    ``progress(stage, done, total)`` is called as each stage advances (``plan``: walks,
    ``render``: frames, ``ask``: walks, ``fill``, ``prune``, ``export``; total -1: not known
    yet); ``executor="ray"`` runs the walks on Ray actors, the same files.  With
    ``split="train"`` the folder also gets ``train.jsonl``, the training records
    ``streamspatial export-sft`` exports (``.files["train"]``; docs/training.md).  Returns
    where the files and
    videos are (``.files[format]``, ``.videos``) and the items.  Needs the ``sim`` extra.
    """
    from streamspatial.sim.pipeline.config import GenerateConfig

    cfg = GenerateConfig(out=Path(out), houses=houses, minutes=minutes, seed=seed, **options)
    return generate_from(cfg, progress)


def generate_from(
    cfg: GenerateConfig,
    progress: Callable[[str, int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    *,
    training: Callable[[Callable[[], TrainingSummary]], TrainingSummary] | None = None,
) -> GenerateResult:
    """:func:`generate` on a configuration already made (``streamspatial sim generate``'s).

    ``notice`` receives the lines said before rendering (walks lengthened, families that will
    fall short).  With ``split="train"`` the training records are written beside the items;
    ``training(write)`` runs ``write`` and returns its summary (the command line runs it under
    a status line, and prints the summary).
    """
    from streamspatial.sim.generate import generate_benchmark

    cfg.check()
    result = generate_benchmark(cfg, progress, notice)
    if cfg.split == "train":  # the training records beside the items (docs/training.md)
        from streamspatial.train import write_training_set

        def write() -> TrainingSummary:
            return write_training_set(result.out)

        result.files["train"] = (training(write) if training is not None else write()).path
    return result


__all__ = [
    "Benchmark",
    "Result",
    "RunConfig",
    "RunOutcome",
    "evaluate",
    "generate",
    "generate_from",
    "load_benchmark",
    "run",
]
