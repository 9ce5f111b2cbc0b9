"""Throughput of answer extraction and table aggregation, against trivial baselines.

Why: extraction runs once per query point and re-runs on every ``rescore``; it must stay far
below model latency.  Baselines measured in the same run: one ``re.search`` for a letter (the
cheapest possible extractor) and a plain Python mean over the same records.

    .venv/bin/python benchmarks/eval_extraction.py [N]
"""

from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

from streamspatial.scoring import (
    ScoredQuery,
    extract_choice,
    extract_number,
    ovos_table,
    vcbench_table,
)

sys.path.insert(0, str(Path(__file__).parent))
from _common import Report

STYLES = [
    "Answer: {L}",
    "<think>{pad}</think>\nThe final answer is {L}.",
    "{pad} Therefore {L}",
    "{L}. {pad}",
    "<answer>{L}</answer>",
    "{pad} I would pick option: {L} {pad}{pad}",
    "{pad} ({L}) {pad}{pad}",
    "I cannot tell. {pad}",
]


def responses(n: int, rng: random.Random) -> list[str]:
    pad = "the sofa was left of the door when the camera turned, " * 4
    return [rng.choice(STYLES).format(L=rng.choice("ABCDEFG"), pad=pad) for _ in range(n)]


def rate(fn, items) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for x in items:
        fn(x)
    return len(items) / (time.perf_counter() - start)


def main(n: int = 20_000) -> None:
    rng = random.Random(0)
    texts = responses(n, rng)
    naive = re.compile(r"\b([A-G])\b")
    base = rate(naive.search, texts)
    cascade = rate(extract_choice, texts)
    numbers = rate(extract_number, [t.replace("A", "three hundred and five") for t in texts])
    print(f"responses: {n}")
    print(f"baseline single re.search     {base:12,.0f} /s")
    print(f"extract_choice (7 steps)      {cascade:12,.0f} /s   {base / cascade:5.1f}x slower")
    print(f"extract_number                {numbers:12,.0f} /s   {base / numbers:5.1f}x slower")
    report = Report("eval_extraction", quick=n < 20_000)
    report.figure(
        "extraction",
        [max(base / cascade, base / numbers)],
        f"extract_choice {base / cascade:.1f}×, extract_number {base / numbers:.1f}× one re.search",
    )

    records = [
        ScoredQuery(item_id=str(i // 4), query_index=i % 4, task="t", level=f"L{i % 4 + 1}",
                    category=f"{i % 4 + 1}.{i % 3 + 1}", subcategory="O2-Unique",
                    answer_type="number", score=float(i % 2), prediction=float(i % 7),
                    answer=float(i % 5))
        for i in range(n * 5)
    ]  # fmt: skip
    start = time.perf_counter()
    plain = sum(r.score for r in records) / len(records)  # type: ignore[misc]
    t_plain = time.perf_counter() - start
    start = time.perf_counter()
    ovos_table(records)
    t_ovos = time.perf_counter() - start
    start = time.perf_counter()
    vcbench_table(records)
    t_vc = time.perf_counter() - start
    print(f"records: {len(records)} (plain mean {plain:.3f} in {t_plain * 1e3:.1f} ms)")
    print(f"ovos_table     {t_ovos * 1e3:8.1f} ms   {t_ovos / t_plain:6.1f}x plain mean")
    print(f"vcbench_table  {t_vc * 1e3:8.1f} ms   {t_vc / t_plain:6.1f}x plain mean")
    report.finish()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    main(int(args[0]) if args else (5_000 if "--quick" in sys.argv else 20_000))
