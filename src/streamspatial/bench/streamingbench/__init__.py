"""StreamingBench, in one folder: its four question files read (:mod:`.reader`: real-time,
omni-source, sequential QA and proactive polling, with their prompts), ``count.py`` as
released (:mod:`.official`), both scorers' rules, the official and the paper tables and the
headline (:mod:`.score`), and the ``questions_real.json`` writer of ``sim export --format
streamingbench`` (:mod:`.export`).  :data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import write_streamingbench_json
from .reader import StreamingBenchAdapter
from .score import (
    streamingbench_headline,
    streamingbench_official,
    streamingbench_official_table,
    streamingbench_paper,
    streamingbench_table,
)

BENCHMARK = Benchmark(
    adapter=StreamingBenchAdapter(),
    official=streamingbench_official,
    paper=streamingbench_paper,
    reads_failures=True,  # a failed call reaches count.py as no reply
    table=streamingbench_table,
    official_table=streamingbench_official_table,
    headline=streamingbench_headline,
    export=Export("questions_real.json", write_streamingbench_json),
)

__all__ = ["BENCHMARK"]
