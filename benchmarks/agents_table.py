"""What memory buys, on a generated simulator benchmark: frame policies vs scene-graph memory.

Runs every configuration through the public API (``streamspatial.evaluate``: the runner and
the results store the CLI uses) on one ``streamspatial sim generate`` folder and prints
markdown tables: overall, then per task family, each with the score, compression ratio (CR)
and evidence recall (ER) that the runner records for every query (OVO-S-Bench §4.3.3).

Without real model weights a frame policy's *accuracy* says nothing about the policy — the
model here is the leave-one-out ``frequent`` baseline, which ignores the frames — so policy
rows are there for CR / ER only.  Folding runs against a loopback model that answers "A" to
everything (its memory text is empty of content), again for CR / ER only.  The scene-graph rule
agent needs no model: its rows are real accuracies, with perfect and noisy ground-truth
perception.

Run::

    streamspatial sim generate --out /tmp/bench --houses 4 --minutes 2 --size 224x168 --fps 5
    .venv/bin/python benchmarks/agents_table.py /tmp/bench /tmp/bench-runs [--formats s3,ovos]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("MUJOCO_GL", "egl")

# label, options for build_config, what the row measures
CONFIGS: list[tuple[str, dict[str, Any], str]] = [
    ("uniform-32", {"model": "frequent", "policy": "uniform-32"}, "CR/ER only"),
    ("uniform-128", {"model": "frequent", "policy": "uniform-128"}, "CR/ER only"),
    ("log-decay-128", {"model": "frequent", "policy": "log-decay-128"}, "CR/ER only"),
    ("window-64@1fps/60s", {"model": "frequent", "policy": "window-64@1fps/60s"}, "CR/ER only"),
    ("folding K=10", {"model": "openai:loopback", "agent": "folding"}, "CR/ER only"),
    ("rules · perfect", {"agent": "scene-graph-rules", "perception": "ground-truth"}, "accuracy"),
    (
        "rules · noise 1",
        {"agent": "scene-graph-rules", "perception": "ground-truth:noise=1"},
        "accuracy",
    ),
    (
        "rules · noise 2",
        {"agent": "scene-graph-rules", "perception": "ground-truth:noise=2"},
        "accuracy",
    ),
]


def run_all(bench: Path, out: Path, fmt: str, base_url: str) -> dict[str, Path]:
    import streamspatial
    from streamspatial.report import write_report

    dirs = {}
    for label, opts, _ in CONFIGS:
        run_dir = out / f"{fmt}-{label.replace(' ', '').replace('·', '-').replace('/', '_')}"
        extra = {"base_url": base_url} if opts.get("model", "").startswith("openai") else {}
        t0 = time.perf_counter()
        streamspatial.evaluate(
            bench / f"{fmt}.jsonl",
            bench / "videos",
            out=run_dir,
            progress=False,
            concurrency=4,
            cache_dir=out / "cache",
            **opts,
            **extra,
        )
        write_report(run_dir)
        print(f"  {fmt} {label}: {time.perf_counter() - t0:.1f} s", flush=True)
        dirs[label] = run_dir
    return dirs


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    for line in (run_dir / "predictions.jsonl").read_text().splitlines():
        r = json.loads(line)
        d = r.get("diagnostics") or {}
        wrong = r["error"] or not r["valid"] or r["score"] is None
        out.append(
            {
                "task": r["task"]["task"],
                "score": 0.0 if wrong else r["score"],
                "cr": d.get("compression_ratio"),
                "er": d.get("evidence_recall"),
            }
        )
    return out


def _mean(xs: list[float | None]) -> float | None:
    kept = [x for x in xs if x is not None]
    return sum(kept) / len(kept) if kept else None


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def tables(fmt: str, dirs: dict[str, Path]) -> str:
    data = {label: _rows(d) for label, d in dirs.items()}
    lines = [f"### {fmt}: overall", "", "| configuration | measures | n | score | CR | ER |"]
    lines.append("|---|---|---:|---:|---:|---:|")
    for label, _, what in CONFIGS:
        rows = data[label]
        lines.append(
            f"| {label} | {what} | {len(rows)} | {_pct(_mean([r['score'] for r in rows]))} | "
            f"{_pct(_mean([r['cr'] for r in rows]))} | {_pct(_mean([r['er'] for r in rows]))} |"
        )
    tasks = sorted({r["task"] for rows in data.values() for r in rows})
    for key, title in (("score", "score"), ("cr", "CR"), ("er", "ER")):
        lines += ["", f"### {fmt}: {title} per task family (percent)", ""]
        lines.append("| family | n | " + " | ".join(label for label, _, _ in CONFIGS) + " |")
        lines.append("|---|---:|" + "---:|" * len(CONFIGS))
        for task in tasks:
            n = sum(1 for r in data[CONFIGS[0][0]] if r["task"] == task)
            cells = [
                _pct(_mean([r[key] for r in data[label] if r["task"] == task]))
                for label, _, _ in CONFIGS
            ]
            lines.append(f"| {task} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--formats", default="s3,ovos")
    args = ap.parse_args()
    from streamspatial.testing.openai_server import FakeOpenAIServer

    with FakeOpenAIServer("A", decode_frames=False) as server:
        os.environ.setdefault("OPENAI_API_KEY", "loopback")
        for fmt in args.formats.split(","):
            print(f"running {fmt} …", flush=True)
            dirs = run_all(args.bench, args.out, fmt, server.base_url)
            print(tables(fmt, dirs), flush=True)
            print()


if __name__ == "__main__":
    main()
