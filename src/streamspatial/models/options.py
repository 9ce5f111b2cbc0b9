"""What each model kind takes: its backend's keywords and the run options it reads.

A kind (``random``, ``frequent``, ``openai``, ``hf``) declares two things, without importing
its backend: ``takes``, the keywords its backend is built with (a run offers every value it
has and each kind keeps its own, :func:`~streamspatial.models.registry.options_for`), and
``options``, the run options (:class:`~streamspatial.core.options.Option`) that exist for it:
``--device`` exists because ``hf:`` models run somewhere, ``--base-url`` because ``openai:``
models are served.  The run's configuration and ``streamspatial run``'s flags are made from
these declarations (``eval.options``), so a kind's option is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from streamspatial.core.options import Option

# A run's options every kind reads (the runner passes them uniformly).
CONCURRENCY = Option(
    "concurrency",
    int,
    8,
    "Requests in flight (and videos streamed) at once.",
    bounds={"ge": 1, "le": 1024},
    execution_only=True,
)
TIMEOUT = Option(
    "timeout",
    float,
    120.0,
    "Seconds per model request before it is retried (default 120).",
    bounds={"gt": 0},
    execution_only=True,
)
COMMON_OPTIONS = (CONCURRENCY, TIMEOUT)

# A served model (openai:): where, with which key, how often a failed request is asked again,
# and whether the frames' times go with a video.
BASE_URL = Option(
    "base_url",
    str | None,
    None,
    "OpenAI-compatible endpoint (default $OPENAI_BASE_URL).",
    execution_only=True,
)
API_KEY_ENV = Option(
    "api_key_env",
    str,
    "OPENAI_API_KEY",
    "Environment variable holding the API key (default OPENAI_API_KEY).",
    execution_only=True,
)
MAX_RETRIES = Option(
    "max_retries",
    int,
    6,
    "Retries of a failed request before it is recorded as an error (default 6).",
    bounds={"ge": 0},
    execution_only=True,
)
VIDEO_METADATA = Option(
    "video_metadata",
    bool,
    True,
    "openai: --frames video: leave out the frames' times (media_io_kwargs), for a vLLM "
    "server without --trust-request-mm-kwargs; the prompt still gives them.",
    flag="--no-video-metadata",
    switch=True,
)


def _device_spelling(value: str) -> str:
    """``--device`` as spelled (nothing is imported that needs torch)."""
    from streamspatial.models.hf_device import DEVICES, valid_device

    if not valid_device(value):
        raise ValueError(DEVICES)
    return value


# A local model (hf:): where it runs (not part of the result), in which precision (part of
# it), and how many requests one generate answers.
DEVICE = Option(
    "device",
    str,
    "auto",
    "hf: models: auto (default: the GPU when torch sees one) | cpu | cuda | cuda:N.",
    check=_device_spelling,
    execution_only=True,
)
DTYPE = Option(
    "dtype",
    Literal["auto", "bfloat16", "float16", "float32"],
    "auto",
    "hf: models: auto (default: the checkpoint's) | bfloat16 | float16 | float32.",
    cli_type=str,
)
BATCH_SIZE = Option(
    "batch_size",
    int,
    8,
    "hf: models: requests in flight answered by one generate (default 8; --concurrency "
    "twice this keeps the GPU busy).",
    bounds={"ge": 1, "le": 1024},
    execution_only=True,
)


@dataclass(frozen=True)
class ModelKind:
    """One kind of model spec: its backend's keywords and the run options it reads."""

    name: str
    takes: frozenset[str]
    options: tuple[Option, ...] = ()


# Keywords every backend takes besides its own (None values are ignored).
COMMON_TAKES = frozenset({"params", "concurrency", "timeout"})
KINDS: dict[str, ModelKind] = {
    k.name: k
    for k in (
        ModelKind("random", frozenset({"seed"})),
        ModelKind("frequent", frozenset({"records", "items"})),
        ModelKind(
            "openai",
            frozenset(
                {
                    "base_url",
                    "api_key",
                    "max_retries",
                    "trace_headers",
                    "headers",
                    "key_env",
                    "video_metadata",
                }
            ),
            (BASE_URL, API_KEY_ENV, MAX_RETRIES, VIDEO_METADATA),
        ),
        ModelKind("hf", frozenset({"device", "dtype", "batch_size"}), (DEVICE, DTYPE, BATCH_SIZE)),
    )
}


def model_options() -> tuple[Option, ...]:
    """Every model kind's run options, the common ones first."""
    out: list[Option] = list(COMMON_OPTIONS)
    for kind in KINDS.values():
        out.extend(o for o in kind.options if o not in out)
    return tuple(out)


def takes(kind: str) -> frozenset[str]:
    """The backend keywords of ``kind``, the common ones included (only those for a kind
    that is not declared)."""
    known = KINDS.get(kind)
    return COMMON_TAKES | known.takes if known is not None else COMMON_TAKES


__all__ = [
    "COMMON_OPTIONS",
    "COMMON_TAKES",
    "KINDS",
    "ModelKind",
    "model_options",
    "takes",
]
