"""The streaming interface and the buffered adapter over a plain backend."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import CausalityError
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.models.streaming import (
    BufferedStreamingModel,
    StreamingModel,
    StreamQuestion,
    build_request,
    encode_jpeg,
)
from streamspatial.models.types import ImagePart, ModelRequest, ModelResponse, TextPart
from streamspatial.testing import FakeOpenAIServer, answer_latest_frame
from streamspatial.video.frames import Frame
from streamspatial.video.synthetic import draw_frame


class _Echo:
    name = "echo"

    def __init__(self):
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(text=str(len(request.images)))

    async def aclose(self) -> None:
        return None


def part(t: float) -> ImagePart:
    return ImagePart(b"\xff\xd8" + str(t).encode(), t)


async def feed(model: BufferedStreamingModel, times: list[float]) -> None:
    for t in times:
        await model.ingest(part(t), t)


def test_adapter_satisfies_the_protocol():
    assert isinstance(BufferedStreamingModel(_Echo()), StreamingModel)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 16), st.integers(0, 200))
def test_uniform_buffer_is_bounded_sorted_and_spans_the_prefix(max_frames, n):
    model = BufferedStreamingModel(_Echo(), max_frames=max_frames, keep="uniform")
    asyncio.run(feed(model, [float(i) for i in range(n)]))
    times = [f.time for f in model.frames]
    assert len(times) <= max_frames
    # exactly every stride-th frame of the whole prefix, the stride a power of two
    stride = model._stride
    assert stride & (stride - 1) == 0
    assert times == [float(i) for i in range(0, n, stride)]
    assert stride == 1 or len(times) > max_frames // 2 - 1


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 10), st.integers(0, 60))
def test_recent_buffer_keeps_the_last_frames(max_frames, n):
    model = BufferedStreamingModel(_Echo(), max_frames=max_frames, keep="recent")
    asyncio.run(feed(model, [float(i) for i in range(n)]))
    assert [f.time for f in model.frames] == [float(i) for i in range(max(0, n - max_frames), n)]


def test_answer_builds_interleaved_request_and_reset_clears():
    echo = _Echo()
    model = BufferedStreamingModel(echo, max_frames=4)

    async def main():
        await feed(model, [0.0, 0.5, 1.0])
        q = StreamQuestion("Which? A. x B. y", choices="AB", item_id="i1", task_key="t")
        first = await model.answer(q, 1.0)
        model.reset()
        second = await model.answer(q, 2.0)
        return first, second

    first, second = asyncio.run(main())
    assert (first.text, second.text) == ("3", "0")
    req = echo.requests[0]
    assert req.frame_times == [0.0, 0.5, 1.0] and req.query_time == 1.0
    assert [type(p).__name__ for p in req.parts] == ["TextPart", "ImagePart"] * 3 + ["TextPart"]
    assert req.parts[0] == TextPart("Frame at 0.0s:")
    assert (req.choices, req.item_id, req.task_key) == ("AB", "i1", "t")


def test_frames_after_the_question_are_a_causality_bug():
    model = BufferedStreamingModel(_Echo())

    async def main():
        await feed(model, [0.0, 2.0])
        await model.answer(StreamQuestion("q"), 1.0)

    with pytest.raises(CausalityError):
        asyncio.run(main())
    with pytest.raises(CausalityError):
        asyncio.run(feed(BufferedStreamingModel(_Echo()), [1.0, 0.5]))


def test_decoded_frames_are_encoded_once_and_reach_the_server_in_order():
    fps = 2.0

    async def main(url: str):
        model = BufferedStreamingModel(
            OpenAIChatBackend("m", url, "k", trace_headers=True), max_frames=3, keep="uniform"
        )
        answers = []
        for i in range(8):
            await model.ingest(Frame(i, i / fps, draw_frame(i, (64, 48))), i / fps)
            if i in (2, 7):
                answers.append((await model.answer(StreamQuestion("latest?"), i / fps)).text)
        await model.aclose()
        return answers

    with FakeOpenAIServer(answer_latest_frame(), fps=fps) as server:
        answers = asyncio.run(main(server.base_url))
    # 0 1 2 | 3 overflows → 0 2 (stride 2) | 4 admitted, 6 overflows → 0 4 (stride 4) | 7 skipped
    assert answers == ["2", "4"]
    assert [r.frame_indices for r in server.requests] == [[0, 1, 2], [0, 4]]
    assert not any(r.violates_causality() for r in server.requests)


def test_build_request_without_labels_and_encode_jpeg():
    img = ImagePart(encode_jpeg(draw_frame(5, (32, 24))), 1.0)
    req = build_request([img], StreamQuestion("q"), 1.0, frame_label=None)
    assert req.parts == (img, TextPart("q")) and img.jpeg[:2] == b"\xff\xd8"
