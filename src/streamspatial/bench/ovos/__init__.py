"""OVO-S-Bench, in one folder: the release (parquet, its JSON form) and E.6 JSONL read as items
(:mod:`.reader`), ``score.py``'s answer reader as released (:mod:`.official`), the official
rule, the paper's Table 2 and the official averaging, and the headline (:mod:`.score`), and
the E.6 JSONL writer ``sim generate`` writes ``ovos.jsonl`` with (:mod:`.export`).
:data:`BENCHMARK` is what the registry lists.
"""

from streamspatial.bench.home import Benchmark, Export

from .export import to_ovos_record, write_ovos_jsonl
from .reader import COLUMNS, OFFICIAL_SCORER, OvosAdapter
from .score import ovos_headline, ovos_official, ovos_official_table, ovos_table

BENCHMARK = Benchmark(
    adapter=OvosAdapter(),
    official=ovos_official,
    table=ovos_table,
    official_table=ovos_official_table,
    headline=ovos_headline,
    generated=Export("ovos.jsonl", write_ovos_jsonl),
)

__all__ = [
    "BENCHMARK",
    "COLUMNS",
    "OFFICIAL_SCORER",
    "OvosAdapter",
    "ovos_headline",
    "ovos_official",
    "ovos_official_table",
    "ovos_table",
    "to_ovos_record",
    "write_ovos_jsonl",
]
