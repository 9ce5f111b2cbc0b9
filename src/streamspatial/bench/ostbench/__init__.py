"""OST-Bench, in one folder: ``OST_bench.json``'s turns read as dialogues asked over the scan's
stills (:mod:`.reader`), its evaluator as released (:mod:`.official`), and both scorers'
rules, ``collect_results``' table and its headline (:mod:`.score`).  :data:`BENCHMARK` is
what the registry lists.
"""

from streamspatial.bench.home import Benchmark

from .reader import OSTBenchAdapter
from .score import ostbench_headline, ostbench_official, ostbench_paper, ostbench_table

BENCHMARK = Benchmark(
    adapter=OSTBenchAdapter(),
    official=ostbench_official,
    paper=ostbench_paper,
    reads_failures=True,  # a failed call is the evaluator's str(None), "None"
    table=ostbench_table,
    headline=ostbench_headline,
)

__all__ = ["BENCHMARK"]
