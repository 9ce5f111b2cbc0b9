"""OVO-Bench, in one folder: ``ovo_bench_new.json`` read as backward, real-time and forward
items (:mod:`.reader`, with the prompts of its inference code), ``OVOBenchScore.py`` as
released (:mod:`.official`), both scorers' rules, its table and headline (:mod:`.score`),
and the writer of ``sim export --format ovobench`` (:mod:`.export`).  :data:`BENCHMARK` is
what the registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import write_ovobench_json
from .reader import OVOBenchAdapter
from .score import ovobench_headline, ovobench_official, ovobench_paper, ovobench_table

BENCHMARK = Benchmark(
    adapter=OVOBenchAdapter(),
    official=ovobench_official,
    paper=ovobench_paper,
    reads_failures=True,  # a failed call is no reply, which OVOBenchScore.py scores wrong
    table=ovobench_table,
    headline=ovobench_headline,
    export=Export("ovo_bench_new.json", write_ovobench_json),
)

__all__ = ["BENCHMARK"]
