"""VSI-Bench, in one folder: its parquet or JSONL release read as items (:mod:`.reader`),
``lmms_eval/tasks/vsibench/utils.py`` as released (:mod:`.official`), and its official rule
with the paper's and the official script's tables (:mod:`.score`).  :data:`BENCHMARK` is
what the registry lists, with the names the harnesses give it (``score --from lmms-eval``,
``--from vlmevalkit``).
"""

from streamspatial.bench.home import Benchmark

from .reader import VSIBenchAdapter
from .score import vsibench_official, vsibench_official_table, vsibench_table

BENCHMARK = Benchmark(
    adapter=VSIBenchAdapter(),
    official=vsibench_official,
    table=vsibench_table,
    official_table=vsibench_official_table,
    lmms_eval_tasks=("vsibench", "vsibench_debiased", "vsibench_pruned"),
    vlmevalkit_datasets=("VSI-Bench", "VSI-Bench-Debiased"),
)

__all__ = ["BENCHMARK"]
