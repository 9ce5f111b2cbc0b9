"""Local Hugging Face chat VLMs (Qwen2-VL / Qwen2.5-VL / Qwen3-VL style), extra ``[hf]``.

torch and transformers are imported when a backend is built, never at package import, so the
core installs and starts fast.

How a request is answered, and why:

* **Preparation off the generate thread.**  Decoding the request's JPEG frames, the chat
  template and the processor (resizing, normalising, tokenising) run in a small pool of
  preparation threads the moment a request arrives, while the model is busy with the previous
  batch: the GPU is not left waiting on the CPU between batches.
* **One generate for many requests.**  Prepared requests go to a
  :class:`~streamspatial.models.hf_batch.MicroBatcher`, whose one thread answers up to
  ``batch_size`` of them with a single left-padded ``generate`` (one model instance never
  runs two generates at once).  Greedy answers are the same as one at a time; each response
  keeps its own prompt and completion token counts, and its latency from arrival to answer.
* **Placement.**  ``device`` and ``dtype`` as :mod:`~streamspatial.models.hf_device` resolves
  them; where the model ended up is :attr:`HFLocalBackend.placement` (``run.json`` records it).
"""

from __future__ import annotations

import asyncio
import io
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.models.hf_batch import MicroBatcher, collate, completion_length
from streamspatial.models.hf_device import (
    choose_device_map,
    free_gpu_bytes,
    model_bytes,
    placement_of,
    resolve_device,
    torch_dtype,
)
from streamspatial.models.hf_hub import HFModelRef, parse_hf_spec
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    ModelResponse,
    TextPart,
    VideoPart,
)

LOCAL_MAX_TOKENS = 1024
DEFAULT_BATCH_SIZE = 8


@dataclass
class ChatInputs:
    """A request as the processor takes it: chat-template messages with image and video
    placeholders, the PIL images and the videos (frames stacked, ``T×H×W×3``) in the same
    order, and each video's ``VideoMetadata`` fields (its frames' true times)."""

    messages: list[dict[str, Any]]
    images: list[Any]
    videos: list[Any]
    video_metadata: list[dict[str, Any]]

    def processor_kwargs(self) -> dict[str, Any]:
        """The processor's media arguments: the frames of a video are the ones sent, so it
        must not sample them again (Qwen3-VL does by default)."""
        kwargs: dict[str, Any] = {"images": self.images or None}
        if self.videos:
            from transformers.video_utils import VideoMetadata

            kwargs.update(
                videos=self.videos,
                video_metadata=[VideoMetadata(**m) for m in self.video_metadata],
                do_sample_frames=False,
            )
        return kwargs


def _rgb(jpeg: bytes) -> Any:
    from PIL import Image

    with Image.open(io.BytesIO(jpeg)) as img:
        return img.convert("RGB")


def chat_inputs(request: ModelRequest) -> ChatInputs:
    """The request's messages, images and videos for the processor (a video's metadata says
    where its frames were: ``fps``, ``frames_indices``, ``total_num_frames``)."""
    import numpy as np

    out = ChatInputs([], [], [], [])
    if request.system:
        out.messages.append(
            {"role": "system", "content": [{"type": "text", "text": request.system}]}
        )
    turns = [(t.role, t.parts) for t in request.history] + [("user", request.parts)]
    for role, parts in turns:  # a dialogue's earlier turns first (OST-Bench), then this one
        content: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, VideoPart):
                out.videos.append(np.stack([np.asarray(_rgb(f.jpeg)) for f in part.frames]))
                meta = part.metadata()
                out.video_metadata.append(
                    {**meta, "duration": meta["total_num_frames"] / meta["fps"]}
                )
                content.append({"type": "video"})
            elif isinstance(part, ImagePart):
                out.images.append(_rgb(part.jpeg))
                content.append({"type": "image"})
        out.messages.append({"role": role, "content": content})
    return out


def chat_messages(request: ModelRequest) -> tuple[list[dict[str, Any]], list[Any]]:
    """Chat-template messages with image placeholders, and the PIL images in the same order
    (:func:`chat_inputs` without the videos)."""
    chat = chat_inputs(request)
    return chat.messages, chat.images


def generate_kwargs(params: GenerationParams) -> dict[str, Any]:
    """``generate``'s decoding arguments.  Unset parameters keep the protocol's greedy
    decoding and 1,024-token cap: a local generate has no server default to fall back on."""
    kwargs: dict[str, Any] = {"max_new_tokens": params.max_tokens or LOCAL_MAX_TOKENS}
    if params.temperature:
        kwargs.update(do_sample=True, temperature=params.temperature)
        if params.top_p is not None:
            kwargs["top_p"] = params.top_p
    else:
        kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    return kwargs


@dataclass
class Prepared:
    """One request ready for ``generate``: the processor's tensors (batch dimension 1)."""

    inputs: dict[str, Any]
    prompt_tokens: int
    kwargs: dict[str, Any]
    seed: int | None = None

    @property
    def key(self) -> tuple[tuple[str, Any], ...]:
        """Requests with equal keys decode alike and may share a batch."""
        return tuple(sorted(self.kwargs.items()))

    @property
    def alone(self) -> bool:
        """A seeded sampled request runs by itself, so its seed alone decides its answer."""
        return bool(self.kwargs.get("do_sample")) and self.seed is not None


class HFLocalBackend:
    """A chat VLM loaded with ``AutoProcessor`` and ``AutoModelForImageTextToText`` from a
    folder or a Hub id (:mod:`~streamspatial.models.hf_hub`); greedy by default."""

    def __init__(
        self,
        model: str | Path | HFModelRef,
        *,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = DEFAULT_BATCH_SIZE,
        params: GenerationParams | None = None,
        prep_threads: int | None = None,
    ):
        ref = model if isinstance(model, HFModelRef) else parse_hf_spec(str(model))
        self.ref = ref
        self.name = f"hf:{ref.label}"
        self.params = params or GenerationParams()
        try:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor
        except ImportError as exc:
            raise StreamspatialError(
                f"{self.name}: the local Hugging Face backend needs "
                f"'pip install streamspatial[hf]' ({exc})"
            ) from None
        self._torch = torch
        where = resolve_device(device)
        hub = {} if ref.local else {"revision": ref.revision}
        try:
            self.processor = AutoProcessor.from_pretrained(ref.source, **hub)
            wanted = torch_dtype(dtype)
            device_map = choose_device_map(where, *self._sizes(where, wanted, hub))
            self.model = AutoModelForImageTextToText.from_pretrained(
                ref.source, dtype=wanted, device_map=device_map, **hub
            )
        except StreamspatialError:
            raise
        except Exception as exc:  # a processor needing a missing package raises ImportError
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StreamspatialError(f"{self.name}: cannot load the model: {first}") from None
        if getattr(self.processor, "chat_template", None) is None:
            raise StreamspatialError(f"{self.name}: the processor has no chat template")
        self.model.eval()
        self.placement = placement_of(self.model)
        # The id that pads a batch on the left, and the ids that end an answer.
        self.pad_id, self.eos_ids = self._special_ids()
        # Settle the tokenizer's padding/truncation state once, before threads share it.
        self.processor.tokenizer(["warm-up"])
        workers = prep_threads or min(4, os.cpu_count() or 1)
        self._prep = ThreadPoolExecutor(workers, thread_name_prefix="streamspatial-prepare")
        self._batcher = MicroBatcher(self.answer_batch, batch_size)

    @property
    def batch_size(self) -> int:
        return self._batcher.batch_size

    @property
    def stats(self) -> Any:
        """Batches run, requests answered, the largest batch and the time inside ``generate``."""
        return self._batcher.stats

    @property
    def queued(self) -> int:
        """Prepared requests waiting for the model: the next batch, ready before it starts."""
        return self._batcher.pending

    def __repr__(self) -> str:
        return f"HFLocalBackend({self.ref.source!r}, device={self.placement.device!r})"

    def _sizes(self, where: str, dtype: Any, hub: dict[str, Any]) -> tuple[int | None, list[int]]:
        """(weights' bytes, free bytes per GPU): only worth counting when several GPUs could
        share an unpinned model."""
        if where != "cuda":
            return None, []
        free = free_gpu_bytes()
        if len(free) < 2:
            return None, free
        from transformers import AutoConfig

        return model_bytes(AutoConfig.from_pretrained(self.ref.source, **hub), dtype), free

    def _special_ids(self) -> tuple[int, set[int]]:
        """(the id that pads a batch on the left, the ids that end an answer)."""
        gen = self.model.generation_config
        eos = gen.eos_token_id
        eos_ids = {int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None}
        pad = gen.pad_token_id
        if pad is None:
            pad = self.processor.tokenizer.pad_token_id
        if pad is None:
            pad = min(eos_ids) if eos_ids else 0
        return int(pad), eos_ids

    # -- the request path ---------------------------------------------------------------------

    async def generate(self, request: ModelRequest) -> ModelResponse:
        start = time.perf_counter()
        try:
            loop = asyncio.get_running_loop()
            prepared = await loop.run_in_executor(self._prep, self.prepare, request)
            done = self._batcher.submit(prepared, prepared.key, alone=prepared.alone)
            text, prompt_tokens, completion_tokens = await asyncio.wrap_future(done)
        except Exception as exc:  # a failed generate is recorded, never raised
            return ModelResponse(
                text="", error=f"{type(exc).__name__}: {exc}", latency_s=time.perf_counter() - start
            )
        return ModelResponse(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=time.perf_counter() - start,
        )

    def prepare(self, request: ModelRequest) -> Prepared:
        """Decode the frames, render the chat template, run the processor (a preparation
        thread)."""
        params = request.params if request.params != GenerationParams() else self.params
        chat = chat_inputs(request)
        extra = dict(params.extra.get("chat_template_kwargs", {}))
        prompt = self.processor.apply_chat_template(
            chat.messages, tokenize=False, add_generation_prompt=True, **extra
        )
        inputs = self.processor(text=[prompt], **chat.processor_kwargs(), return_tensors="pt")
        return Prepared(
            inputs=dict(inputs),
            prompt_tokens=int(inputs["input_ids"].shape[1]),
            kwargs=generate_kwargs(params),
            seed=params.seed,
        )

    def answer_batch(self, batch: list[Prepared]) -> list[tuple[str, int, int]]:
        """One ``generate`` over ``batch`` (the batcher's thread): (text, prompt tokens,
        completion tokens) of each request, in order."""
        out, width = self.run_generate(batch)
        answers = []
        for prepared, row in zip(batch, out[:, width:].tolist(), strict=True):
            n = completion_length(row, self.eos_ids)
            text = self.processor.decode(row[:n], skip_special_tokens=True)
            answers.append((text, prepared.prompt_tokens, n))
        return answers

    def run_generate(self, batch: list[Prepared], **extra: Any) -> tuple[Any, int]:
        """``generate``'s output over ``batch`` collated (left-padded, on the model's device
        and dtype), and the padded prompt width its new tokens start at; ``extra`` goes to
        ``generate`` (tests ask for the scores)."""
        torch = self._torch
        inputs = collate([p.inputs for p in batch], self.pad_id)
        device, dtype = self.model.device, self.model.dtype
        # Pixels in the model's precision; other floats (Qwen2.5-VL's second_per_grid_ts,
        # the seconds between temporal patches) keep theirs.
        inputs = {
            k: v.to(device, dtype=dtype) if k.startswith("pixel_values") else v.to(device)
            for k, v in inputs.items()
        }
        first = batch[0]
        if first.alone:
            torch.manual_seed(first.seed)
        with torch.inference_mode():
            out = self.model.generate(**inputs, **first.kwargs, pad_token_id=self.pad_id, **extra)
        return out, int(inputs["input_ids"].shape[1])

    async def aclose(self) -> None:
        """Stop the generate thread (after its batch) and the preparation threads."""
        await asyncio.to_thread(self._batcher.close)
        self._prep.shutdown(wait=False, cancel_futures=True)


__all__ = [
    "DEFAULT_BATCH_SIZE",
    "ChatInputs",
    "HFLocalBackend",
    "Prepared",
    "chat_inputs",
    "chat_messages",
    "generate_kwargs",
]
