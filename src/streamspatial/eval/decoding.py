"""What a run sends as decoding settings, and where each value comes from.

A number is comparable with a paper's only when the model decoded as the benchmark says, so a
run sends its benchmark's official decoding (:class:`~streamspatial.bench.base.
GenerationSettings`) unless something stronger sets a field.  Field by field, the first of
these that sets it wins:

1. a flag (``--temperature``, ``--max-tokens``, ``--top-p``, or ``--leave-to-server``);
2. the run's model's entry in ``sampling:`` (a sweep's models need not share settings);
3. the configuration file's own ``temperature`` / ``max_tokens`` / ``top_p``;
4. the model family's reasoning recipe when thinking is on (OVO-S-Bench Table 14:
   8K–32K tokens by family; :mod:`streamspatial.models.recipes`);
5. the benchmark's declared decoding.

A field "left to the server" (``leave_to_server``, or one the benchmark's official code does
not send) is not sent at all, so the server's own default holds: reasoning models refuse
``temperature``.  ``run.json`` records what was sent and where each value came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.config import RunConfig
from streamspatial.models.recipes import ModelRecipe
from streamspatial.models.types import GenerationParams

FIELDS = ("temperature", "max_tokens", "top_p")
SERVER = "server"  # a field not sent


@dataclass(frozen=True)
class Decoding:
    """The run's decoding: the parameters sent, and each field's source."""

    params: GenerationParams
    sources: dict[str, str]
    thinking: bool = False

    def record(self) -> dict[str, Any]:
        """``run.json``'s ``decoding``: ``sent`` (the body's fields) and ``from``."""
        sent = self.params.as_dict()
        return {"sent": sent, "from": dict(self.sources), "thinking": self.thinking}


def thinking_on(extra: dict[str, Any], recipe: ModelRecipe | None, model: str) -> bool:
    """Thinking is on when the run turns it on (``chat_template_kwargs.enable_thinking``), or,
    the run saying nothing, when the model is a thinking variant of its family."""
    kwargs = extra.get("chat_template_kwargs")
    if isinstance(kwargs, dict) and "enable_thinking" in kwargs:
        return bool(kwargs["enable_thinking"])
    return recipe is not None and recipe.thinks_by_name(model)


def resolve_decoding(
    cfg: RunConfig, adapter: BenchmarkAdapter, recipe: ModelRecipe | None
) -> Decoding:
    """The decoding ``cfg`` sends on ``adapter``'s benchmark (the module says in what order);
    a flag that both sets a field and leaves it to the server is one line, exit 2."""
    entry = cfg.sampling.get(cfg.model)
    extra = dict(cfg.extra_body)
    if entry is not None and entry.extra_body is not None:
        extra = dict(entry.extra_body)
    seed = entry.seed if entry is not None and entry.seed is not None else cfg.seed
    thinking = thinking_on(extra, recipe, cfg.model)
    flagged = {f for f in FIELDS if f in cfg.flags and getattr(cfg, f) is not None}
    flag_leave = set(cfg.leave_to_server) if "leave_to_server" in cfg.flags else set()
    both = sorted(flagged & flag_leave)
    if both:
        raise StreamspatialError(
            f"--{both[0].replace('_', '-')} sets what --leave-to-server {both[0]} leaves to the "
            "server: give one of them"
        )
    layers: list[tuple[str, dict[str, Any], set[str]]] = [
        ("flag", {f: getattr(cfg, f) for f in flagged}, flag_leave),
    ]
    if entry is not None:
        values = {f: getattr(entry, f) for f in FIELDS if getattr(entry, f) is not None}
        layers.append((f"sampling: {cfg.model}", values, set(entry.leave_to_server or ())))
    file_values = {
        f: getattr(cfg, f) for f in FIELDS if f not in cfg.flags and getattr(cfg, f) is not None
    }
    file_leave = set() if "leave_to_server" in cfg.flags else set(cfg.leave_to_server)
    layers.append((f"config {cfg.config}" if cfg.config else "config", file_values, file_leave))
    if thinking and recipe is not None and recipe.thinking is not None:
        t = recipe.thinking
        values = {"temperature": t.temperature, "max_tokens": t.max_tokens, "top_p": t.top_p}
        layers.append(
            (f"{recipe.family} thinking recipe ({t.source})",
             {k: v for k, v in values.items() if v is not None}, set()),
        )  # fmt: skip
    generation = adapter.generation
    bench = {f: v for f, v in generation.fields().items() if v is not None}
    layers.append((f"{adapter.title}: {generation.source}", bench, set()))
    chosen: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for field in FIELDS:
        for label, values, leave in layers:
            if field in leave:
                sources[field] = f"{SERVER} (left by {label})"
                break
            if field in values:
                chosen[field] = values[field]
                sources[field] = label
                break
        else:
            sources[field] = f"{SERVER} ({adapter.title}'s official code sends none)"
    params = GenerationParams(**chosen, seed=seed, extra=extra)
    return Decoding(params, sources, thinking)


__all__ = ["FIELDS", "SERVER", "Decoding", "resolve_decoding", "thinking_on"]
