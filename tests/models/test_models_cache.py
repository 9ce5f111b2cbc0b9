"""The persistent response cache and the caching wrapper."""

from __future__ import annotations

import asyncio
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.models.cache import CachedBackend, ResponseCache
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    ModelResponse,
    TextPart,
)
from streamspatial.testing import FakeOpenAIServer


def req(text: str = "q", t: float = 1.0, jpeg: bytes = b"\xff\xd8x", **kw) -> ModelRequest:
    return ModelRequest(parts=(ImagePart(jpeg, t), TextPart(text)), query_time=t, **kw)


async def _run_all(backend, requests):
    try:
        return await asyncio.gather(*(backend.generate(r) for r in requests))
    finally:
        await backend.aclose()


KEY = "sk-cache-test-SECRET-42"


def test_rerun_hits_the_cache_and_costs_no_calls(tmp_path):
    requests = [req(f"question {i}") for i in range(4)]
    with FakeOpenAIServer("A") as server:
        for run_number in range(2):
            cache = ResponseCache(tmp_path / "responses.sqlite")
            inner = OpenAIChatBackend("m", server.base_url, KEY)
            wrapped = CachedBackend(inner, cache)
            out = asyncio.run(_run_all(wrapped, requests))
            assert [r.text for r in out] == ["A"] * 4
            assert all(r.cached for r in out) == (run_number == 1)
            cache.close()
        assert len(server.requests) == 4  # the second run made no call at all
    assert wrapped.stats.hits == 4 and wrapped.stats.misses == 0
    # the key never reaches the cache files
    for path in tmp_path.iterdir():
        assert KEY.encode() not in path.read_bytes()


def test_failures_are_not_cached(tmp_path):
    with FakeOpenAIServer("B", faults=["500", "500"]) as server:
        cache = ResponseCache(tmp_path / "c.sqlite")
        inner = OpenAIChatBackend("m", server.base_url, "k", max_retries=1, backoff_base=0.001)
        first = asyncio.run(_run_all(CachedBackend(inner, cache), [req()]))[0]
        assert first.error and len(cache) == 0
        inner = OpenAIChatBackend("m", server.base_url, "k", max_retries=1, backoff_base=0.001)
        second = asyncio.run(_run_all(CachedBackend(inner, cache), [req()]))[0]
        assert second.text == "B" and not second.cached and len(cache) == 1
        assert len(server.requests) == 3


def test_concurrent_identical_requests_share_one_call(tmp_path):
    with FakeOpenAIServer("C", latency=0.05) as server:
        cache = ResponseCache(tmp_path / "c.sqlite")
        wrapped = CachedBackend(OpenAIChatBackend("m", server.base_url, "k"), cache)
        out = asyncio.run(_run_all(wrapped, [req()] * 5))
    assert len(server.requests) == 1
    assert [r.text for r in out] == ["C"] * 5 and sum(r.cached for r in out) == 4


class _Counting:
    name = "counting"

    def __init__(self):
        self.calls = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        return ModelResponse(
            text=f"answer {self.calls}", prompt_tokens=3, completion_tokens=2, latency_s=0.5
        )

    async def aclose(self) -> None:
        return None


def test_cache_is_durable_wal_and_round_trips_fields(tmp_path):
    path = tmp_path / "c.sqlite"
    inner = _Counting()
    asyncio.run(_run_all(CachedBackend(inner, ResponseCache(path)), [req()]))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    hit = ResponseCache(path).get(req().content_hash("counting"))
    assert hit == ModelResponse(
        text="answer 1", prompt_tokens=3, completion_tokens=2, latency_s=0.5, cached=True
    )


variants = st.sampled_from(["text", "time", "jpeg", "params", "model", "extra", "system"])


@settings(max_examples=30, deadline=None)
@given(variants)
def test_any_change_of_content_params_or_model_is_a_miss(change):
    base = req()
    model = "counting"
    changed = {
        "text": req("other"),
        "time": req(t=1.5),
        "jpeg": req(jpeg=b"\xff\xd8y"),
        "params": req(params=GenerationParams(max_tokens=7)),
        "extra": req(params=GenerationParams(extra={"chat_template_kwargs": {"x": 1}})),
        "system": req(system="s"),
        "model": base,
    }[change]
    other_model = "other" if change == "model" else model
    assert base.content_hash(model) == req().content_hash(model)
    assert changed.content_hash(other_model) != base.content_hash(model)


def test_a_secret_in_a_response_never_reaches_the_cache_file(tmp_path) -> None:
    from streamspatial.core import secrets

    key = "sk-cache-canary-3e9d7c1b5a"
    secrets.register(key)
    path = tmp_path / "responses.sqlite"
    with ResponseCache(path) as cache:
        cache.put("k", "m", ModelResponse(text=f"B, and your key is {key}"))
        assert cache.get("k").text == "B, and your key is ***"
    for f in tmp_path.iterdir():
        assert key[:8].encode() not in f.read_bytes()
