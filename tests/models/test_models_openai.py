"""The OpenAI-compatible backend against a real loopback HTTP server."""

from __future__ import annotations

import asyncio
import email.utils
import io
import json
import logging
import time

import pytest
from PIL import Image

from streamspatial.core.errors import EndpointError, StreamspatialError
from streamspatial.core.secrets import redact
from streamspatial.models.openai_compat import OpenAIChatBackend, parse_retry_after
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
from streamspatial.testing import FakeOpenAIServer, answer_latest_frame
from streamspatial.video.synthetic import draw_frame

KEY = "sk-test-0123456789abcdef-SECRET"
FPS = 4.0


def jpeg(index: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(draw_frame(index, (64, 48))).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def request(indices: list[int], query_time: float, **kw) -> ModelRequest:
    parts: list = []
    for i in indices:
        parts.append(TextPart(f"Frame at {i / FPS:.2f}s:"))
        parts.append(ImagePart(jpeg(i), i / FPS))
    parts.append(TextPart(f"Question? Query time: {query_time}s"))
    return ModelRequest(parts=tuple(parts), query_time=query_time, **kw)


def backend(server: FakeOpenAIServer, **kw) -> OpenAIChatBackend:
    opts = {"backoff_base": 0.001, "backoff_max": 0.01, "timeout": 2.0, "seed": 0}
    opts.update(kw)
    return OpenAIChatBackend("tiny-vlm", server.base_url, KEY, **opts)


async def _one(b: OpenAIChatBackend, req: ModelRequest):
    try:
        return await b.generate(req)
    finally:
        await b.aclose()


def run(b: OpenAIChatBackend, req: ModelRequest):
    return asyncio.run(_one(b, req))


def test_body_shape_images_as_data_urls_in_order_and_no_unset_sampling_field():
    with FakeOpenAIServer(answer_latest_frame(), fps=FPS, keep_images=True) as server:
        req = request([0, 3, 7], query_time=2.0, system="be brief")
        resp = run(backend(server), req)
    assert resp.error is None and resp.text == "7" and not resp.cached
    assert resp.prompt_tokens > 0 and resp.completion_tokens == 1 and resp.latency_s > 0
    (rec,) = server.requests
    assert rec.model == "tiny-vlm" and rec.system == "be brief"
    # nothing the user did not set: reasoning models reject temperature, some servers 422
    assert set(rec.body) == {"model", "messages"}
    messages = rec.body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    kinds = [p["type"] for p in messages[1]["content"]]
    assert kinds == ["text", "image_url"] * 3 + ["text"]
    assert rec.frame_indices == [0, 3, 7]
    assert rec.frame_times == [0.0, 0.75, 1.75]
    # bytes arrive exactly as cached: no re-encoding on the way
    assert rec.image_bytes == [p.jpeg for p in req.images]
    assert rec.query_time == 2.0 and not rec.violates_causality()
    assert rec.headers["authorization"] == f"Bearer {KEY}"


def test_extra_fields_pass_through_and_request_params_win():
    params = GenerationParams(
        temperature=0.7,
        max_tokens=16,
        top_p=0.9,
        seed=3,
        extra={"chat_template_kwargs": {"enable_thinking": True}},
    )
    with FakeOpenAIServer("B") as server:
        resp = run(backend(server), request([1], 1.0, params=params))
    body = server.requests[0].body
    assert resp.text == "B"
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert (body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (
        0.7,
        16,
        0.9,
        3,
    )


def test_backend_default_params_apply_when_request_has_defaults():
    params = GenerationParams(max_tokens=8, extra={"repetition_penalty": 1.05})
    with FakeOpenAIServer("A") as server:
        run(backend(server, params=params), request([1], 1.0))
    body = server.requests[0].body
    assert body["max_tokens"] == 8 and body["repetition_penalty"] == 1.05


def test_zero_images_is_a_valid_text_only_request():
    with FakeOpenAIServer("C") as server:
        resp = run(backend(server), ModelRequest(parts=(TextPart("blind?"),), query_time=0.0))
    assert resp.text == "C"
    assert server.requests[0].n_images == 0
    assert server.requests[0].body["messages"][0]["content"] == [{"type": "text", "text": "blind?"}]


@pytest.mark.parametrize("fault", ["500", "503", "429", "malformed", "empty"])
def test_each_fault_is_retried_then_succeeds(fault):
    with FakeOpenAIServer("D", faults=[fault, fault]) as server:
        b = backend(server)
        resp = run(b, request([0], 1.0))
    assert resp.error is None and resp.text == "D"
    assert [r.fault for r in server.requests] == [fault, fault, None]
    assert b.stats.attempts == 3 and b.stats.retries == 2 and b.stats.failures == 0


@pytest.mark.parametrize("fault", ["500", "429", "malformed", "empty"])
def test_retries_are_bounded_and_failure_is_an_error_response(fault):
    with FakeOpenAIServer("D", faults=[fault] * 10) as server:
        b = backend(server, max_retries=2)
        resp = run(b, request([0], 1.0))
    assert len(server.requests) == 3  # 1 + max_retries, then give up
    assert resp.text == "" and resp.error
    expected = {
        "500": "HTTP 500",
        "429": "HTTP 429",
        "malformed": "malformed response body",
        "empty": "malformed response body",
    }[fault]
    assert resp.error.startswith(expected)
    assert b.stats.failures == 1


def test_retry_after_seconds_is_honoured():
    with FakeOpenAIServer("E", faults=["429"], retry_after="0.3") as server:
        start = time.perf_counter()
        resp = run(backend(server), request([0], 1.0))
        elapsed = time.perf_counter() - start
    assert resp.text == "E"
    assert elapsed >= 0.3  # backoff alone is at most 10 ms here


def test_retry_after_is_capped():
    with FakeOpenAIServer("E", faults=["429"], retry_after="3600") as server:
        start = time.perf_counter()
        resp = run(backend(server, max_retry_after=0.05), request([0], 1.0))
    assert resp.text == "E" and time.perf_counter() - start < 5


def test_parse_retry_after_seconds_and_http_date():
    now = 1_700_000_000.0
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after("0.25", now) == 0.25
    assert parse_retry_after(email.utils.formatdate(now + 30, usegmt=True), now) == 30.0
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None
    assert parse_retry_after("-4", now) == 0.0


def test_timeout_then_success_and_bounded_timeouts():
    with FakeOpenAIServer("F", faults=["hang"], hang_seconds=5) as server:
        b = backend(server, timeout=0.2)
        resp = run(b, request([0], 1.0))
    assert resp.text == "F" and b.stats.retries == 1
    with FakeOpenAIServer("F", faults=["hang"] * 5, hang_seconds=5) as server:
        b = backend(server, timeout=0.2, max_retries=1)
        resp = run(b, request([0], 1.0))
    assert resp.error == "timed out after 0.2s" and len(server.requests) == 2


def test_a_dead_endpoint_stops_at_the_first_refusal():
    with FakeOpenAIServer("A") as server:
        url = server.base_url
    b = OpenAIChatBackend("m", url, KEY, max_retries=6, backoff_base=0.001, timeout=1)
    with pytest.raises(EndpointError, match="cannot reach") as exc:
        run(b, request([0], 1.0))
    assert b.stats.attempts == 1 and url in str(exc.value)
    assert "\n" not in str(exc.value) and KEY not in str(exc.value)


def test_client_errors_are_not_retried_and_a_wrong_path_stops_the_run():
    with FakeOpenAIServer("A") as server:
        b = OpenAIChatBackend(
            "m", server.base_url.removesuffix("/v1") + "/nope", KEY, backoff_base=0.001
        )
        with pytest.raises(EndpointError, match="HTTP 404"):
            run(b, request([0], 1.0))
    assert b.stats.attempts == 1


def test_key_never_in_repr_logs_or_errors(caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    echo = f'{{"error": "invalid key {KEY}"}}'

    with FakeOpenAIServer("A", faults=["500"] * 5) as server:
        b = backend(server, max_retries=2)
        resp = run(b, request([0], 1.0))
    assert KEY not in repr(b) and "***" in repr(b)
    assert KEY not in (resp.error or "")
    assert KEY not in caplog.text and "retrying" in caplog.text
    # a server echoing the key back in its error body still does not leak it
    assert KEY not in redact(echo) and "***" in redact(echo)
    assert KEY not in repr(vars(b)) and KEY not in str(vars(b))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(StreamspatialError) as exc:
        OpenAIChatBackend("gpt-x", base_url=None, api_key="")
    assert "OPENAI_API_KEY" in str(exc.value)


def test_base_url_and_key_from_environment(monkeypatch):
    with FakeOpenAIServer("G") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        resp = run(OpenAIChatBackend("m"), request([0], 1.0))
    assert resp.text == "G"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_self_hosted_server_without_key_sends_no_authorization(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer("H") as server:
        resp = run(OpenAIChatBackend("m", server.base_url), request([0], 1.0))
    assert resp.text == "H" and "authorization" not in server.requests[0].headers


def test_concurrency_limit_bounds_requests_in_flight():
    async def main(url: str) -> float:
        b = OpenAIChatBackend("m", url, KEY, concurrency=2)
        start = time.perf_counter()
        await asyncio.gather(*(b.generate(request([i], 5.0)) for i in range(6)))
        await b.aclose()
        return time.perf_counter() - start

    with FakeOpenAIServer("A", latency=0.1) as server:
        elapsed = asyncio.run(main(server.base_url))
    assert len(server.requests) == 6
    assert elapsed >= 0.3  # 6 calls, 2 at a time, 0.1 s each


def test_trace_headers_carry_query_time_for_the_causality_canary():
    with FakeOpenAIServer(answer_latest_frame(), fps=FPS) as server:
        b = backend(server, trace_headers=True)
        req = ModelRequest(
            parts=(ImagePart(jpeg(8), 2.0), TextPart("q")), query_time=1.5, item_id="it-1"
        )
        run(b, req)
    rec = server.requests[0]
    assert rec.headers["x-streamspatial-item"] == "it-1"
    assert rec.query_time == 1.5 and rec.frame_times == [2.0]
    assert rec.violates_causality()  # a frame at 2.0 s in a query at 1.5 s is caught


def test_invalid_construction_is_a_user_error():
    with pytest.raises(StreamspatialError):
        OpenAIChatBackend("", "http://127.0.0.1:1/v1", KEY)
    with pytest.raises(StreamspatialError, match="base URL"):
        OpenAIChatBackend("m", "localhost:8000", KEY)
    with pytest.raises(StreamspatialError):
        OpenAIChatBackend("m", "http://127.0.0.1:1/v1", KEY, concurrency=0)


def test_server_body_json_is_what_the_client_sent():
    with FakeOpenAIServer("A") as server:
        run(backend(server), request([2], 1.0))
    # the recorded body is plain JSON (image payloads elided to their size)
    dumped = json.dumps(server.requests[0].body)
    assert "base64" not in dumped and "bytes>" in dumped


def test_unencodable_extra_is_an_error_response_without_a_call():
    params = GenerationParams(extra={"bad": object()})
    with FakeOpenAIServer("A") as server:
        resp = run(backend(server), request([0], 1.0, params=params))
    assert resp.error.startswith("cannot encode the request body") and server.requests == []


def test_retry_after_http_date_is_honoured_end_to_end():
    when = email.utils.formatdate(time.time() + 2, usegmt=True)  # whole seconds: waits 1–2 s
    with FakeOpenAIServer("E", faults=["429"], retry_after=when) as server:
        start = time.perf_counter()
        resp = run(backend(server), request([0], 1.0))
        elapsed = time.perf_counter() - start
    assert resp.text == "E" and elapsed >= 1.0


def test_no_key_and_no_server_names_what_to_set_and_no_flag(monkeypatch):
    """Every command reaches this message (demo has neither --api-key nor --base-url)."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(StreamspatialError) as exc:
        OpenAIChatBackend("gpt-x", key_env="MY_KEY")
    text = str(exc.value)
    assert "MY_KEY" in text and "OPENAI_BASE_URL" in text and "--" not in text


def test_a_key_in_the_base_url_never_shows(caplog):
    caplog.set_level(logging.DEBUG)
    secret = "p4ss-in-url-0d9c8b7a"
    with FakeOpenAIServer("A", faults=["500"] * 3) as server:
        url = server.base_url.replace("http://", f"http://me:{secret}@") + f"?token={secret}x"
        b = OpenAIChatBackend("m", url, "", max_retries=1, backoff_base=0.001)
        resp = run(b, request([0], 1.0))
        assert server.requests[0].path.endswith(f"?token={secret}x")  # sent, to the server only
    for text in (repr(b), resp.error or "", caplog.text, b.public_url):
        assert secret not in text and secret[:8] not in text
