"""Format detection, load_benchmark's all-problems error, and the video checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from streamspatial.bench.registry import (
    check_benchmark,
    detect_format,
    get_adapter,
    load_benchmark,
)
from streamspatial.core.errors import InputError, StreamspatialError
from streamspatial.video.synthetic import write_frame_folder, write_timestamp_video

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
EXAMPLE = Path(__file__).parents[2] / "examples" / "ovos_example.jsonl"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("ovos_good.jsonl", "ovos"),
        ("vcbench_eval.jsonl", "vcbench"),
        ("vcbench_data.jsonl", "vcbench"),
        ("ucs_questions.json", "ucs"),
        ("ucs_questions.jsonl", "ucs"),
        ("s3_good.jsonl", "s3"),
        ("ovos_broken.jsonl", "ovos"),  # BOM and all
    ],
)
def test_detect_format(name, fmt):
    assert detect_format(FIXTURES / name) == fmt


def test_unknown_format_and_undetectable_file(tmp_path):
    with pytest.raises(StreamspatialError, match="unknown benchmark format 'ovo'"):
        get_adapter("ovo")
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(InputError, match="could not tell the benchmark format"):
        detect_format(path)
    with pytest.raises(StreamspatialError, match="file not found"):
        detect_format(tmp_path / "missing.jsonl")


def test_bundled_example_is_clean_and_spans_all_levels():
    adapter, items = load_benchmark(EXAMPLE)
    assert adapter.name == "ovos"
    assert len(items) == 10
    assert {i.task.level for i in items} == {"L1", "L2", "L3", "L4"}
    assert any(len(i.queries) > 1 for i in items)
    assert any(o.is_image for i in items for o in i.options)


def test_load_benchmark_raises_with_every_problem():
    with pytest.raises(InputError) as info:
        load_benchmark(FIXTURES / "ovos_broken.jsonl")
    assert len(info.value.problems) == 13
    assert str(info.value).endswith("(and 12 more problem(s))")


def _videos(tmp_path: Path) -> Path:
    videos = tmp_path / "videos"
    (videos / "CODa_full").mkdir(parents=True)
    write_timestamp_video(videos / "CODa_full" / "10.mp4", seconds=6, fps=5, size=(64, 48))
    return videos


def test_video_checks(tmp_path):
    videos = _videos(tmp_path)
    (videos / "CODa_full" / "3.mp4").write_bytes(b"not a video at all")
    path = FIXTURES / "ovos_good.jsonl"
    _, result = check_benchmark(path, videos=videos)
    assert [str(p) for p in result.problems] == [
        f"{path}:1: item 0: field 'query_time': expected a query time within the video (6 s), "
        "got 22.8 s",
        f"{path}:2: item 1: field 'video': {videos / 'CODa_full' / '3.mp4'}: "
        + _probe_reason(videos / "CODa_full" / "3.mp4"),
    ]
    (videos / "CODa_full" / "3.mp4").unlink()
    _, result = check_benchmark(path, videos=videos)
    assert str(result.problems[1]).startswith(
        f"{path}:2: item 1: field 'video': {videos / 'CODa_full' / '3.mp4'}: "
    )
    assert len(result.problems) == 2  # item 2 shares 10.mp4 with item 0 and fits in 6 s


def _probe_reason(path: Path) -> str:
    from streamspatial.video.sources import probe_duration

    with pytest.raises(InputError) as info:
        probe_duration(path)
    return info.value.problems[0].expected


def test_ucs_frame_folder_counts_as_video(tmp_path):
    videos = tmp_path / "videos"
    write_frame_folder(videos / "P01_kitchen", seconds=70, fps=1.0, size=(32, 24))
    _, items = load_benchmark(FIXTURES / "ucs_questions.json", videos=videos)
    assert [i.queries[0].time for i in items] == [8.0, 62.0]
    shutil.rmtree(videos / "P01_kitchen")
    write_frame_folder(videos / "P01_kitchen", seconds=30, fps=1.0, size=(32, 24))
    with pytest.raises(InputError) as info:
        load_benchmark(FIXTURES / "ucs_questions.json", videos=videos)
    assert [p.field for p in info.value.problems] == ["query_time"]
    assert info.value.problems[0].item_id == "P01_kitchen_q2"
    assert info.value.problems[0].location == "line 14"


def test_damaged_files_are_still_recognised(tmp_path):
    jsonl = tmp_path / "s3.jsonl"
    jsonl.write_text("garbage\n\n" + (FIXTURES / "s3_good.jsonl").read_text())
    assert detect_format(jsonl) == "s3"
    array = tmp_path / "ucs.json"
    array.write_text((FIXTURES / "ucs_questions.json").read_text()[:700])  # cut mid-array
    assert detect_format(array) == "ucs"


def test_every_benchmark_declares_its_decoding_with_a_source():
    from streamspatial.bench.base import GenerationSettings
    from streamspatial.bench.registry import ADAPTERS

    for name, adapter in ADAPTERS.items():
        gen = adapter.generation
        assert isinstance(gen, GenerationSettings), name
        assert gen.source.strip(), f"{name}: decoding without a source"
        assert gen.max_tokens is not None and gen.max_tokens >= 1, name
        assert gen.temperature is None or gen.temperature >= 0, name
    # OVO-S-Bench App. G.2, and VSI-SUPER's task yaml
    assert ADAPTERS["ovos"].generation.fields() == {
        "temperature": 0.0,
        "max_tokens": 1024,
        "top_p": None,
    }
    assert ADAPTERS["ovos"].generation.source.startswith("OVO-S-Bench App. G.2")
    assert ADAPTERS["vsisuper"].generation.fields() == {
        "temperature": 0.0,
        "max_tokens": 16,
        "top_p": None,
    }


def test_benchmarks_table_has_a_full_row_for_every_format():
    """docs/benchmarks.md's table: one row per registered format, every column filled
    (protocol, quirks, licence included), and "offline" exactly where the adapter says so."""
    from pathlib import Path

    from streamspatial.bench.registry import ADAPTERS

    doc = Path(__file__).parents[2] / "docs" / "benchmarks.md"
    rows = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `") and line.count("|") >= 10:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = cells
    header = next(ln for ln in doc.read_text().splitlines() if ln.startswith("| `--format` |"))
    assert "protocol" in header and "licence" in header and "quirks" in header
    assert set(ADAPTERS) <= set(rows)
    for name, adapter in ADAPTERS.items():
        cells = rows[name]
        assert len(cells) == 9 and all(cells), (name, cells)
        assert ("offline" in cells[6]) == (adapter.protocol == "offline"), name
