"""Local Hugging Face chat VLMs (Qwen2-VL / Qwen2.5-VL / Qwen3-VL style), extra ``[hf]``.

torch and transformers are imported when a backend is built, never at package import, so the
core installs and starts fast.  Generation runs in a worker thread (``asyncio.to_thread``)
behind a lock: the event loop keeps serving the stream while the model works, and one model
instance never runs two generates at once.
"""

from __future__ import annotations

import asyncio
import io
import threading
import time
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    ModelResponse,
    TextPart,
)


def chat_messages(request: ModelRequest) -> tuple[list[dict[str, Any]], list[Any]]:
    """Chat-template messages with image placeholders, and the PIL images in the same order."""
    from PIL import Image

    images: list[Any] = []
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": [{"type": "text", "text": request.system}]})
    turns = [(t.role, t.parts) for t in request.history] + [("user", request.parts)]
    for role, parts in turns:  # a dialogue's earlier turns first (OST-Bench), then this one
        content: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                with Image.open(io.BytesIO(part.jpeg)) as img:
                    images.append(img.convert("RGB"))
                content.append({"type": "image"})
        messages.append({"role": role, "content": content})
    return messages, images


LOCAL_MAX_TOKENS = 1024


class HFLocalBackend:
    """A chat VLM loaded from a local folder with ``AutoProcessor`` and
    ``AutoModelForImageTextToText``; greedy by default."""

    def __init__(
        self,
        path: str | Path,
        *,
        device: str = "cpu",
        dtype: str = "auto",
        params: GenerationParams | None = None,
    ):
        self.path = Path(path)
        self.name = f"hf:{self.path.name}"
        self.params = params or GenerationParams()
        self.device = device
        try:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor
        except ImportError as exc:
            raise StreamspatialError(
                f"hf:{path}: the local Hugging Face backend needs "
                f"'pip install streamspatial[hf]' ({exc})"
            ) from None
        if not self.path.is_dir():
            raise StreamspatialError(f"hf:{path}: expected a local model folder")
        try:
            self.processor = AutoProcessor.from_pretrained(self.path)
            torch_dtype = dtype if dtype == "auto" else getattr(torch, dtype)
            self.model = AutoModelForImageTextToText.from_pretrained(self.path, dtype=torch_dtype)
        except Exception as exc:  # a processor needing a missing package raises ImportError
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StreamspatialError(f"hf:{path}: cannot load the model: {first}") from None
        if getattr(self.processor, "chat_template", None) is None:
            raise StreamspatialError(f"hf:{path}: the processor has no chat template")
        self.model.to(device).eval()
        self._torch = torch
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HFLocalBackend({str(self.path)!r}, device={self.device!r})"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return await asyncio.to_thread(self._generate, request)

    def _generate(self, request: ModelRequest) -> ModelResponse:
        params = request.params if request.params != GenerationParams() else self.params
        start = time.perf_counter()
        try:
            messages, images = chat_messages(request)
            extra = dict(params.extra.get("chat_template_kwargs", {}))
            prompt = self.processor.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True, **extra
            )
            inputs = self.processor(text=[prompt], images=images or None, return_tensors="pt")
            inputs = inputs.to(self.device)
            # Unset parameters keep the protocol's greedy decoding and 1,024-token cap: a
            # local generate has no server default to fall back on.
            kwargs: dict[str, Any] = {"max_new_tokens": params.max_tokens or LOCAL_MAX_TOKENS}
            if params.temperature:
                kwargs.update(do_sample=True, temperature=params.temperature)
                if params.top_p is not None:
                    kwargs["top_p"] = params.top_p
                if params.seed is not None:
                    self._torch.manual_seed(params.seed)
            else:
                kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
            with self._lock, self._torch.inference_mode():
                out = self.model.generate(**inputs, **kwargs)
            n_prompt = int(inputs["input_ids"].shape[1])
            new_tokens = out[0, n_prompt:]
            text = self.processor.decode(new_tokens, skip_special_tokens=True)
            return ModelResponse(
                text=text,
                prompt_tokens=n_prompt,
                completion_tokens=int(new_tokens.shape[0]),
                latency_s=time.perf_counter() - start,
            )
        except Exception as exc:  # a failed generate is recorded, never raised
            return ModelResponse(
                text="", error=f"{type(exc).__name__}: {exc}", latency_s=time.perf_counter() - start
            )

    async def aclose(self) -> None:
        return None
