"""VSI-SUPER, in one folder: its recall and count lists read as items (:mod:`.reader`), the
Cambrian-S lmms-eval tasks' scoring as released (:mod:`.official`; recall reads answers with
VSI-Bench's reader), both scorers' rules, its table and headline (:mod:`.score`).
:data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark

from .reader import VSISuperAdapter
from .score import vsisuper_headline, vsisuper_official, vsisuper_paper, vsisuper_table

BENCHMARK = Benchmark(
    adapter=VSISuperAdapter(),
    official=vsisuper_official,
    paper=vsisuper_paper,
    reads_failures=True,  # its rules read a failed call (None) themselves
    table=vsisuper_table,
    headline=vsisuper_headline,
)

__all__ = ["BENCHMARK"]
