"""``benchmarks/gpu_throughput.py`` is ready for a GPU: its harness run and its bare generate
loop, on the tiny VLM on the CPU, answer the same requests with the same answers; without a GPU
it says so, exits 2, and ``run_all.py`` lists it as not run.  No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import gpu_throughput
import run_all


def test_harness_and_bare_loop_answer_alike_on_the_tiny_model(tmp_path):
    model = gpu_throughput.build_model(tmp_path / "model", "tiny")
    data, videos = gpu_throughput.write_workload(
        tmp_path, 10, videos=2, seconds=4.0, size=(160, 120)
    )
    result = gpu_throughput.measure(model, data, videos, tmp_path, 4, device="cpu", dtype="float32")
    (run,) = result["runs"]
    assert run.answers == 10 and len(run.asked) == 10
    # Every request the runner sent, answered again by the bare loop: the same greedy text.
    assert result["identical"] == 10
    assert len(result["harness"]) == len(result["bare"]) == 1
    assert 1 <= run.largest <= 4 and run.batches >= 10 / 4
    assert run.peak_alloc_gib is None and "not sampled" in run.gpu
    first = run.asked[0][0]
    assert len(first.images) == 8  # uniform-8: the workload's eight frames per request


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_without_a_gpu_it_is_not_run():
    rc, result, why, _ = run_all.run("gpu_throughput.py", ["--quick"])
    assert (rc, result) == (2, None)
    assert why.startswith("no GPU") and run_all.not_run(rc, why)
    table = run_all.table({}, quick=True)
    for key in ("gpu_batch_speedup", "gpu_harness_share"):
        goal = run_all.GOALS[key]
        assert f"| – | {goal.what} | {goal.text()} | not run |" in table


def test_the_real_size_model_is_built_from_the_tiny_ones_parts(tmp_path, monkeypatch):
    """The 1b build path at a reduced width (the real one takes minutes on a CPU): the tiny
    VLM's tokenizer and processor, the vision tower at 336 px, the text model's new shape,
    saved in bfloat16 and loadable by the backend."""
    from streamspatial.models.hf_local import HFLocalBackend
    from streamspatial.models.types import ImagePart, ModelRequest, TextPart

    vision = {
        **gpu_throughput.VISION_1B,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
    }
    text = {
        **gpu_throughput.TEXT_1B,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    }
    monkeypatch.setattr(gpu_throughput, "VISION_1B", vision)
    monkeypatch.setattr(gpu_throughput, "TEXT_1B", text)
    folder = gpu_throughput.build_model(tmp_path / "model", "1b", device="cpu")
    backend = HFLocalBackend(folder, device="cpu")
    assert backend.placement.as_dict() == {"device": "cpu", "dtype": "bfloat16"}
    config = backend.model.config
    assert config.text_config.num_hidden_layers == 3 and config.vision_config.image_size == 336
    with_image = backend.prepare(
        ModelRequest(parts=(ImagePart(gpu_throughput_jpeg(), 0.0), TextPart("q")), query_time=0.0)
    )
    without = backend.prepare(ModelRequest(parts=(TextPart("q"),), query_time=0.0))
    assert with_image.prompt_tokens - without.prompt_tokens == (336 // 14) ** 2


def gpu_throughput_jpeg() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (448, 336), (10, 120, 200)).save(buf, format="JPEG")
    return buf.getvalue()
