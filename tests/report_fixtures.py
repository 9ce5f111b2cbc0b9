"""Run folders for the report / sweep tests: real runs of the runner on generated benchmarks.

The loopback server answers from the frames it sees and the model name it is asked for, so
different models and policies get different (but deterministic) scores; a thinking request
(``enable_thinking``) gets its answer wrapped in a closed ``<think>`` block.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from streamspatial.api import run
from streamspatial.eval.config import build_config
from streamspatial.testing import FakeOpenAIServer


def model_answerer(req) -> str:
    """A letter from the latest frame seen, shifted per model name and thinking flag."""
    seen = [i for i in req.frame_indices if i is not None]
    body = req.body or {}
    think = bool((body.get("chat_template_kwargs") or {}).get("enable_thinking"))
    shift = zlib.crc32(str(req.model).encode()) + (1 if think else 0)
    letter = "ABCD"[((max(seen) if seen else 0) + shift) % 4]
    return f"<think>looking</think>{letter}" if think else letter


def run_one(data: Path, videos: Path, out: Path, config_file: Path | None = None, **given) -> Path:
    cfg = build_config(
        {"data": data, "videos": videos, "out": out, "progress": False, "concurrency": 4, **given},
        config_file,
    )
    assert run(cfg).exit_status == 0, out
    return out


def ovos_runs(root: Path, data: Path, videos: Path) -> dict[str, Path]:
    """Two models × two policies, a thinking pair, Random and Text-only reference runs."""
    runs: dict[str, Path] = {}
    with FakeOpenAIServer(model_answerer) as server:
        common = {"base_url": server.base_url, "cache_dir": root / "cache"}
        for model in ("m1", "m2"):
            for policy in ("uniform-8", "single@query"):
                name = f"{model}-{policy}"
                runs[name] = run_one(
                    data, videos, root / name, model=f"openai:{model}", policy=policy, **common
                )
        for flag in (True, False):
            cfg = root / f"think-{flag}.yaml"
            cfg.write_text(
                json.dumps({"extra_body": {"chat_template_kwargs": {"enable_thinking": flag}}})
            )
            runs[f"think-{flag}"] = run_one(
                data, videos, root / f"m1-think-{flag}", model="openai:m1",
                policy="uniform-8", config_file=cfg, **common,
            )  # fmt: skip
        runs["text"] = run_one(
            data, videos, root / "text", model="openai:m1", policy="none", **common
        )
    runs["random"] = run_one(data, videos, root / "random", model="random", policy="uniform-8")
    return runs


def write_vcbench(root: Path) -> Path:
    """A VCBench data-layout file on the timestamp videos (folder ``src`` = source dataset)."""
    rows = [
        ("q1", "a.mp4", "E1", "E1-Action", [0.5, 1.5, 2.5, 3.5], [1.0, 2.0, 4.0], [1, 2, 4]),
        ("q2", "b.mp4", "O2", "O2-Unique", [1.0, 2.0, 5.0], [1.5, 3.0, 5.5], [1, 2, 2]),
        ("q3", "c.mp4", "E1", "E1-Transit", [2.0, 4.0], [2.5, 4.5], [1, 2]),
    ]
    path = root / "vcbench_data.jsonl"
    with path.open("w") as fh:
        for iid, video, cat, sub, occ, times, counts in rows:
            fh.write(json.dumps({
                "id": iid, "source_dataset": "src", "video_path": video,
                "question": f"How many events in {iid} so far?", "counting_type": cat,
                "counting_subtype": sub, "occurrence_times": occ,
                "query_points": {"time": times, "count": counts},
            }) + "\n")  # fmt: skip
    return path


def count_answerer(req) -> str:
    """A count that grows with the latest frame seen (one per second at 10 fps)."""
    seen = [i for i in req.frame_indices if i is not None]
    return str((max(seen) if seen else 0) // 10)


def vcbench_run(root: Path, data: Path, videos: Path) -> Path:
    with FakeOpenAIServer(count_answerer) as server:
        return run_one(
            data, videos, root / "vc-m1", model="openai:m1", policy="uniform-8",
            base_url=server.base_url,
        )  # fmt: skip


def without_diagnostics(run: Path, out: Path) -> Path:
    """A copy of ``run`` as a runner from before CR/ER were recorded would have left it."""
    import shutil

    from streamspatial.eval.results import iter_records

    shutil.copytree(run, out)
    lines = []
    for rec in iter_records(run):
        rec.diagnostics = None
        lines.append(rec.to_json())
    (out / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    return out
