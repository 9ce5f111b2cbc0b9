"""OmniMMI, in one folder: its six task lists read as items (:mod:`.reader`, with the prompts
of its online inference and the judge's messages of ``evaluations/evaluate.py``), and both
scorers' rules, its table and headline (:mod:`.score`).  :data:`BENCHMARK` is what the
registry lists.
"""

from streamspatial.bench.home import Benchmark

from .reader import OmniMMIAdapter
from .score import omnimmi_headline, omnimmi_official, omnimmi_paper, omnimmi_table

BENCHMARK = Benchmark(
    adapter=OmniMMIAdapter(),
    official=omnimmi_official,
    paper=omnimmi_paper,
    reads_failures=True,  # a failed call: PT's official code raises on it, the paper's is wrong
    reads_judge=True,  # AP, SI, MD and SG are scored from the judge's stored reply
    table=omnimmi_table,
    headline=omnimmi_headline,
)

__all__ = ["BENCHMARK"]
