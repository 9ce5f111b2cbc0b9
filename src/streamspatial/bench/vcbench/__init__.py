"""VCBench, in one folder: ``vcbench_eval.jsonl`` and ``vcbench_data.jsonl`` read as counting
questions asked at several query points (:mod:`.reader`), ``unify_results.py``'s answer
reader as released (:mod:`.official`), the official rule, the trajectory tables (GPA / MoC /
UDA) and headline (:mod:`.score`), the ``vcbench_data.jsonl`` writer that ``sim generate``
writes ``vcbench.jsonl`` with (:mod:`.export`), and the items the count overlay draws on
(:mod:`.occurrences`).  :data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import write_vcbench_jsonl
from .reader import VCBenchAdapter
from .score import vcbench_headline, vcbench_official, vcbench_official_table, vcbench_table

BENCHMARK = Benchmark(
    adapter=VCBenchAdapter(),
    official=vcbench_official,
    table=vcbench_table,
    official_table=vcbench_official_table,
    headline=vcbench_headline,
    generated=Export("vcbench.jsonl", write_vcbench_jsonl),
)

__all__ = ["BENCHMARK"]
