"""A local model keeps the GPU fed: answers per second at batch 1, 4 and 16, and the harness
against a bare loop of ``generate`` calls.  Needs a CUDA GPU; without one it prints "no GPU"
and exits 2 (``run_all.py`` lists it as not run).

Workload: a randomly initialised LLaVA-style model of a real size (CLIP ViT-L/14-336 tower,
22-layer Llama at TinyLlama's widths: 1.3 B parameters), built offline as the project's tiny
VLM is built (no download), in bfloat16 on the GPU; eight synthetic 640×480 videos, policy
uniform-8 at 448 px (eight 336-px images, ~4.9 k prompt tokens a request), 16 new tokens per
answer (a random model seldom stops early, so every answer costs about the same).  The frame
cache is filled first: decoding is ``decode.py``'s subject, the model path is this one's.

Each batch size ``B`` runs through the very path of ``streamspatial run`` (the runner, the
policy agent, the ``hf:`` backend from the registry) at ``--concurrency 2B``, so one batch is
prepared while the other generates.  Figures (goals in docs/performance.md):

* answers/s at batch 16 ÷ answers/s at batch 1 (goal ≥ 5×);
* the harness's answers/s ÷ a bare loop's at batch 16 (goal ≥ 0.9).  The bare loop is the
  fairest thing a user could compare with: the same requests (recorded from the harness's
  run), the processor run on all of them *beforehand* (untimed), left-padded batches of the
  same size, and ``generate`` called back to back on the same loaded model — no video, no
  scheduling, no preparation in the timed part.

It prints GPU utilisation (mean and peak, sampled every 0.1 s with pynvml, else nvidia-smi)
and memory (torch's peak allocation, and the device's use) for each run.

Needs: torch with CUDA, transformers, PyAV and the project's core dependencies (run from a
checkout: ``src/`` is put on the path when the package is not installed); pynvml
(``nvidia-ml-py``) or ``nvidia-smi`` for utilisation; nothing from the network.

    python benchmarks/gpu_throughput.py [--points 160] [--repeat 2] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report, load
from _loopback import write_single_query_bench

HERE = Path(__file__).resolve().parent
try:
    import streamspatial  # noqa: F401
except ImportError:  # a checkout on a machine where the package is not installed
    sys.path.insert(0, str(HERE.parent / "src"))

BATCHES = (1, 4, 16)
VIDEOS, SECONDS, SIZE, POLICY, FRAME_SIZE, NEW_TOKENS = 8, 40.0, (640, 480), "uniform-8", 448, 16
# CLIP ViT-L/14-336 and a 22-layer Llama at TinyLlama-1.1B's widths.
VISION_1B = {
    "hidden_size": 1024,
    "intermediate_size": 4096,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "image_size": 336,
    "patch_size": 14,
}
TEXT_1B = {
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 22,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "max_position_embeddings": 8192,
}


def build_model(folder: Path, size: str = "1b", device: str = "cuda") -> Path:
    """A random chat VLM in ``folder``: the tiny VLM (``tiny``) or, with the tiny one's
    tokenizer and processor, a 1.3 B model (``1b``) initialised on ``device``, in bfloat16."""
    from streamspatial.testing import build_tiny_vlm

    if size == "tiny":
        return build_tiny_vlm(folder)
    import torch
    from transformers import LlavaConfig, LlavaForConditionalGeneration

    build_tiny_vlm(folder, image_size=VISION_1B["image_size"])
    config = LlavaConfig.from_pretrained(folder)
    for key, value in VISION_1B.items():
        setattr(config.vision_config, key, value)
    for key, value in TEXT_1B.items():
        setattr(config.text_config, key, value)
    tiny = LlavaForConditionalGeneration.from_pretrained(folder)
    torch.manual_seed(0)
    with torch.device(device):
        model = LlavaForConditionalGeneration(config)
    model.to(torch.bfloat16)
    model.generation_config = tiny.generation_config
    model.save_pretrained(folder)
    params = sum(p.numel() for p in model.parameters())
    print(f"built a random {params / 1e9:.2f} B-parameter model in {folder}", flush=True)
    del model, tiny
    return folder


def write_workload(
    root: Path,
    points: int,
    videos: int = VIDEOS,
    seconds: float = SECONDS,
    size: tuple[int, int] = SIZE,
) -> tuple[Path, Path]:
    """``points`` single-query OVO-S items over ``videos`` synthetic videos."""
    from streamspatial.video.synthetic import write_timestamp_video

    folder = root / "videos"
    folder.mkdir(parents=True, exist_ok=True)
    for v in range(videos):
        write_timestamp_video(folder / f"v{v}.mp4", seconds=seconds, fps=30, size=size, gop=250)
    data = root / f"bench-{points}.jsonl"
    write_single_query_bench(data, points, videos=videos, seconds=seconds, first=2.0, tail=1.0)
    return data, folder


class Recording:
    """The backend as the runner sees it, keeping every request it is sent (for the bare
    loop) and the text answered to it."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = inner.name
        self.asked: list[tuple[Any, str]] = []

    async def generate(self, request: Any) -> Any:
        response = await self.inner.generate(request)
        self.asked.append((request, response.text))
        return response

    async def aclose(self) -> None:
        return None


class GpuSampler:
    """Utilisation and memory of GPU 0, sampled every ``every`` s in a thread (pynvml, else
    nvidia-smi); empty where neither is there (the CPU smoke run)."""

    def __init__(self, every: float = 0.1):
        self.every = every
        self.util: list[float] = []
        self.used_mib: list[float] = []
        self._stop = threading.Event()
        self._read = self._reader()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _reader(self) -> Any:
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)

            def nvml() -> tuple[float, float]:
                util = pynvml.nvmlDeviceGetUtilizationRates(handle).gpu
                return float(util), pynvml.nvmlDeviceGetMemoryInfo(handle).used / 2**20

            return nvml
        except Exception:
            pass
        if shutil.which("nvidia-smi") is None:
            return None
        query = [
            "nvidia-smi",
            "--id=0",
            "--query-gpu=utilization.gpu,memory.used",
            "--format=csv,noheader,nounits",
        ]

        def smi() -> tuple[float, float]:
            out = subprocess.run(query, capture_output=True, text=True, timeout=5).stdout
            util, used = out.strip().splitlines()[0].split(",")
            return float(util), float(used)

        return smi

    def __enter__(self) -> GpuSampler:
        if self._read is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                util, used = self._read()
            except Exception:
                return
            self.util.append(util)
            self.used_mib.append(used)

    def summary(self) -> str:
        if not self.util:
            return "GPU utilisation not sampled (no pynvml, no nvidia-smi)"
        return (
            f"GPU utilisation mean {statistics.mean(self.util):.0f} %, peak "
            f"{max(self.util):.0f} % ({len(self.util)} samples); device memory up to "
            f"{max(self.used_mib) / 1024:.1f} GiB"
        )


@dataclass
class HarnessRun:
    wall_s: float
    answers: int
    asked: list[tuple[Any, str]]
    batches: int
    largest: int
    gpu: str
    peak_alloc_gib: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def load_backend_for(model: Path, batch: int, device: str, dtype: str) -> Any:
    from streamspatial.models.registry import load_backend
    from streamspatial.models.types import GenerationParams

    params = GenerationParams(temperature=0.0, max_tokens=NEW_TOKENS)
    return load_backend(f"hf:{model}", device=device, dtype=dtype, batch_size=batch, params=params)


def through_harness(
    backend: Any, data: Path, videos: Path, cache: Path, out: Path, concurrency: int
) -> HarnessRun:
    """One run of the runner over ``data`` answered by ``backend``, timed from start to the
    last record."""
    from streamspatial.agents import PolicyAgent
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.eval.results import PREDICTIONS, PredictionWriter
    from streamspatial.eval.runner import Runner

    adapter, items = load_benchmark(data, videos=videos)
    out.mkdir(parents=True)
    recording = Recording(backend)
    before = (backend.stats.batches, backend.stats.requests)
    cuda = _cuda()
    if cuda is not None:
        cuda.reset_peak_memory_stats()
    with PredictionWriter(out / PREDICTIONS) as writer, GpuSampler() as gpu:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=recording,
            agent=partial(PolicyAgent, POLICY),
            writer=writer,
            videos=videos,
            model=backend.name,
            concurrency=concurrency,
            frame_size=FRAME_SIZE,
            cache_dir=cache,
            progress=False,
        )
        t0 = time.perf_counter()
        asyncio.run(runner.run())
        wall = time.perf_counter() - t0
        errors = [r.error for r in writer.records.values() if r.error]
        if errors:
            raise SystemExit(f"{len(errors)} answers failed, e.g. {errors[0]}")
        answers = len(writer.records)
    batches = backend.stats.batches - before[0]
    return HarnessRun(
        wall_s=wall,
        answers=answers,
        asked=recording.asked,
        batches=batches,
        largest=backend.stats.largest,
        gpu=gpu.summary(),
        peak_alloc_gib=cuda.max_memory_allocated() / 2**30 if cuda is not None else None,
        extra={"mean_batch": (backend.stats.requests - before[1]) / max(1, batches)},
    )


def bare_loop(backend: Any, requests: list[Any], batch: int) -> tuple[float, list[str]]:
    """(seconds, answers) of ``generate`` called back to back over ``requests`` in batches of
    ``batch``, every input prepared beforehand: processor, left padding, on the device."""
    import torch

    from streamspatial.models.hf_local import chat_messages, generate_kwargs
    from streamspatial.models.types import GenerationParams

    processor, model = backend.processor, backend.model
    tokenizer = processor.tokenizer
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    prepared = []
    try:
        for k in range(0, len(requests), batch):
            prompts, images = [], []
            for request in requests[k : k + batch]:
                messages, pictures = chat_messages(request)
                prompts.append(
                    processor.apply_chat_template(
                        messages, tokenize=False, add_generation_prompt=True
                    )
                )
                images += pictures
            inputs = processor(
                text=prompts, images=images or None, padding=True, return_tensors="pt"
            )
            prepared.append(
                {
                    key: v.to(model.device, dtype=model.dtype)
                    if v.is_floating_point()
                    else v.to(model.device)
                    for key, v in inputs.items()
                }
            )
    finally:
        tokenizer.padding_side = side
    kwargs = generate_kwargs(GenerationParams(temperature=0.0, max_tokens=NEW_TOKENS))
    pad = backend.pad_id
    outputs = []
    cuda = _cuda()
    if cuda is not None:
        cuda.synchronize()
    t0 = time.perf_counter()
    with torch.inference_mode():
        for inputs in prepared:
            outputs.append(model.generate(**inputs, **kwargs, pad_token_id=pad))
    if cuda is not None:
        cuda.synchronize()
    wall = time.perf_counter() - t0
    from streamspatial.models.hf_batch import completion_length

    eos = backend.eos_ids
    texts = []
    for inputs, out in zip(prepared, outputs, strict=True):
        for row in out[:, inputs["input_ids"].shape[1] :].tolist():
            texts.append(
                processor.decode(row[: completion_length(row, eos)], skip_special_tokens=True)
            )
    return wall, texts


def _cuda() -> Any:
    import torch

    return torch.cuda if torch.cuda.is_available() else None


def measure(
    model: Path,
    data: Path,
    videos: Path,
    root: Path,
    batch: int,
    *,
    device: str,
    dtype: str,
    repeat: int = 1,
) -> dict[str, Any]:
    """Harness and bare loop at one batch size, ``repeat`` times each, alternating."""
    backend = load_backend_for(model, batch, device, dtype)
    try:
        ours, bare, runs, same = [], [], [], 0
        for r in range(repeat):
            run = through_harness(
                backend,
                data,
                videos,
                root / "cache",
                root / f"run-{batch}-{r}",
                concurrency=2 * batch,
            )
            requests = [request for request, _ in run.asked]
            wall, texts = bare_loop(backend, requests, batch)
            ours.append(run.answers / run.wall_s)
            bare.append(len(texts) / wall)
            same = sum(a == t for (_, a), t in zip(run.asked, texts, strict=True))
            runs.append(run)
            alloc = f", {run.peak_alloc_gib:.1f} GiB allocated" if run.peak_alloc_gib else ""
            print(
                f"  batch {batch}: harness {ours[-1]:.2f} answers/s (mean batch "
                f"{run.extra['mean_batch']:.1f}, largest {run.largest}), bare loop "
                f"{bare[-1]:.2f} answers/s, ratio {ours[-1] / bare[-1]:.3f}; {run.gpu}{alloc}; "
                f"{same}/{len(texts)} answers identical; {load()}",
                flush=True,
            )
        return {"harness": ours, "bare": bare, "runs": runs, "identical": same}
    finally:
        asyncio.run(backend.aclose())
        del backend
        gc.collect()
        if _cuda() is not None:
            _cuda().empty_cache()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=160, help="query points per run")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="64 points, one repeat")
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("no GPU: torch sees no CUDA device; this benchmark measures a GPU", flush=True)
        sys.exit(2)
    points, repeat = (64, 1) if args.quick else (args.points, args.repeat)
    card = torch.cuda.get_device_name(0)
    report = Report("gpu_throughput", quick=args.quick)
    with tempfile.TemporaryDirectory(prefix="ss-gpu-") as tmp:
        root = Path(tmp)
        model = build_model(root / "model", "1b")
        data, videos = write_workload(root, points)
        warm = load_backend_for(model, 16, "cuda", "bfloat16")  # fills the frame cache
        through_harness(warm, data, videos, root / "cache", root / "warm", concurrency=32)
        asyncio.run(warm.aclose())
        del warm
        gc.collect()
        torch.cuda.empty_cache()
        print(
            f"{card}; {points} query points, {POLICY} at {FRAME_SIZE} px, {NEW_TOKENS} new "
            f"tokens; {load()}",
            flush=True,
        )
        results = {
            b: measure(model, data, videos, root, b, device="cuda", dtype="bfloat16", repeat=repeat)
            for b in BATCHES
        }
    speed = {b: statistics.median(r["harness"]) for b, r in results.items()}
    top = results[BATCHES[-1]]
    report.figure(
        "gpu_batch_speedup",
        [h / speed[1] for h in top["harness"]],
        f"{card}: {speed[1]:.2f} answers/s at batch 1, {speed[4]:.2f} at 4, "
        f"{speed[16]:.2f} at 16; {top['runs'][-1].gpu}",
    )
    report.figure(
        "gpu_harness_share",
        [h / b for h, b in zip(top["harness"], top["bare"], strict=True)],
        f"{card}: harness {speed[16]:.2f} answers/s, bare generate loop "
        f"{statistics.median(top['bare']):.2f} at batch 16",
    )
    report.finish()


if __name__ == "__main__":
    main()
