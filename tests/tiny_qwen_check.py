"""Feed the tiny Qwen2.5-VL and Qwen3-VL one video through the hf backend; print the outcome.

Runs inside an environment that has torchvision (``tests/models/test_models_qwen_video.py``
starts it with that environment's interpreter and reads the JSON this prints): a Qwen-VL
processor cannot be built without it, and the suite's own environment keeps the CPU torch that
has none.

For each family: the request is six frames of a 10 fps video at indices 0, 6, …, 30 (0.0 s to
3.0 s, 0.6 s apart) as one :class:`~streamspatial.models.types.VideoPart`; the output holds the
prompt's ``<t seconds>`` stamps, ``second_per_grid_ts``, the video grid, and the answer of one
greedy generate.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sys
from pathlib import Path

from PIL import Image

from streamspatial.models.hf_local import HFLocalBackend
from streamspatial.models.types import (
    GenerationParams,
    ImagePart,
    ModelRequest,
    TextPart,
    VideoPart,
)
from streamspatial.testing.tiny_qwen import build_tiny_qwen_vl

FPS = 10.0
INDICES = (0, 6, 12, 18, 24, 30)


def jpeg(k: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (40 * k % 255, 90, 160)).save(buf, format="JPEG")
    return buf.getvalue()


def request() -> ModelRequest:
    frames = tuple(ImagePart(jpeg(k), time=i / FPS) for k, i in enumerate(INDICES))
    video = VideoPart(frames=frames, indices=INDICES, fps=FPS)
    parts = (TextPart("Video: 6 frames from 0 s to 3 s, one every 0.6 s:"), video,
             TextPart("How many chairs?"))  # fmt: skip
    return ModelRequest(
        parts=parts, query_time=3.0, params=GenerationParams(temperature=0.0, max_tokens=4)
    )


def check(family: str, root: Path) -> dict[str, object]:
    folder = build_tiny_qwen_vl(root / family, family)
    backend = HFLocalBackend(str(folder), device="cpu", batch_size=1)
    prepared = backend.prepare(request())
    ids = prepared.inputs["input_ids"][0].tolist()
    prompt = backend.processor.tokenizer.decode(ids)
    spg = prepared.inputs.get("second_per_grid_ts")
    response = asyncio.run(backend.generate(request()))
    asyncio.run(backend.aclose())
    return {
        "stamps": [float(s) for s in re.findall(r"<([\d.]+) seconds>", prompt)],
        "second_per_grid_ts": [float(x) for x in spg] if spg is not None else None,
        "video_grid_thw": prepared.inputs["video_grid_thw"].tolist(),
        "video_pads": prompt.count("<|video_pad|>"),
        "image_pads": prompt.count("<|image_pad|>"),
        "error": response.error,
        "completion_tokens": response.completion_tokens,
        "prompt_tokens": response.prompt_tokens,
    }


def run(root: Path) -> dict[str, object]:
    """``evaluate`` on a small OVO-S-Bench file with the tiny Qwen2.5-VL as ``hf:`` its folder,
    ``--frames`` left at auto: its config.json says Qwen2.5-VL, so frames go as one video."""
    from runner_fixtures import write_ovos
    from streamspatial.api import evaluate

    data, videos = write_ovos(root / "bench")
    result = evaluate(data, videos, model=f"hf:{root / 'qwen2_5_vl'}", policy="uniform-4",
                      out=root / "run", device="cpu", limit=3, frame_size=64)  # fmt: skip
    meta = json.loads((root / "run" / "run.json").read_text())
    return {"records": len(result.records), "errors": result.counts["errors_total"],
            "inputs": meta["inputs"], "sent": meta["decoding"]["sent"]}  # fmt: skip


def main() -> None:
    root = Path(sys.argv[1])
    out: dict[str, object] = {f: check(f, root) for f in ("qwen2_5_vl", "qwen3_vl")}
    out["run"] = run(root)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
