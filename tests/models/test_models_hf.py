"""The local Hugging Face backend through its real loading path, on a tiny random model."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

pytest.importorskip("torch")
pytest.importorskip("transformers")

from streamspatial.core.errors import StreamspatialError
from streamspatial.models.hf_local import HFLocalBackend
from streamspatial.models.registry import load_backend
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    TextPart,
)
from streamspatial.testing.tiny_vlm import build_tiny_vlm
from streamspatial.video.synthetic import draw_frame


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))


def jpeg(index: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(draw_frame(index, (64, 48))).save(buf, format="JPEG")
    return buf.getvalue()


def two_frame_request(max_tokens: int = 6) -> ModelRequest:
    return ModelRequest(
        parts=(
            TextPart("Frame at 0.0s:"),
            ImagePart(jpeg(0), 0.0),
            TextPart("Frame at 1.0s:"),
            ImagePart(jpeg(4), 1.0),
            TextPart("What is left of the sofa? A. chair B. table"),
        ),
        query_time=1.0,
        system="Answer with a letter.",
        params=GenerationParams(max_tokens=max_tokens),
    )


def test_generate_with_two_frames_is_greedy_and_counts_tokens(tiny_model):
    backend = load_backend(f"hf:{tiny_model}")
    assert isinstance(backend, HFLocalBackend)
    no_images = ModelRequest(
        parts=(TextPart("What is left of the sofa? A. chair B. table"),),
        query_time=1.0,
        system="Answer with a letter.",
        params=GenerationParams(max_tokens=6),
    )

    async def main():
        return await asyncio.gather(
            backend.generate(two_frame_request()),
            backend.generate(two_frame_request()),
            backend.generate(no_images),
        )

    first, again, text_only = asyncio.run(main())
    assert first.error is None and text_only.error is None
    assert first.text == again.text  # greedy: the same input gives the same output
    # a random model may emit its end token early: bound the count, do not fix it
    assert 1 <= first.completion_tokens <= 6
    # each 28×28 image becomes (28/14)² = 4 image tokens in the prompt
    assert first.prompt_tokens - text_only.prompt_tokens == 2 * 4 + len(
        backend.processor.tokenizer("Frame at 0.0s:Frame at 1.0s:")["input_ids"]
    )
    assert first.latency_s > 0


def test_processor_receives_every_frame(tiny_model):
    backend = HFLocalBackend(tiny_model)
    from streamspatial.models.hf_local import chat_messages

    messages, images = chat_messages(two_frame_request())
    assert len(images) == 2 and images[0].size == (64, 48)
    prompt = backend.processor.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True
    )
    assert prompt.count("<image>") == 2
    assert prompt.index("Frame at 0.0s:") < prompt.index("<image>") < prompt.index("Frame at 1")
    inputs = backend.processor(text=[prompt], images=images, return_tensors="pt")
    assert inputs["pixel_values"].shape[0] == 2


def test_a_failing_generate_is_an_error_response(tiny_model):
    backend = HFLocalBackend(tiny_model)
    broken = ModelRequest(parts=(ImagePart(b"not a jpeg", 0.0), TextPart("q")), query_time=0.0)
    resp = asyncio.run(backend.generate(broken))
    assert resp.text == "" and resp.error and "UnidentifiedImageError" in resp.error


def test_a_folder_without_a_model_is_a_user_error(tmp_path):
    with pytest.raises(StreamspatialError, match="cannot load the model"):
        HFLocalBackend(tmp_path)
