"""Where a local model runs and in which precision: ``--device`` and ``--dtype``.

``auto`` is the GPU when torch sees one, else the CPU, so the default command on a GPU machine
uses the GPU.  ``cuda`` places the whole model on the first visible GPU when it fits there,
and spreads it over every visible GPU (``device_map="auto"``, accelerate) when it does not;
``cuda:N`` pins it to GPU N.  Asking for a GPU torch cannot see is one line before anything
is loaded.  Ray gives each actor one GPU by setting ``CUDA_VISIBLE_DEVICES``, so inside an
actor ``cuda`` is that GPU and nothing spreads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from streamspatial.core.errors import StreamspatialError

DEVICES = "auto, cpu, cuda or cuda:N"
DTYPES = ("auto", "bfloat16", "float16", "float32")
_DEVICE = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")
# Share of a GPU's free memory the weights may take when the model is kept on one GPU; the
# rest is for activations and the KV cache of a batch.
FITS_SHARE = 0.8


def valid_device(device: str) -> bool:
    """Whether ``device`` is spelled as ``--device`` takes it (nothing is imported)."""
    return bool(_DEVICE.match(device))


def resolve_device(device: str) -> str:
    """``cpu``, ``cuda`` or ``cuda:N`` for ``device`` on this machine; one line when torch
    cannot see the GPU asked for."""
    if not valid_device(device):
        raise StreamspatialError(f"--device {device}: expected {DEVICES}")
    if device == "cpu":
        return "cpu"
    import torch

    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if device == "auto":
        return "cuda" if n else "cpu"
    if n == 0:
        why = (
            f"torch {torch.__version__} is built without CUDA"
            if torch.version.cuda is None
            else "no CUDA device is visible (see CUDA_VISIBLE_DEVICES and nvidia-smi)"
        )
        raise StreamspatialError(f"--device {device}: {why}; use --device cpu or --device auto")
    index = int(device.partition(":")[2] or 0)
    if index >= n:
        raise StreamspatialError(
            f"--device {device}: torch sees {n} CUDA device(s), cuda:0 to cuda:{n - 1}"
        )
    return device


def torch_dtype(dtype: str) -> Any:
    """The ``dtype`` argument of ``from_pretrained``: ``"auto"`` (the checkpoint's own) or a
    torch dtype."""
    if dtype not in DTYPES:
        raise StreamspatialError(f"--dtype {dtype}: expected {', '.join(DTYPES)}")
    if dtype == "auto":
        return "auto"
    import torch

    return getattr(torch, dtype)


def choose_device_map(device: str, model_bytes: int | None, free_bytes: list[int]) -> Any:
    """``from_pretrained``'s ``device_map`` for a resolved ``device``.

    ``free_bytes``: free memory of each visible GPU.  The whole model goes on one GPU when it
    fits in :data:`FITS_SHARE` of the first one's free memory (or the size is unknown, or
    there is one GPU only); otherwise accelerate spreads it over all of them.
    """
    if device == "cpu":
        return None
    if ":" in device:
        return {"": int(device.partition(":")[2])}
    if len(free_bytes) < 2 or model_bytes is None or model_bytes <= FITS_SHARE * free_bytes[0]:
        return {"": 0}
    return "auto"


def model_bytes(config: Any, dtype: Any) -> int | None:
    """The weights' size in ``dtype`` (``"auto"``: the config's), counted on a model built on
    the meta device (no memory, no download beyond the config); None when that fails."""
    try:
        import torch
        from accelerate import init_empty_weights
        from transformers import AutoModelForImageTextToText

        with init_empty_weights():
            model = AutoModelForImageTextToText.from_config(config)
        if dtype == "auto":
            dtype = getattr(config, "dtype", None) or torch.float32
            dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
        size = torch.empty((), dtype=dtype).element_size()
        return sum(p.numel() for p in model.parameters()) * size
    except Exception:  # an estimate only: the model then goes on one GPU
        return None


def free_gpu_bytes() -> list[int]:
    """Free memory of every visible GPU, in bytes."""
    import torch

    if not torch.cuda.is_available():
        return []
    return [torch.cuda.mem_get_info(i)[0] for i in range(torch.cuda.device_count())]


@dataclass(frozen=True)
class Placement:
    """Where a loaded model ended up, as ``run.json`` records it."""

    device: str
    dtype: str
    devices: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"device": self.device, "dtype": self.dtype}
        if len(self.devices) > 1:
            out["devices"] = list(self.devices)
        return out


def placement_of(model: Any) -> Placement:
    """The input device, dtype and (for a model spread by accelerate) every device used."""
    spread = getattr(model, "hf_device_map", None) or {}
    devices = sorted({_device_name(d) for d in spread.values()})
    return Placement(
        device=_device_name(model.device),
        dtype=str(model.dtype).removeprefix("torch."),
        devices=tuple(devices),
    )


def _device_name(device: Any) -> str:
    if isinstance(device, int):
        return f"cuda:{device}"
    return str(device)


__all__ = [
    "DEVICES",
    "DTYPES",
    "Placement",
    "choose_device_map",
    "free_gpu_bytes",
    "model_bytes",
    "placement_of",
    "resolve_device",
    "torch_dtype",
    "valid_device",
]
