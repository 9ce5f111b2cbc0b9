"""The loopback OpenAI-compatible server itself: recording, answering, fault schedules."""

from __future__ import annotations

import base64
import io

import httpx
import pytest
from PIL import Image

from streamspatial.testing import FakeOpenAIServer, answer_fixed
from streamspatial.video.synthetic import draw_frame


def body(indices: list[int], text: str = "What now? Query time: 3.5s") -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    for i in indices:
        buf = io.BytesIO()
        Image.fromarray(draw_frame(i, (80, 60))).save(buf, format="JPEG")
        url = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()
        content.append({"type": "image_url", "image_url": {"url": url}})
    return {"model": "m", "messages": [{"role": "user", "content": content}]}


def test_records_frames_text_query_time_and_answers():
    seen = []

    def answer(rec):
        seen.append(rec.number)
        return f"saw {rec.n_images}"

    with FakeOpenAIServer(answer, fps=2.0) as server:
        r = httpx.post(f"{server.base_url}/chat/completions", json=body([1, 6]))
    assert r.status_code == 200
    data = r.json()
    assert data["choices"][0]["message"]["content"] == "saw 2"
    assert data["usage"]["completion_tokens"] == 2
    rec = server.requests[0]
    assert rec.frame_indices == [1, 6] and rec.frame_times == [0.5, 3.0]
    assert rec.query_time == 3.5 and not rec.violates_causality()
    assert rec.text.startswith("What now?") and seen == [0]


def test_a_late_frame_is_flagged_and_non_barcode_images_read_as_unknown():
    with FakeOpenAIServer("A", fps=1.0) as server:
        httpx.post(f"{server.base_url}/chat/completions", json=body([9]))
        junk = body([])
        junk["messages"][0]["content"].append(
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}
        )
        httpx.post(f"{server.base_url}/chat/completions", json=junk)
    assert server.requests[0].violates_causality()
    assert server.requests[1].frame_indices == [None] and server.requests[1].n_images == 1


def test_seeded_fault_rates_are_reproducible():
    def statuses(seed: int) -> list[int]:
        rates = {"500": 0.3, "429": 0.2}
        with (
            FakeOpenAIServer(answer_fixed("A"), fault_rates=rates, seed=seed) as server,
            httpx.Client() as client,
        ):
            return [
                client.post(f"{server.base_url}/chat/completions", json=body([])).status_code
                for _ in range(40)
            ]

    a, b = statuses(1), statuses(1)
    assert a == b and set(a) == {200, 429, 500}
    assert statuses(2) != a


def test_schedule_then_behaves_and_retry_after_header():
    with (
        FakeOpenAIServer("A", faults=["429", "malformed", "empty"], retry_after="2") as s,
        httpx.Client() as client,
    ):
        url = f"{s.base_url}/chat/completions"
        r1, r2, r3, r4 = (client.post(url, json=body([])) for _ in range(4))
    assert r1.status_code == 429 and r1.headers["retry-after"] == "2"
    with pytest.raises(ValueError):
        r2.json()
    assert r3.json()["choices"] == []
    assert r4.json()["choices"][0]["message"]["content"] == "A"


def test_unknown_fault_and_unknown_path():
    with pytest.raises(ValueError, match="unknown fault"):
        FakeOpenAIServer("A", faults=["teapot"])
    with FakeOpenAIServer("A") as server:
        r = httpx.post(server.base_url.removesuffix("/v1") + "/chat/completions", json={})
    assert r.status_code == 404 and server.requests == []
