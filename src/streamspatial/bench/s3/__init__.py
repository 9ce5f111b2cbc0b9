"""S3-Bench, in one folder: our JSONL for its 16 task types and 3 multi-turn chains, read as
items (:mod:`.reader`), its table and headline (:mod:`.score`; it publishes no scoring code,
so both scorers use the paper's rules), and the ``s3.jsonl`` writer ``sim generate`` writes
the simulator's S3-Bench items with (:mod:`.export`).  :data:`BENCHMARK` is what the
registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import to_s3_record, write_s3_jsonl
from .reader import CHAINS, PREV_ANSWER, S3Adapter, S3Line
from .score import s3_headline, s3_table

BENCHMARK = Benchmark(
    adapter=S3Adapter(),
    table=s3_table,
    headline=s3_headline,
    generated=Export("s3.jsonl", write_s3_jsonl),
    frame_size=(768, 768),  # its simulated videos (its real ones: 640×480)
)

__all__ = [
    "BENCHMARK",
    "CHAINS",
    "PREV_ANSWER",
    "S3Adapter",
    "S3Line",
    "s3_headline",
    "s3_table",
    "to_s3_record",
    "write_s3_jsonl",
]
