"""The run configuration: every flag of ``streamspatial run``, from the command line or a YAML file.

One pydantic model holds the flags so that a YAML file and the command line mean exactly the
same thing, unknown keys are refused (a typo in a config file must not silently fall back to a
default), and the *result-affecting* part of the configuration hashes to one stable value.  A run
folder remembers that hash: resuming with a different configuration would mix two experiments
in one ``predictions.jsonl``, so it is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from streamspatial.agents.contract import FOLD_EVERY_S
from streamspatial.core.errors import InputError, Problem

# Fields that change *how* (or where) a run executes but not *what* it computes; left out of the
# hash so that resuming with, say, another concurrency or a restarted server's URL is allowed.
_EXECUTION_ONLY = frozenset(
    {
        "out",
        "concurrency",
        "cache_dir",
        "config",
        "force",
        "api_key_env",
        "progress",
        "timeout",
        "max_retries",
        "retry_errors",
        "base_url",
        "executor",
        "address",
        "workers",
        "device",  # where the model runs; its precision (dtype) is part of the result
        "batch_size",
        "judge_base_url",  # where the judge is served, not which judge
    }
)


# Decoding fields a run may send, or leave to the server (``--leave-to-server``).
DecodingField = Literal["temperature", "max_tokens", "top_p"]
DEFAULT_FRAME_SIZE = 448  # px, the shorter side, for a model no recipe sizes


class SamplingOverride(BaseModel):
    """One model's sampling parameters in ``sampling:``; unset fields keep the run's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    extra_body: dict[str, Any] | None = None
    leave_to_server: list[DecodingField] | None = None


class RunConfig(BaseModel):
    """Everything ``streamspatial run`` needs; paths are kept as the user gave them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: Path
    format: str = "auto"
    videos: Path
    model: str
    policy: str = "uniform-128"
    agent: str = "policy"
    fold_every: float = Field(default=FOLD_EVERY_S, gt=0)  # folding agent: seconds between folds
    fold_memory: Literal["prose", "json"] = "prose"  # folding agent: the memory's layout
    explore_steps: int = Field(default=0, ge=0, le=100)  # actions per explorable item; 0 = off
    perception: str | None = None  # memory agents: ground-truth[:noise=S], classical, model:…
    out: Path
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = Field(default=8, ge=1, le=1024)
    # Local models (hf:): where they run, in which precision, how many requests per generate.
    device: str = "auto"
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = "auto"
    batch_size: int = Field(default=8, ge=1, le=1024)
    timeout: float = Field(default=120.0, gt=0)  # seconds per model request
    max_retries: int = Field(default=6, ge=0)
    limit: int | None = Field(default=None, ge=1)
    cache_dir: Path | None = None
    # Shorter side of the frames sent, px; None: the model's recipe (models.recipes), else 448.
    frame_size: int | None = Field(default=None, ge=16, le=4096)
    # How the frames go: images, one video, or auto (video for a family whose recipe says so).
    frames: Literal["auto", "images", "video"] = "auto"
    # openai: video mode: the frames' times as vLLM's per-request media_io_kwargs.
    video_metadata: bool = True
    variant: str = "default"
    # official | paper; auto: official for a released benchmark file (scoring.scorers)
    scorer: Literal["auto", "official", "paper"] = "auto"
    # prefix: frames up to each query time only; official: the benchmark's official clip,
    # which may end later (OVO-Bench's forward probes, up to ⌈t⌉): not a streaming result.
    clips: Literal["prefix", "official"] = "prefix"
    # What a dialogue's earlier turns show: the model's own answers, or what the benchmark's
    # official script shows there (StreamingBench SQA: the ground-truth answers).
    history: Literal["own", "official"] = "own"
    # The language model judge of benchmarks an LLM scores (OmniMMI's open answers): any model
    # spec, served at judge_base_url (else OPENAI_BASE_URL); None: those items are not scored.
    judge: str | None = None
    judge_base_url: str | None = None
    # Sampling: None = the benchmark's decoding (or a recipe's); see eval.decoding.
    temperature: float | None = Field(default=None, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)
    # Per-model sampling, keyed by model spec: {"openai:o3": {"max_tokens": 8000}}; the entry
    # of the run's model overrides the fields above (a sweep's models need not share them).
    sampling: dict[str, SamplingOverride] = Field(default_factory=dict)
    # Fields sent to no server: its default holds (reasoning models refuse temperature).
    leave_to_server: list[DecodingField] = Field(default_factory=list)
    force: bool = False
    retry_errors: bool = False
    progress: bool = True
    executor: Literal["local", "ray"] = "local"
    address: str | None = None  # Ray cluster to join (executor ray); None starts a local one
    workers: int | None = Field(default=None, ge=1)  # Ray actors; None = one per CPU (GPU)
    config: Path | None = None
    # The options given on the command line (or to evaluate()), not by the config file: a
    # flag outranks a per-model sampling: entry, which outranks the file's own values.
    _flags: frozenset[str] = PrivateAttr(default=frozenset())

    @property
    def flags(self) -> frozenset[str]:
        return self._flags

    @field_validator("device")
    @classmethod
    def _device_spelling(cls, value: str) -> str:
        from streamspatial.models.hf_device import DEVICES, valid_device

        if not valid_device(value):
            raise ValueError(DEVICES)
        return value

    def sampling_fields(self) -> dict[str, Any]:
        """temperature, max_tokens, top_p, seed, extra_body for this run's model."""
        out = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            "extra_body": dict(self.extra_body),
        }
        own = self.sampling.get(self.model)
        if own is not None:
            out.update(own.model_dump(exclude_none=True))
        return out

    def result_fields(self, resolved: dict[str, Any] | None = None) -> dict[str, Any]:
        """The part of the configuration that determines the predictions, JSON-ready.

        ``resolved``: what the run settled once its benchmark and model were known (the
        decoding sent, how frames go and their size): it stands for the options it came from.
        """
        raw = self.model_dump(mode="json", exclude=set(_EXECUTION_ONLY) | {"sampling"})
        raw.update(self.sampling_fields())  # only this model's entry counts
        for key in ("frames", "video_metadata", "leave_to_server"):  # added later: unset keeps
            if raw.get(key) == RunConfig.model_fields[key].get_default(call_default_factory=True):
                raw.pop(key)  # older runs' hashes
        if raw.get("frame_size") is None:
            raw["frame_size"] = DEFAULT_FRAME_SIZE
        if resolved is not None:
            for key in ("temperature", "max_tokens", "top_p", "seed", "extra_body", "frames",
                        "video_metadata", "leave_to_server", "frame_size"):  # fmt: skip
                raw.pop(key, None)
            raw.update(resolved)
        if raw.get("perception") is None:  # runs made before --perception keep their hash
            raw.pop("perception", None)
        if raw.get("scorer") == "paper":  # runs made before --scorer were scored by the paper
            raw.pop("scorer")
        if raw.get("fold_memory") == "prose":  # runs made before --fold-memory folded prose
            raw.pop("fold_memory")
        if raw.get("clips") == "prefix":  # runs made before --clips keep their hash
            raw.pop("clips")
        if raw.get("history") == "own":  # runs made before --history keep their hash
            raw.pop("history")
        if raw.get("judge") is None:  # runs made before --judge keep their hash
            raw.pop("judge", None)
        for key in ("top_p",):  # fields added later leave older runs' hashes alone when unset
            if raw.get(key) is None:
                raw.pop(key, None)
        if raw.get("dtype") == "auto":  # the checkpoint's own precision, as before --dtype
            raw.pop("dtype")
        for key in ("data", "videos"):
            raw[key] = str(Path(raw[key]).expanduser().resolve())
        return raw

    def config_hash(self, resolved: dict[str, Any] | None = None) -> str:
        blob = json.dumps(self.result_fields(resolved), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def public_dict(self) -> dict[str, Any]:
        """What ``run.json`` records: every field, paths as strings, never a secret (URLs lose
        their userinfo and credential parameters)."""
        from streamspatial.core.secrets import redact_obj

        return redact_obj(self.model_dump(mode="json"))


def load_config_file(path: Path) -> dict[str, Any]:
    """Read a YAML config into a flat dict, naming the file in any error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            Problem(file=str(path), field="", expected="config file not found")
        ) from None
    except OSError as exc:
        raise InputError(
            Problem(file=str(path), field="", expected=f"cannot read: {exc.strerror or exc}")
        ) from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise InputError(
            Problem(file=str(path), field="", location=f"line {line}",
                    expected=f"expected UTF-8 text (byte 0x{exc.object[exc.start]:02x})")
        ) from None  # fmt: skip
    try:
        raw = yaml.safe_load(text)
    except RecursionError:
        raise InputError(
            Problem(file=str(path), field="", expected="expected YAML nested less deeply")
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        loc = f"line {mark.line + 1}" if mark is not None else ""
        raise InputError(
            Problem(file=str(path), field="", location=loc, expected="expected valid YAML")
        ) from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(
            Problem(
                file=str(path), field="", expected="expected a mapping of option names to values"
            )
        )
    for key, value in raw.items():
        # Aliases (``*a``) share one object: a few lines can stand for billions of values, or
        # for a loop, which run.json would then write out in full.
        if _expanded_size(value, MAX_CONFIG_VALUES) > MAX_CONFIG_VALUES:
            raise InputError(
                Problem(
                    file=str(path),
                    field=str(key),
                    expected=f"expected at most {MAX_CONFIG_VALUES:,} values once YAML "
                    "aliases are expanded (an alias loop or an alias bomb?)",
                )
            )
    # Accept the flag spelling too (``base-url``) so a config reads like the command line.
    return {str(k).replace("-", "_"): v for k, v in raw.items()}


MAX_CONFIG_VALUES = 10_000  # far more than any real option needs (extra_body included)


def _expanded_size(value: Any, budget: int, _path: tuple[int, ...] = ()) -> int:
    """How many values ``value`` holds with every alias expanded; stops once over ``budget``
    (and counts a container inside itself as over it)."""
    if not isinstance(value, (dict, list)):
        return 1
    if id(value) in _path:
        return budget + 1
    path = (*_path, id(value))
    total = 1
    children = [*value.keys(), *value.values()] if isinstance(value, dict) else value
    for child in children:
        total += _expanded_size(child, budget - total, path)
        if total > budget:
            return total
    return total


def _answers_as(agent: Any) -> str | None:
    """The model name an agent answers as when it needs none; None for any other (or an
    unknown name, refused when the run resolves it)."""
    from streamspatial.agents.registry import agent_entry, agent_names

    if not isinstance(agent, str) or agent not in agent_names():
        return None
    return agent_entry(agent).answers_as


def build_config(cli: dict[str, Any], config_file: Path | None = None) -> RunConfig:
    """Merge a config file with command-line values (the command line wins) and validate.

    ``cli`` holds only the flags the user actually gave (``None`` means not given).
    """
    merged: dict[str, Any] = {}
    source = "command line"
    if config_file is not None:
        merged.update(load_config_file(config_file))
        source = str(config_file)
    merged.update({k: v for k, v in cli.items() if v is not None})
    if config_file is not None:
        merged["config"] = config_file
    own = _answers_as(merged.get("agent"))
    if own is not None:  # an agent answering without a model is its own "model" (rules)
        merged.setdefault("model", own)
    try:
        cfg = RunConfig(**merged)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "?"
            if err["type"] == "extra_forbidden":
                expected = "unknown option"
            elif err["type"] == "missing":
                expected = "required option missing (give it on the command line or in the file)"
            elif err["type"] == "value_error":
                expected = f"expected {err['msg'].removeprefix('Value error, ')}"
            else:
                expected = f"expected {err['msg'].removeprefix('Input should be ').lower()}"
            problems.append(Problem(file=source, field=key, expected=expected))
        raise InputError(problems) from None
    cfg._flags = frozenset(k for k, v in cli.items() if v is not None)
    return cfg
