"""MMSI-Video-Bench, in one folder: its ``mmsivideo.json`` reader, the stream it makes of
clips and reference images and its Uniform-50 sampling (:mod:`.reader`), and
``evaluation.py``'s answer reader, the paper rule, the printer's table and its headline
(:mod:`.score`).  :data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark

from .reader import MMSIVideoAdapter
from .score import mmsivideo_headline, mmsivideo_official, mmsivideo_paper, mmsivideo_table

BENCHMARK = Benchmark(
    adapter=MMSIVideoAdapter(),
    official=mmsivideo_official,
    paper=mmsivideo_paper,
    reads_failures=True,  # a failed call is no answer evaluation.py can read: wrong
    table=mmsivideo_table,
    headline=mmsivideo_headline,
)

__all__ = ["BENCHMARK"]
