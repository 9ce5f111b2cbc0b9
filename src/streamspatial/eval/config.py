"""The run configuration: every flag of ``streamspatial run``, from the command line or a YAML file.

One pydantic model holds the flags (its fields made from the options' declarations,
:mod:`.options`) so that a YAML file and the command line mean exactly the
same thing, unknown keys are refused (a typo in a config file must not silently fall back to a
default), and the *result-affecting* part of the configuration hashes to one stable value.  A run
folder remembers that hash: resuming with a different configuration would mix two experiments
in one ``predictions.jsonl``, so it is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    create_model,
)

from streamspatial.core.errors import InputError, Problem
from streamspatial.core.options import Option
from streamspatial.eval.options import (
    EXECUTION_ONLY,
    RUN_OPTIONS,
    DecodingField,
    SamplingOverride,
)

DEFAULT_FRAME_SIZE = 448  # px, the shorter side, for a model no recipe sizes


def _field(option: Option) -> tuple[Any, Any]:
    """An option's declaration as a pydantic field: its type, default and bounds."""
    kind = option.type
    if option.check is not None:
        kind = Annotated[kind, AfterValidator(option.check)]
    if option.factory is not None:
        return kind, Field(default_factory=option.factory, **option.bounds)
    if option.required:
        return kind, Field(**option.bounds)
    return kind, Field(default=option.default, **option.bounds)


# The fields, made from the declarations (eval.options); RunConfig adds what a run does with
# them.  The model is frozen and refuses unknown keys: a typo in a config file must not
# silently fall back to a default.
_RunFields: type[BaseModel] = create_model(
    "_RunFields",
    __config__=ConfigDict(extra="forbid", frozen=True),
    __module__=__name__,
    **{name: _field(option) for name, option in RUN_OPTIONS.items()},  # type: ignore[call-overload]
)


class RunConfig(_RunFields):  # type: ignore[misc,valid-type]
    """Everything ``streamspatial run`` needs (each field is an option of
    :data:`~streamspatial.eval.options.RUN_OPTIONS`); paths are kept as the user gave them."""

    # The options given on the command line (or to evaluate()), not by the config file: a
    # flag outranks a per-model sampling: entry, which outranks the file's own values.
    _flags: frozenset[str] = PrivateAttr(default=frozenset())

    @property
    def flags(self) -> frozenset[str]:
        return self._flags

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
        raw = self.model_dump(mode="json", exclude=set(EXECUTION_ONLY) | {"sampling"})
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


__all__ = [
    "DEFAULT_FRAME_SIZE",
    "DecodingField",
    "RunConfig",
    "SamplingOverride",
    "build_config",
    "load_config_file",
]
