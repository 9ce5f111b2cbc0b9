"""The streamed chat body: byte-identical to the JSON document, exact length, lazy base64."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.models.body import build_body, streamed_body
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
from streamspatial.testing import FakeOpenAIServer
from streamspatial.video.synthetic import draw_frame


def jpeg(index: int) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(draw_frame(index, (64, 48))).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def _request(texts: list[str], images: list[bytes], **kw) -> ModelRequest:
    parts: list = []
    for k, data in enumerate(images):
        parts.append(TextPart(texts[k % len(texts)]))
        parts.append(ImagePart(data, float(k)))
    parts.append(TextPart(texts[-1]))
    return ModelRequest(parts=tuple(parts), query_time=9.0, **kw)


def _streamed(body, batch_bytes: int) -> bytes:
    async def go() -> bytes:
        out = b""
        async for chunk in body.chunks(batch_bytes=batch_bytes):
            out += chunk
        return out

    return asyncio.run(go())


TRICKY = ['quote " backslash \\ nul \x00 tab \t', "é ü 中文 😀", "", "</script>", "\u2028"]


@pytest.mark.parametrize("batch", [1, 10_000, 1 << 30])
def test_streamed_bytes_are_json_dumps_of_the_body_whatever_the_batching(batch):
    req = _request(
        TRICKY,
        [jpeg(i) for i in range(5)] + [b"", b"x", b"xy"],
        system='system "prompt" é',
        params=GenerationParams(temperature=0.0, max_tokens=9, extra={"k": ["v", 1.5]}),
    )
    body = streamed_body("m/odel é", req, GenerationParams())
    expected = json.dumps(build_body("m/odel é", req, GenerationParams())).encode()
    assert body.length == len(expected)
    assert body.to_bytes() == expected
    assert _streamed(body, batch) == expected


def test_question_images_keep_their_mime_and_extra_fields_cannot_break_the_body():
    parts = (TextPart("Option A:"), ImagePart(b"\x89PNG...", None, mime="image/png"))
    req = ModelRequest(parts=parts, query_time=0.0)
    body = streamed_body("m", req, GenerationParams(extra={"model": "other"}))
    other = GenerationParams(extra={"model": "other"})
    assert json.loads(body.to_bytes()) == build_body("m", req, other)
    plain = streamed_body("m", req, GenerationParams())
    assert b'"data:image/png;base64,' in plain.to_bytes()


def test_a_parameter_that_is_not_json_raises_before_anything_is_sent():
    req = _request(["q"], [])
    with pytest.raises(TypeError):
        streamed_body("m", req, GenerationParams(extra={"bad": object()}))


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(max_size=30), min_size=1, max_size=4),
    sizes=st.lists(st.integers(0, 50), max_size=5),
    system=st.none() | st.text(max_size=10),
)
def test_property_length_and_bytes_match_the_reference(texts, sizes, system):
    req = _request(texts, [bytes(range(n)) for n in sizes], system=system)
    body = streamed_body("m", req, GenerationParams(max_tokens=3))
    expected = json.dumps(build_body("m", req, GenerationParams(max_tokens=3))).encode()
    assert (body.length, _streamed(body, 64)) == (len(expected), expected)


def test_the_wire_carries_an_exact_content_length_not_chunks():
    from streamspatial.models.openai_compat import OpenAIChatBackend

    async def one(url: str, req: ModelRequest):
        async with OpenAIChatBackend("tiny-vlm", url, "k", timeout=5) as b:
            return await b.generate(req)

    with FakeOpenAIServer("A", keep_images=True) as server:
        req = _request(["Frame:", "Question?"], [jpeg(i) for i in range(3)])
        resp = asyncio.run(one(server.base_url, req))
    assert resp.error is None
    (rec,) = server.requests
    assert "transfer-encoding" not in rec.headers
    expected = json.dumps(build_body("tiny-vlm", req, GenerationParams())).encode()
    assert int(rec.headers["content-length"]) == len(expected)
    assert rec.image_bytes == [p.jpeg for p in req.images]


def test_a_dialogue_history_goes_as_earlier_chat_turns_with_the_models_own_replies():
    """OST-Bench: each earlier turn's frames and prompt as a user message, the model's reply
    verbatim as an assistant message, then this turn; the streamed bytes are the same JSON."""
    from streamspatial.models.types import Turn

    first = (ImagePart(jpeg(0), 0.0), ImagePart(jpeg(1), 1.0), TextPart("turn 1 ?"))
    reply = (TextPart('{"answer": "left", "reason": "é \\" x"}'),)
    req = ModelRequest(
        parts=(ImagePart(jpeg(2), 2.0), TextPart("turn 2 ?")),
        query_time=2.0,
        system="You are an agent.",
        history=(Turn("user", first), Turn("assistant", reply)),
    )
    body = build_body("m", req, GenerationParams())
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert body["messages"][2]["content"] == '{"answer": "left", "reason": "é \\" x"}'
    assert [p["type"] for p in body["messages"][1]["content"]] == ["image_url", "image_url", "text"]
    assert req.frame_times == [0.0, 1.0, 2.0]  # the history's frames are checked too
    streamed = streamed_body("m", req, GenerationParams())
    assert streamed.to_bytes() == json.dumps(body).encode() == _streamed(streamed, 1)
    assert streamed.length == len(json.dumps(body).encode())
    no_history = ModelRequest(parts=req.parts, query_time=2.0, system="You are an agent.")
    assert req.content_hash("m") != no_history.content_hash("m")
