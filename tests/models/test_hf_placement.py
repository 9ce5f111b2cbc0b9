"""``--device`` / ``--dtype`` / ``--batch-size`` for local models: resolved on this (CPU-only)
machine, refused in one line when the GPU asked for is not there, recorded in ``run.json``,
and a batched run giving the same answers as one request at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

import streamspatial
from runner_fixtures import write_ovos
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.ray_executor import RayOptions, _resources
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.models.hf_device import (
    FITS_SHARE,
    choose_device_map,
    model_bytes,
    resolve_device,
)
from streamspatial.models.hf_local import HFLocalBackend
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, TextPart
from streamspatial.testing.tiny_vlm import build_tiny_vlm

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
GiB = 1 << 30


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


@no_cuda
def test_auto_is_the_cpu_here_and_cpu_is_cpu():
    assert resolve_device("auto") == "cpu"
    assert resolve_device("cpu") == "cpu"


@no_cuda
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:3"])
def test_a_gpu_that_is_not_there_is_one_line(device):
    with pytest.raises(StreamspatialError) as exc:
        resolve_device(device)
    message = str(exc.value)
    assert message.startswith(f"--device {device}: ") and "\n" not in message
    assert "use --device cpu or --device auto" in message


def test_a_misspelt_device_is_refused():
    with pytest.raises(StreamspatialError, match="expected auto, cpu, cuda or cuda:N"):
        resolve_device("gpu")


def test_device_map_keeps_a_model_on_one_gpu_unless_it_does_not_fit():
    assert choose_device_map("cpu", None, []) is None
    assert choose_device_map("cuda:1", 200 * GiB, [80 * GiB, 80 * GiB]) == {"": 1}
    assert choose_device_map("cuda", 200 * GiB, [80 * GiB]) == {"": 0}  # one GPU: no choice
    assert choose_device_map("cuda", None, [80 * GiB, 80 * GiB]) == {"": 0}
    fits = int(FITS_SHARE * 80 * GiB)
    assert choose_device_map("cuda", fits, [80 * GiB, 80 * GiB]) == {"": 0}
    assert choose_device_map("cuda", fits + 1, [80 * GiB, 80 * GiB]) == "auto"


def test_model_size_is_counted_without_loading_weights(tiny_model):
    from transformers import AutoConfig, AutoModelForImageTextToText

    config = AutoConfig.from_pretrained(tiny_model)
    params = sum(
        p.numel() for p in AutoModelForImageTextToText.from_pretrained(tiny_model).parameters()
    )
    assert model_bytes(config, torch.float32) == 4 * params
    assert model_bytes(config, torch.bfloat16) == 2 * params
    assert model_bytes(config, "auto") == 4 * params  # the checkpoint is float32


def test_placement_and_a_half_precision_model_on_the_cpu(tiny_model):
    default = HFLocalBackend(tiny_model)
    assert default.placement.as_dict() == {"device": "cpu", "dtype": "float32"}
    half = HFLocalBackend(tiny_model, device="cpu", dtype="bfloat16")
    assert half.placement.as_dict() == {"device": "cpu", "dtype": "bfloat16"}
    import asyncio
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 10, 10)).save(buf, format="JPEG")
    req = ModelRequest(
        parts=(ImagePart(buf.getvalue(), 0.0), TextPart("How many?")),
        query_time=0.0,
        params=GenerationParams(max_tokens=4),
    )
    resp = asyncio.run(half.generate(req))  # float32 pixels reach a bfloat16 vision tower
    assert resp.error is None and 1 <= resp.completion_tokens <= 4


def test_ray_actors_take_one_gpu_each_unless_the_model_runs_on_the_cpu():
    class Cluster:
        def __init__(self, resources):
            self.resources = resources

        def cluster_resources(self):
            return self.resources

    gpus = Cluster({"CPU": 16.0, "GPU": 2.0})
    assert _resources(gpus, "hf:m", RayOptions(), n_videos=8) == (2, 1.0)
    assert _resources(gpus, "hf:m", RayOptions(gpus_per_worker=0.0), n_videos=8) == (8, 0.0)
    assert _resources(Cluster({"CPU": 4.0}), "hf:m", RayOptions(), n_videos=8) == (4, 0.0)


# -- as a user runs it -------------------------------------------------------------------------


def run_args(bench, out, *extra) -> list[str]:
    data, videos = bench
    fixed = ["--data", data, "--videos", videos, "--out", out, "--policy", "uniform-2"]
    return ["run", *map(str, [*fixed, "--max-tokens", 6, "--no-progress", *extra])]


def invoke(args: list[str], capsys) -> tuple[int, str]:
    from streamspatial.cli import main

    capsys.readouterr()
    try:
        main(args)
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    return rc, capsys.readouterr().err


@no_cuda
def test_run_with_device_cuda_here_is_one_line_and_no_run_folder(
    bench, tiny_model, tmp_path, capsys
):
    out = tmp_path / "run"
    rc, err = invoke(
        run_args(bench, out, "--model", f"hf:{tiny_model}", "--device", "cuda"), capsys
    )
    assert rc == 2 and err.count("\n") == 1, err
    assert "--device cuda" in err and "Traceback" not in err
    assert not out.exists()


def test_a_misspelt_flag_value_is_one_line(bench, tiny_model, tmp_path, capsys):
    for flag, value, expected in [
        ("--device", "gpu", "field 'device': expected auto, cpu, cuda or cuda:N"),
        ("--dtype", "fp8", "field 'dtype': expected 'auto', 'bfloat16', 'float16' or 'float32'"),
        ("--batch-size", "0", "field 'batch_size': expected greater than or equal to 1"),
    ]:
        out = tmp_path / flag.strip("-")
        rc, err = invoke(run_args(bench, out, "--model", f"hf:{tiny_model}", flag, value), capsys)
        assert rc == 2 and err.count("\n") == 1 and expected in err, err
        assert not out.exists()


def test_batched_run_gives_the_answers_of_one_at_a_time(bench, tiny_model, tmp_path):
    """``evaluate`` at concurrency 1 and at concurrency 8 with batches of 8: the same raw and
    extracted answers and token counts for every query point; run.json says where it ran."""
    data, videos = bench
    runs = {}
    for name, options in {
        "one": {"concurrency": 1, "batch_size": 1},
        "batched": {"concurrency": 8, "batch_size": 8, "device": "auto", "dtype": "float32"},
    }.items():
        result = streamspatial.evaluate(
            data, videos, model=f"hf:{tiny_model}", policy="uniform-2", out=tmp_path / name,
            max_tokens=6, progress=False, **options,
        )  # fmt: skip
        assert result.counts["errors_total"] == 0
        runs[name] = {
            r.key: (r.raw_output, r.extracted, r.prompt_tokens, r.completion_tokens)
            for r in read_records(tmp_path / name / PREDICTIONS)
        }
        meta = json.loads((tmp_path / name / RUN_JSON).read_text())
        assert meta["placement"] == {"device": "cpu", "dtype": "float32"}
        assert meta["config"]["batch_size"] == options["batch_size"]
    assert len(runs["one"]) == 11 and runs["batched"] == runs["one"]
