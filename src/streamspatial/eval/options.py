"""Every option of a run, gathered from the parts that declare them.

A run reads options of its own (declared here: the benchmark file, the run folder, the scorer,
the decoding, the executor…), of its agent (``agents.options``, named by each registry entry)
and of its model's kind (``models.options``).  :data:`RUN_OPTIONS` merges the three, in the
order ``streamspatial run --help`` lists them; the run's configuration
(:class:`~streamspatial.eval.config.RunConfig`), the command's flags and
:func:`streamspatial.evaluate`'s keyword parameters are all made from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from streamspatial.agents.registry import builtin_options
from streamspatial.bench.registry import FORMATS
from streamspatial.core.options import REQUIRED, Option, merge_options
from streamspatial.models.options import model_options

# Decoding fields a run may send, or leave to the server (``--leave-to-server``).
DecodingField = Literal["temperature", "max_tokens", "top_p"]


class SamplingOverride(BaseModel):
    """One model's sampling parameters in ``sampling:``; unset fields keep the run's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    extra_body: dict[str, Any] | None = None
    leave_to_server: list[DecodingField] | None = None


_RUN = (
    Option("data", Path, REQUIRED, "Benchmark file (JSONL/JSON/parquet)."),
    Option("videos", Path, REQUIRED, "Folder holding the videos."),
    Option(
        "model",
        str,
        REQUIRED,
        "random | frequent | openai:<model-name> | hf:<local-path> | hf:ORG/NAME[@REVISION] "
        "(none with --agent scene-graph-rules)",
    ),
    Option("out", Path, REQUIRED, "Run folder (created or resumed).", execution_only=True),
    Option("format", str, "auto", "auto | " + " | ".join(FORMATS[1:])),
    Option(
        "agent",
        str,
        "policy",
        "Agent building the inputs: policy (default; it also polls the items a benchmark asks "
        "by polling, StreamingBench's proactive ones), scene-graph, scene-graph-rules, "
        "folding, spatial-caption.",
    ),
    # Actions per explorable item; 0 = off.
    Option(
        "explore_steps",
        int,
        0,
        "Exploration actions allowed per explorable simulator item (default 0: off).",
        bounds={"ge": 0, "le": 100},
    ),
    Option("limit", int | None, None, "Only the first N items.", bounds={"ge": 1}),
    Option(
        "config",
        Path | None,
        None,
        "YAML file holding any of these options; flags override it.",
        execution_only=True,
    ),
    Option("cache_dir", Path | None, None, "Frame and response cache folder.", execution_only=True),
    # Shorter side of the frames sent, px; None: the model's recipe (models.recipes), else 448.
    Option(
        "frame_size",
        int | None,
        None,
        "Shorter side of frames sent, px (default: the model's recipe, else 448).",
        bounds={"ge": 16, "le": 4096},
    ),
    # How the frames go: images, one video, or auto (video for a family whose recipe says so).
    Option(
        "frames",
        Literal["auto", "images", "video"],
        "auto",
        "images | video (the policy's frames as one video, evenly spaced) | auto (default: "
        "video for a model family whose recipe says so, the Qwen-VL family).",
        cli_type=str,
    ),
    Option("variant", str, "default", "Prompt variant: default | cot"),
    # official | paper; auto: official for a released benchmark file (scoring.scorers).
    Option(
        "scorer",
        Literal["auto", "official", "paper"],
        "auto",
        "official: the benchmark's own scoring code, prompt and frame sampling (default for a "
        "released benchmark file) | paper: the papers' formulas.",
        cli_type=str,
    ),
    # prefix: frames up to each query time only; official: the benchmark's official clip,
    # which may end later (OVO-Bench's forward probes, up to ⌈t⌉): not a streaming result.
    Option(
        "clips",
        Literal["prefix", "official"],
        "prefix",
        "prefix (default): frames up to each query time only | official: the benchmark's "
        "official clips, which may end after the query time (OVO-Bench's forward probes, up "
        "to ceil(t)); the report marks such a run.",
        cli_type=str,
    ),
    # What a dialogue's earlier turns show: the model's own answers, or what the benchmark's
    # official script shows there (StreamingBench SQA: the ground-truth answers).
    Option(
        "history",
        Literal["own", "official"],
        "own",
        "own (default): a dialogue's earlier turns show the model's own answers | official: "
        "what the benchmark's official script shows there (StreamingBench SQA: the "
        "ground-truth answers); the report marks such a run.",
        cli_type=str,
    ),
    # The language model judge of benchmarks an LLM scores (OmniMMI's open answers): any model
    # spec, served at judge_base_url (else OPENAI_BASE_URL); None: those items are not scored.
    Option(
        "judge",
        str | None,
        None,
        "Model spec of the language model judge for benchmarks an LLM scores (OmniMMI's AP, "
        "SI, MD, SG), e.g. openai:gpt-4-turbo; without one those tasks are reported not "
        "scored. Its requests carry the reference answers and never go to --model or its "
        "response cache.",
    ),
    Option(
        "judge_base_url",
        str | None,
        None,
        "--judge openai:…: its server (default OPENAI_BASE_URL).",
        execution_only=True,
    ),
    # Sampling: None = the benchmark's decoding (or a recipe's); see eval.decoding.
    Option(
        "temperature",
        float | None,
        None,
        "Sampling temperature sent (default: the benchmark's, e.g. 0 for OVO-S).",
        bounds={"ge": 0.0},
    ),
    Option(
        "max_tokens",
        int | None,
        None,
        "Answer length cap sent (default: the benchmark's, e.g. 1024 for OVO-S).",
        bounds={"ge": 1},
    ),
    Option(
        "top_p",
        float | None,
        None,
        "Nucleus sampling top_p sent (default: the benchmark's).",
        bounds={"gt": 0.0, "le": 1.0},
    ),
    # Fields sent to no server: its default holds (reasoning models refuse temperature).
    Option(
        "leave_to_server",
        list[DecodingField],
        factory=list,
        help="Comma-separated fields sent to no server, so its default holds: temperature, "
        "max_tokens, top_p (reasoning models refuse temperature).",
        listed=True,
        cli_type=str,
    ),
    Option(
        "force",
        bool,
        False,
        "Reuse a run folder holding a different configuration.",
        switch=True,
        execution_only=True,
    ),
    Option(
        "retry_errors",
        bool,
        False,
        "Ask again the query points whose record holds an error.",
        switch=True,
        execution_only=True,
    ),
    Option(
        "executor",
        Literal["local", "ray"],
        "local",
        "local (default) | ray: shard videos across Ray actors.",
        execution_only=True,
        cli_type=str,
    ),
    # Ray cluster to join (executor ray); None starts a local one.
    Option(
        "address",
        str | None,
        None,
        "--executor ray: cluster to join (auto, ray://host:10001).",
        execution_only=True,
    ),
    # Ray actors; None = one per CPU (GPU).
    Option(
        "workers",
        int | None,
        None,
        "--executor ray: actors to start (default: one per CPU/GPU).",
        bounds={"ge": 1},
        execution_only=True,
    ),
    Option(
        "progress",
        bool,
        True,
        "No progress bar.",
        flag="--no-progress",
        switch=True,
        execution_only=True,
    ),
    # A config file's (or evaluate()'s) only: the seed sent, extra request fields, and
    # per-model sampling keyed by model spec ({"openai:o3": {"max_tokens": 8000}}), whose entry
    # for the run's model overrides the fields above (a sweep's models need not share them).
    Option("seed", int | None, None, cli=False),
    Option("extra_body", dict[str, Any], factory=dict, cli=False),
    Option("sampling", dict[str, SamplingOverride], factory=dict, cli=False),
)

# The order ``streamspatial run --help`` lists the options in (and RunConfig's fields).
_ORDER = (
    "data",
    "videos",
    "model",
    "policy",
    "out",
    "format",
    "agent",
    "fold_every",
    "fold_memory",
    "perception",
    "explore_steps",
    "base_url",
    "api_key_env",
    "concurrency",
    "device",
    "dtype",
    "batch_size",
    "limit",
    "timeout",
    "max_retries",
    "config",
    "cache_dir",
    "frame_size",
    "frames",
    "video_metadata",
    "variant",
    "scorer",
    "clips",
    "history",
    "judge",
    "judge_base_url",
    "temperature",
    "max_tokens",
    "top_p",
    "leave_to_server",
    "force",
    "retry_errors",
    "executor",
    "address",
    "workers",
    "progress",
    "seed",
    "extra_body",
    "sampling",
)


def _gather() -> dict[str, Option]:
    declared = merge_options(_RUN, builtin_options(), model_options())
    if set(declared) != set(_ORDER) or len(_ORDER) != len(set(_ORDER)):
        raise RuntimeError(  # a programming mistake, caught by the first import
            f"run options declared {sorted(declared)} but ordered {sorted(_ORDER)}"
        )
    return {name: declared[name] for name in _ORDER}


RUN_OPTIONS: dict[str, Option] = _gather()
# Options that change how (or where) a run executes but not what it computes: left out of the
# configuration's hash, so that resuming with another concurrency or server URL is allowed.
EXECUTION_ONLY = frozenset(o.name for o in RUN_OPTIONS.values() if o.execution_only)
# The options a command line gives (``run``, ``sweep``), and the ones it gives as switches.
CLI_OPTIONS = {o.param: o for o in RUN_OPTIONS.values() if o.cli}

__all__ = [
    "CLI_OPTIONS",
    "EXECUTION_ONLY",
    "RUN_OPTIONS",
    "DecodingField",
    "SamplingOverride",
]
