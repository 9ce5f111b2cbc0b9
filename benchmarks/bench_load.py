"""How long loading and validating a full-size benchmark file takes.

Generates an OVO-S-Bench JSONL of the released size (1,680 items) and a VCBench
``vcbench_eval.jsonl`` of its size (1,000 questions, ~4,600 query-point lines), then prints the
adapter's load time against the floor of merely parsing every line with ``json.loads``, and
their ratio (goal in docs/performance.md).  Run: ``python benchmarks/bench_load.py``.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from streamspatial.bench.ovos import OvosAdapter
from streamspatial.bench.vcbench.reader import VCBenchAdapter

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report


def ovos_lines(n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        k = 3 if i % 10 == 0 else 1
        times = sorted(rng.uniform(10, 600) for _ in range(k))
        out.append(
            json.dumps(
                {
                    "id": i,
                    "category_index": f"2.1.2_{i}",
                    "source_dataset": "CODa_full",
                    "video_id": str(i % 200),
                    "video_path": f"CODa_full/{i % 200}.mp4",
                    "level": 1 + i % 4,
                    "task_main_category": "2.1",
                    "task_subcategory": "2.1.2",
                    "task_type_name": "Revisit Counting",
                    "question": "How many times so far?" * 3,
                    "options": {c: f"option {c} text" for c in "ABCDEFG"[: 4 + i % 4]},
                    "query_times": times,
                    "evidence_times": [[t - 5, t - 1] for t in times],
                    "answers": ["A"] * k,
                }
            )
        )
    return out


def vcbench_lines(n: int, rng: random.Random) -> list[str]:
    out, q = [], 0
    for i in range(n):
        for j in range(rng.randint(3, 6)):
            out.append(
                json.dumps(
                    {
                        "q_id": f"{q:05d}",
                        "query_index": j,
                        "id": f"{i:04d}",
                        "source_dataset": "RoomTour3D",
                        "video_path": f"{i % 400}.mp4",
                        "question": "How many times has the protagonist passed a door so far?",
                        "counting_type": "E1",
                        "counting_subtype": "E1-Action",
                        "query_time": 10.0 * (j + 1),
                        "count": j,
                    }
                )
            )
            q += 1
    return out


def measure(name: str, adapter, lines: list[str], folder: Path, repeat: int = 3) -> float:
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    best_parse = best_load = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for line in path.read_text().splitlines():
            json.loads(line)
        best_parse = min(best_parse, time.perf_counter() - t0)
        t0 = time.perf_counter()
        result = adapter.load(path)
        best_load = min(best_load, time.perf_counter() - t0)
    assert not result.problems, result.problems[:3]
    n_q = sum(len(i.queries) for i in result.items)
    print(f"{name}: {len(result.items)} items, {n_q} query points, {len(lines)} lines")
    print(f"  json.loads only : {best_parse * 1000:8.1f} ms")
    print(
        f"  adapter.load    : {best_load * 1000:8.1f} ms "
        f"({best_load / len(result.items) * 1e6:.0f} µs/item)"
    )
    print(f"  ratio           : {best_load / best_parse:8.1f}× the parse floor")
    return best_load / best_parse


def main() -> None:
    report = Report("bench_load", quick="--quick" in sys.argv)
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as d:
        ovos = measure("ovos", OvosAdapter(), ovos_lines(1680, rng), Path(d))
        vc = measure("vcbench_eval", VCBenchAdapter(), vcbench_lines(1000, rng), Path(d))
    # Parsing every line is a floor no loader can beat; validation and building the items
    # on top of it should cost a bounded multiple.  The worse of the two formats counts.
    report.figure("bench_load", [max(ovos, vc)], f"OVO-S-Bench {ovos:.1f}×, VCBench {vc:.1f}×")
    report.finish()


if __name__ == "__main__":
    main()
