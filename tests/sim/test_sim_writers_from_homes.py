"""The simulator's benchmark files come from the benchmarks' homes: which file each format gets
and its writer (``Benchmark.generated``), the order ``sim generate`` writes and lists them in,
which formats a question family may name, and the ``--size`` presets a home adds
(``Benchmark.frame_size``)."""

from __future__ import annotations

import pytest

from streamspatial.bench.registry import HOMES
from streamspatial.cli.sim import SIZE_PRESETS, parse_size
from streamspatial.core.schema import TaskLabels
from streamspatial.sim.qa import FAMILIES
from streamspatial.sim.qa.export import FILES, WRITERS
from streamspatial.sim.qa.registry import family


def test_each_written_format_is_a_home_that_declares_its_file() -> None:
    declared = {name: b.generated for name, b in HOMES.items() if b.generated is not None}
    assert declared == WRITERS
    assert {name: e.file for name, e in declared.items()} == FILES
    # the order sim generate and demo list the files in (the registry's)
    assert list(FILES.items()) == [
        ("s3", "s3.jsonl"),
        ("ovos", "ovos.jsonl"),
        ("vcbench", "vcbench.jsonl"),
        ("ucs", "ucs.json"),
    ]


def test_every_family_asks_in_a_format_the_simulator_writes() -> None:
    assert {f.format for f in FAMILIES.values()} <= set(WRITERS)


def test_a_family_in_a_format_no_home_writes_is_refused() -> None:
    with pytest.raises(ValueError, match="not one the simulator writes"):
        family("test.nowhere", "nowhere", TaskLabels(task="x"), "choice")(lambda e, k, r: [])
    assert "test.nowhere" not in FAMILIES


def test_a_home_frame_size_is_a_size_preset_under_its_name() -> None:
    sized = {name: b.frame_size for name, b in HOMES.items() if b.frame_size is not None}
    assert sized == {"s3": (768, 768)}
    assert list(SIZE_PRESETS) == ["qvga", "vga", "s3", "768", "720p"]
    assert parse_size("S3") == (768, 768)
