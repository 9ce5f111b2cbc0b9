"""Benchmark adapters: read released files into Items, validate them, prompt, score.

Formats: ``ovos`` (OVO-S-Bench), ``vcbench`` (VCBench), ``ucs`` (UCS-Bench), ``s3`` (our
S3-Bench JSONL), ``vsibench`` (VSI-Bench), ``ovobench`` (OVO-Bench), ``streamingbench``
(StreamingBench), ``ostbench`` (OST-Bench) and ``vsisuper`` (VSI-SUPER).  Start with
:func:`load_benchmark`.
"""

from streamspatial.bench.base import BenchmarkAdapter, LoadResult, ScoringSpec
from streamspatial.bench.ostbench.reader import OSTBenchAdapter
from streamspatial.bench.ovobench.export import write_ovobench_json
from streamspatial.bench.ovobench.reader import OVOBenchAdapter
from streamspatial.bench.ovos import OvosAdapter, write_ovos_jsonl
from streamspatial.bench.prompts import frame_caption
from streamspatial.bench.registry import (
    ADAPTERS,
    FORMATS,
    check_benchmark,
    detect_format,
    get_adapter,
    load_benchmark,
)
from streamspatial.bench.s3 import S3Adapter, S3Line, write_s3_jsonl
from streamspatial.bench.streamingbench.export import write_streamingbench_json
from streamspatial.bench.streamingbench.reader import StreamingBenchAdapter
from streamspatial.bench.ucs.reader import UCSAdapter
from streamspatial.bench.vcbench.export import write_vcbench_jsonl
from streamspatial.bench.vcbench.reader import VCBenchAdapter
from streamspatial.bench.vsibench.reader import VSIBenchAdapter
from streamspatial.bench.vsisuper.reader import VSISuperAdapter

__all__ = [
    "ADAPTERS",
    "FORMATS",
    "BenchmarkAdapter",
    "LoadResult",
    "OSTBenchAdapter",
    "OVOBenchAdapter",
    "OvosAdapter",
    "S3Adapter",
    "S3Line",
    "ScoringSpec",
    "StreamingBenchAdapter",
    "UCSAdapter",
    "VCBenchAdapter",
    "VSIBenchAdapter",
    "VSISuperAdapter",
    "check_benchmark",
    "detect_format",
    "frame_caption",
    "get_adapter",
    "load_benchmark",
    "write_ovobench_json",
    "write_ovos_jsonl",
    "write_s3_jsonl",
    "write_streamingbench_json",
    "write_vcbench_jsonl",
]
