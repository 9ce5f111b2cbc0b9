"""Batched local generation: left padding, each sample its own images, the answers of one at a
time, each sample stopping on its own, and preparation off the generate thread.

The tiny VLM is random, but its greedy answer depends on the image it sees (a black frame and
a white frame give different answers, asserted below), so a batch that shared or swapped
images between samples would change answers and fail these tests.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import threading
import time

import pytest
from PIL import Image

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from streamspatial.models.hf_batch import MicroBatcher, collate, completion_length
from streamspatial.models.hf_local import HFLocalBackend
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
from streamspatial.testing.tiny_vlm import build_tiny_vlm

BLACK, WHITE, BLUE = (0, 0, 0), (255, 255, 255), (0, 0, 255)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))


@pytest.fixture(scope="module")
def backend(tiny_model):
    return HFLocalBackend(tiny_model, device="cpu", dtype="float32", batch_size=8)


def jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), color).save(buf, format="JPEG")
    return buf.getvalue()


def request(color, question="What is left of the sofa? A. chair B. table", n_images=1, tokens=8):
    parts = []
    for k in range(n_images):
        parts += [TextPart(f"Frame at {k}.0s:"), ImagePart(jpeg(color), float(k))]
    return ModelRequest(
        parts=(*parts, TextPart(question)),
        query_time=float(n_images),
        system="Answer with a letter.",
        params=GenerationParams(max_tokens=tokens),
    )


def mixed_requests() -> list[ModelRequest]:
    """Prompts of different lengths, frame counts and images, and one without any image."""
    return [
        request(BLACK),
        request(WHITE, "How many chairs?"),
        request(BLUE, "Where is the lamp relative to the door? A. left B. right C. behind", 2),
        ModelRequest(
            parts=(TextPart("Count the chairs."),),
            query_time=0.0,
            params=GenerationParams(max_tokens=8),
        ),
        request(WHITE, "q", 3),
        request(BLACK, "Which is nearer, the sofa or the table?"),
    ]


def one_at_a_time(backend, requests):
    return [backend.answer_batch([backend.prepare(r)])[0] for r in requests]


# -- collation ---------------------------------------------------------------------------------


def test_collate_pads_on_the_left_and_keeps_images_in_sample_order():
    a = {
        "input_ids": torch.tensor([[5, 6, 7]]),
        "attention_mask": torch.ones(1, 3, dtype=int),
        "pixel_values": torch.full((2, 3, 4, 4), 1.0),
    }
    b = {"input_ids": torch.tensor([[8]]), "attention_mask": torch.ones(1, 1, dtype=int)}
    c = {
        "input_ids": torch.tensor([[9, 9]]),
        "attention_mask": torch.ones(1, 2, dtype=int),
        "pixel_values": torch.full((1, 3, 4, 4), 3.0),
    }
    out = collate([a, b, c], pad_id=0)
    assert out["input_ids"].tolist() == [[5, 6, 7], [0, 0, 8], [0, 9, 9]]
    assert out["attention_mask"].tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 1]]
    # a's two images, then c's one: b has none to add
    assert out["pixel_values"][:, 0, 0, 0].tolist() == [1.0, 1.0, 3.0]


def test_collate_keeps_patch_style_images_and_their_grids_in_order():
    """Qwen-VL processors give flat patches plus one grid row per image."""
    a = {
        "input_ids": torch.tensor([[1, 2]]),
        "attention_mask": torch.ones(1, 2, dtype=int),
        "pixel_values": torch.zeros(16, 8),
        "image_grid_thw": torch.tensor([[1, 4, 4]]),
        "mm_token_type_ids": torch.tensor([[1, 0]]),
    }
    b = {
        "input_ids": torch.tensor([[3, 4, 5, 6]]),
        "attention_mask": torch.ones(1, 4, dtype=int),
        "pixel_values": torch.ones(8, 8),
        "image_grid_thw": torch.tensor([[1, 2, 4]]),
        "mm_token_type_ids": torch.tensor([[0, 1, 1, 0]]),
    }
    out = collate([a, b], pad_id=99)
    assert out["input_ids"].tolist() == [[99, 99, 1, 2], [3, 4, 5, 6]]
    assert out["mm_token_type_ids"].tolist() == [[0, 0, 1, 0], [0, 1, 1, 0]]
    assert out["pixel_values"].shape == (24, 8) and out["pixel_values"][16:].eq(1).all()
    assert out["image_grid_thw"].tolist() == [[1, 4, 4], [1, 2, 4]]


def test_collate_refuses_images_that_cannot_be_stacked():
    a = {"input_ids": torch.tensor([[1]]), "pixel_values": torch.zeros(1, 2, 3)}
    b = {"input_ids": torch.tensor([[1]]), "pixel_values": torch.zeros(1, 5, 3)}
    with pytest.raises(RuntimeError):
        collate([a, b], pad_id=0)


def test_completion_length_stops_at_each_rows_own_end():
    assert completion_length([4, 5, 2, 0, 0], {2}) == 3
    assert completion_length([4, 5, 6], {2}) == 3
    assert completion_length([2, 2, 2], {2}) == 1
    assert completion_length([7, 9, 3], {3, 9}) == 2


# -- the batcher -------------------------------------------------------------------------------


def test_batcher_groups_by_key_runs_seeded_alone_and_contains_failures():
    seen: list[list[str]] = []
    started, gate = threading.Event(), threading.Event()

    def run(payloads):
        if payloads == ["hold"]:  # occupies the thread while the queue fills
            started.set()
            gate.wait(10)
        seen.append(list(payloads))
        if "bad" in payloads:
            raise ValueError("bad sample")
        return [p.upper() for p in payloads]

    batcher = MicroBatcher(run, batch_size=3)
    hold = batcher.submit("hold", "k")
    assert started.wait(10)
    futures = {
        "a": batcher.submit("a", "k"),
        "x": batcher.submit("x", "other"),
        "b": batcher.submit("b", "k"),
        "s": batcher.submit("s", "k", alone=True),
        "bad": batcher.submit("bad", "k"),
        "c": batcher.submit("c", "k"),
        "gone": batcher.submit("gone", "k"),
    }
    futures["gone"].cancel()
    assert batcher.pending == 7
    gate.set()
    assert hold.result(10) == "HOLD"
    assert futures["a"].result(10) == "A" and futures["c"].result(10) == "C"
    assert futures["x"].result(10) == "X" and futures["s"].result(10) == "S"
    with pytest.raises(ValueError, match="bad sample"):
        futures["bad"].result(10)
    batcher.close()
    # Oldest first; same key only, up to three; the seeded one alone; a failed batch retried
    # one job at a time; the cancelled job never ran.
    assert seen == [["hold"], ["a", "b", "bad"], ["a"], ["b"], ["bad"], ["x"], ["s"], ["c"]]
    assert batcher.stats.largest == 3


# -- the real model ----------------------------------------------------------------------------


def first_step_scores(backend, requests):
    """Each request's scores over the vocabulary for its first new token, from one generate
    over all of them."""
    out, _ = backend.run_generate(
        [backend.prepare(r) for r in requests],
        output_scores=True,
        return_dict_in_generate=True,
    )
    return out.scores[0]


def test_batched_greedy_answers_equal_one_at_a_time(backend):
    requests = mixed_requests()
    alone = one_at_a_time(backend, requests)
    together = backend.answer_batch([backend.prepare(r) for r in requests])
    assert together == alone  # text, prompt tokens and completion tokens of every sample
    assert len({a[1] for a in alone}) == len(alone)  # every prompt has its own length


@pytest.mark.parametrize("order", [(BLACK, WHITE), (WHITE, BLACK), (WHITE, BLACK, BLUE, WHITE)])
def test_each_sample_sees_its_own_image(backend, order):
    """Same text, different images.  A black, a white and a blue frame give the model
    measurably different scores; in a batch each sample must score exactly as it does alone,
    which it cannot if images were shared, swapped or misaligned."""
    alone = {c: first_step_scores(backend, [request(c)])[0] for c in (BLACK, WHITE, BLUE)}
    for a, b in [(BLACK, WHITE), (BLACK, BLUE), (WHITE, BLUE)]:
        assert (alone[a] - alone[b]).abs().max() > 1e-3  # the image matters
    together = first_step_scores(backend, [request(c) for c in order])
    for row, color in zip(together, order, strict=True):
        torch.testing.assert_close(row, alone[color], rtol=0, atol=1e-5)


def test_each_sample_answers_from_its_own_image(backend):
    """The same through the answers' text: frames whose answers differ alone keep them in
    any order in one batch."""
    frames = [BLACK, WHITE, BLUE, (90, 160, 40)]
    ask = [request(c, "How many?") for c in frames]
    alone = one_at_a_time(backend, ask)
    assert len({a[0] for a in alone}) >= 2, "no two frames answered differently"
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 0, 0, 3, 2, 1]):
        together = backend.answer_batch([backend.prepare(ask[k]) for k in order])
        assert together == [alone[k] for k in order]


def test_batch_inputs_are_left_padded(backend):
    short, long = backend.prepare(request(BLACK, "q")), backend.prepare(request(WHITE, "q" * 40))
    batch = collate([short.inputs, long.inputs], backend.pad_id)
    gap = long.prompt_tokens - short.prompt_tokens
    assert gap > 0
    assert batch["attention_mask"][0].tolist() == [0] * gap + [1] * short.prompt_tokens
    assert batch["input_ids"][0, gap:].tolist() == short.inputs["input_ids"][0].tolist()
    assert batch["input_ids"][0, :gap].eq(backend.pad_id).all()


def new_tokens(backend, req) -> list[int]:
    out, width = backend.run_generate([backend.prepare(req)])
    return out[0, width:].tolist()


def test_each_sample_stops_on_its_own(tiny_model, backend, tmp_path):
    """Make a token one answer emits early an end token: that sample stops there while
    another, in the same batch, runs to its cap of 8 tokens, as each does alone."""
    requests = mixed_requests()
    emitted = [new_tokens(backend, r) for r in requests]
    a, b, stop = next(
        (i, j, t)
        for i, ti in enumerate(emitted)
        for j, tj in enumerate(emitted)
        for t in ti[1:-1]
        if t not in tj
    )
    folder = tmp_path / "stops"
    shutil.copytree(tiny_model, folder)
    gen = json.loads((folder / "generation_config.json").read_text())
    gen["eos_token_id"] = [gen["eos_token_id"], stop]
    (folder / "generation_config.json").write_text(json.dumps(gen))
    stopping = HFLocalBackend(folder, device="cpu", dtype="float32")
    pair = [requests[a], requests[b]]
    alone = one_at_a_time(stopping, pair)
    together = stopping.answer_batch([stopping.prepare(r) for r in pair])
    assert together == alone
    assert together[0][2] < 8 and together[1][2] == 8


def hold_first_generate(backend: HFLocalBackend, queued: int) -> dict[str, object]:
    """Make the model's first ``generate`` wait (up to 30 s) until ``queued`` more prepared
    requests wait behind it, so what forms the next batches is fixed, not a race; returns
    what happened (did they queue up, on which threads did work run, and an event set when
    the model started)."""
    seen: dict[str, object] = {
        "queued": None,
        "prepare": set(),
        "generate": set(),
        "started": threading.Event(),
    }
    real_prepare, real_generate = backend.prepare, backend.model.generate

    def prepare(req):
        seen["prepare"].add(threading.current_thread().name)
        return real_prepare(req)

    def generate(**kwargs):
        seen["generate"].add(threading.current_thread().name)
        if seen["queued"] is None:
            seen["started"].set()
            deadline = time.monotonic() + 30
            while backend.queued < queued and time.monotonic() < deadline:
                time.sleep(0.01)
            seen["queued"] = backend.queued
        return real_generate(**kwargs)

    backend.prepare = prepare
    backend.model.generate = generate
    return seen


def ask_one_then_the_rest(backend, seen, requests) -> list:
    """The first request alone, then the rest once the model is busy with it."""

    async def main():
        first = asyncio.create_task(backend.generate(requests[0]))
        assert await asyncio.to_thread(seen["started"].wait, 30)
        try:
            rest = await asyncio.gather(*(backend.generate(r) for r in requests[1:]))
            return [await first, *rest]
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_generate_batches_requests_in_flight_and_keeps_their_own_counts(tiny_model, backend):
    """Through ``generate`` as the runner calls it: up to ``batch_size`` requests in flight
    share a generate, and each answer, token count and latency is its own."""
    requests = mixed_requests() * 2
    alone = one_at_a_time(backend, requests)
    batched = HFLocalBackend(tiny_model, device="cpu", dtype="float32", batch_size=4)
    seen = hold_first_generate(batched, queued=len(requests) - 1)
    responses = ask_one_then_the_rest(batched, seen, requests)
    assert seen["queued"] == len(requests) - 1
    assert [(r.text, r.prompt_tokens, r.completion_tokens) for r in responses] == alone
    assert all(r.error is None and r.latency_s > 0 for r in responses)
    assert (batched.stats.batches, batched.stats.largest) == (4, 4)  # 1, then 4 + 4 + 3


def test_preparation_runs_while_the_model_generates(tiny_model):
    """The first generate waits until the three requests sent after it are prepared and
    queued: were preparation on the generate thread (or behind it), it would wait in vain."""
    backend = HFLocalBackend(tiny_model, device="cpu", dtype="float32", batch_size=4)
    seen = hold_first_generate(backend, queued=3)
    responses = ask_one_then_the_rest(
        backend, seen, [request(c) for c in (BLACK, WHITE, BLUE, BLACK)]
    )
    assert seen["queued"] == 3
    assert all(r.error is None for r in responses)
    assert seen["generate"] == {"streamspatial-generate"}
    assert all(str(n).startswith("streamspatial-prepare") for n in seen["prepare"])
    assert (backend.stats.batches, backend.stats.largest) == (2, 3)
