"""Model specs as the CLI takes them: random, frequent, openai:<model>, hf:<folder or Hub id>."""

from __future__ import annotations

from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.models.options import KINDS, takes
from streamspatial.models.types import Backend, ModelSpec

SPECS = "random | frequent | openai:<model-name> | hf:<local-path or ORG/NAME[@REVISION]>"

# The papers' reference rows that a baseline model stands for (tables and plots name them so).
REFERENCE_ROWS = {"random": "Random", "frequent": "Frequent"}


Spec = str | ModelSpec  # a spec as the user wrote it, or as parse_spec read it


def read_spec(spec: Spec) -> ModelSpec:
    """``spec`` split into kind and argument (not checked: :func:`parse_spec` checks)."""
    if isinstance(spec, ModelSpec):
        return spec
    kind, _, arg = spec.partition(":")
    return ModelSpec(spec, kind.strip().lower(), arg)


def parse_spec(spec: Spec) -> ModelSpec:
    """A well-formed spec read once, without building or fetching anything."""
    parsed = read_spec(spec)
    kind, arg = parsed.kind, parsed.arg
    if kind not in KINDS:
        raise StreamspatialError(f"unknown model spec {parsed.text!r}; expected {SPECS}")
    if kind in ("random", "frequent") and arg:
        raise StreamspatialError(f"model spec {parsed.text!r}: {kind} takes no argument")
    if kind in ("openai", "hf") and not arg.strip():
        raise StreamspatialError(
            f"model spec {parsed.text!r}: expected {kind}:<"
            f"{'model-name' if kind == 'openai' else 'local-path'}>"
        )
    return parsed


def supported_answer_types(spec: Spec) -> frozenset[str] | None:
    """The answer types the backend named by ``spec`` can answer; None means all.

    Read from the backend class without building it, so a run can plan before opening any
    connection.
    """
    kind = read_spec(spec).kind
    if kind == "random":
        from streamspatial.models.baselines import RandomBackend

        return RandomBackend.answer_types
    return None


def check_spec(spec: Spec) -> ModelSpec:
    """A well-formed spec, without building anything (no connection, no weights), so a run
    can refuse a bad ``--model`` before it creates its folder.

    An ``hf:`` Hub id is looked up in the Hugging Face cache (or its ``config.json`` fetched):
    a model that cannot be had is refused here too."""
    parsed = parse_spec(spec)
    if parsed.kind == "hf":
        from streamspatial.models.hf_hub import check_hub_model, parse_hf_spec

        check_hub_model(parse_hf_spec(parsed.arg))
    return parsed


def check_placement(spec: Spec, device: str | None) -> None:
    """Refuse a ``--device`` this machine cannot give the model of ``spec`` (``cuda``
    without a GPU), before a run makes its folder; other kinds place nothing."""
    spec = read_spec(spec)
    if device is None or spec.kind != "hf":
        return
    from streamspatial.models.hf_device import resolve_device

    try:
        resolve_device(device)
    except ImportError as exc:
        raise StreamspatialError(
            f"{spec}: the local Hugging Face backend needs 'pip install streamspatial[hf]' ({exc})"
        ) from None


def options_for(spec: Spec, offer: dict[str, Any]) -> dict[str, Any]:
    """The options in ``offer`` that the backend kind of ``spec`` takes (a run offers every
    option it has: endpoint, key, seed, items, device…; each kind keeps its own, as
    :mod:`.options` declares)."""
    wanted = takes(read_spec(spec).kind)
    return {k: v for k, v in offer.items() if k in wanted}


def caches_responses(spec: Spec) -> bool:
    """Whether the response cache (``--cache-dir``) keeps this model's answers: real models
    do; the baselines answer instantly and deterministically, so caching them buys nothing."""
    return read_spec(spec).kind in ("openai", "hf")


def load_backend(spec: Spec, **options: Any) -> Backend:
    """The backend named by ``spec``; user mistakes raise :class:`StreamspatialError`.

    A spec already read (:class:`ModelSpec`, as a run resolves it) is not looked up again."""
    parsed = check_spec(spec) if isinstance(spec, str) else parse_spec(spec)
    kind, arg, spec = parsed.kind, parsed.arg, parsed.text
    opts = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(opts) - takes(kind))
    if unknown:
        raise StreamspatialError(
            f"model spec {spec!r} does not take option(s) {', '.join(unknown)}"
        )
    if kind == "random":
        from streamspatial.models.baselines import RandomBackend

        return RandomBackend(seed=int(opts.get("seed", 0)))
    if kind == "frequent":
        from streamspatial.models.baselines import FrequentBackend

        if "records" in opts:
            return FrequentBackend(opts["records"])
        if "items" in opts:
            return FrequentBackend.from_items(opts["items"])
        raise StreamspatialError(
            "the frequent baseline needs the benchmark's items to count "
            "answers from (pass items=...)"
        )
    if kind == "openai":
        from streamspatial.models.openai_compat import OpenAIChatBackend

        # every keyword it takes (models.options) is one of OpenAIChatBackend's
        return OpenAIChatBackend(arg.strip(), **opts)
    try:
        from streamspatial.models.hf_hub import parse_hf_spec
        from streamspatial.models.hf_local import HFLocalBackend
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise StreamspatialError(
            f"{spec}: the local Hugging Face backend needs 'pip install streamspatial[hf]' ({exc})"
        ) from None
    kw = {k: opts[k] for k in ("device", "dtype", "batch_size", "params") if k in opts}
    return HFLocalBackend(parse_hf_spec(arg), **kw)
