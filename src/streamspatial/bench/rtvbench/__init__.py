"""RTV-Bench, in one folder: its ``QA.json`` reader (:mod:`.reader`), its official and paper
rules, accuracy table, group score and headline (:mod:`.score`), and the ``QA.json`` writer
of ``sim export --format rtvbench`` (:mod:`.export`).  :data:`BENCHMARK` is what the
registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import write_rtvbench_json
from .reader import RTVBenchAdapter
from .score import rtvbench_headline, rtvbench_official, rtvbench_paper, rtvbench_table

BENCHMARK = Benchmark(
    adapter=RTVBenchAdapter(),
    official=rtvbench_official,
    paper=rtvbench_paper,
    reads_failures=True,  # a failed call is infer_model_rtv.py's "ERROR": wrong
    table=rtvbench_table,
    headline=rtvbench_headline,
    export=Export("QA.json", write_rtvbench_json),
)

__all__ = ["BENCHMARK"]
