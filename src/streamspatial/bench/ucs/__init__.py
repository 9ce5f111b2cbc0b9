"""UCS-Bench, in one folder: its three released shapes (JSON-array multiple choice, the demo
files' open-ended directions, JSONL multiple choice) read as timed questions (:mod:`.reader`),
the answer readers of its two evaluation scripts as released (:mod:`.official`), the official
rule, its table and headline (:mod:`.score`), and the JSON-array writer ``sim generate``
writes ``ucs.json`` with (:mod:`.export`).  :data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import write_ucs_json
from .reader import UCSAdapter
from .score import ucs_headline, ucs_official, ucs_official_table, ucs_table

BENCHMARK = Benchmark(
    adapter=UCSAdapter(),
    official=ucs_official,
    table=ucs_table,
    official_table=ucs_official_table,
    headline=ucs_headline,
    generated=Export("ucs.json", write_ucs_json),
)

__all__ = ["BENCHMARK"]
