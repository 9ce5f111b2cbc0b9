"""Single-pass reader: one decode in time order, stops at the query, a cached re-run decodes
nothing and never opens the container."""

from __future__ import annotations

import av
import pytest

from streamspatial.video import (
    FrameCache,
    ResizeSpec,
    SinglePassReader,
    open_source,
    query_frame_index,
    read_frame_index_jpeg,
    select_frames,
    write_frame_folder,
    write_timestamp_video,
)

QUERIES = [1.0, 3.2, 3.25, 6.0, 9.5]
SPEC = ResizeSpec(64)


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("reader") / "v.mp4"
    return write_timestamp_video(path, seconds=10, fps=30, size=(160, 120), gop=100)


def _plan(source, policy="uniform-12"):
    per_query = {
        t: select_frames(policy, query_frame_index(t, source.fps, source.n_frames), source.fps)
        for t in QUERIES
    }
    needed = sorted({i for frames in per_query.values() for i in frames})
    return per_query, needed


def test_one_pass_serves_every_query_and_stops_at_each(video, tmp_path) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    per_query, needed = _plan(source)
    with SinglePassReader(source, cache, SPEC, needed) as reader:
        for t in QUERIES:
            view = reader.view(t)
            # Streaming: nothing after the query frame has been decoded yet.
            assert source.decoded_frames == view.n_q + 1
            frames = view.get(per_query[t])
            assert [read_frame_index_jpeg(f.jpeg) for f in frames] == per_query[t]
            assert all(f.time <= t for f in frames)
    assert source.opens == 1
    assert source.decoded_frames == query_frame_index(QUERIES[-1], 30, 300) + 1
    assert reader.stored == len(needed) and reader.extra_passes == 0
    frames = cache.frames(source.content_id(), SPEC)
    for i in needed:  # each cached frame shows the index it is stored under
        assert read_frame_index_jpeg(frames.get(i / 30)) == i
    # packed: one pack file for the whole video, not one file per frame
    assert len(list((tmp_path / "cache" / "packs").rglob("*.pack"))) == 1


def test_second_run_reads_the_cache_and_never_opens_the_video(video, tmp_path, monkeypatch) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    per_query, needed = _plan(source)
    SinglePassReader(source, cache, SPEC, needed).finish()
    first = {t: [f.jpeg for f in SinglePassReader(source, cache, SPEC, needed).view(t).get(
        per_query[t])] for t in QUERIES}  # fmt: skip

    def no_open(*args, **kwargs):
        raise AssertionError("the container was opened")

    monkeypatch.setattr(av, "open", no_open)
    again = open_source(video, cache=cache)
    reader = SinglePassReader(again, cache, SPEC, needed)
    assert reader.pending == 0
    for t in QUERIES:
        assert [f.jpeg for f in reader.view(t).get(per_query[t])] == first[t]  # bit-for-bit
    assert again.decoded_frames == 0 and again.opens == 0 and reader.stored == 0


def test_other_resize_spec_is_a_cache_miss(video, tmp_path) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    _, needed = _plan(source)
    SinglePassReader(source, cache, SPEC, needed).finish()
    reader = SinglePassReader(source, cache, ResizeSpec(96), needed)
    assert reader.pending == len(needed)


def test_partly_cached_run_decodes_only_up_to_the_last_missing_frame(video, tmp_path) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    SinglePassReader(source, cache, SPEC, [0, 30, 60]).finish()
    source.decoded_frames = 0
    reader = SinglePassReader(source, cache, SPEC, [0, 30, 60, 90, 120])
    assert reader.pending == 2
    reader.finish()
    assert source.decoded_frames == 121 and reader.stored == 2


def test_unplanned_frame_costs_one_counted_extra_pass(video, tmp_path) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    reader = SinglePassReader(source, cache, SPEC, [10, 50])
    view = reader.view(3.0)
    frames = view.get([10, 17, 50])
    assert [read_frame_index_jpeg(f.jpeg) for f in frames] == [10, 17, 50]
    assert reader.extra_passes == 1


def test_frame_folder_through_the_reader(tmp_path) -> None:
    folder = write_frame_folder(tmp_path / "frames", 20, size=(96, 72))
    cache = FrameCache(tmp_path / "cache")
    source = open_source(folder)
    reader = SinglePassReader(source, cache, SPEC, select_frames("window-4@1fps/10s", 12, 1.0))
    view = reader.view(12.4)
    assert view.n_q == 12
    got = view.get(view.select("window-4@1fps/10s"))
    assert [read_frame_index_jpeg(f.jpeg) for f in got] == [9, 10, 11, 12]
    assert source.decoded_frames == 4


def test_needed_frames_outside_the_video_are_refused(video, tmp_path) -> None:
    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    with pytest.raises(IndexError):
        SinglePassReader(source, cache, SPEC, [0, 300])


def test_reader_view_refuses_later_frames_without_decoding_them(video, tmp_path) -> None:
    from streamspatial.core.errors import CausalityError

    cache = FrameCache(tmp_path / "cache")
    source = open_source(video, cache=cache)
    reader = SinglePassReader(source, cache, SPEC, [0, 30, 31, 200])
    view = reader.view(1.0)
    assert view.n_q == 30 and source.decoded_frames == 31
    for bad in ([31], [0, 31], [200]):
        with pytest.raises(CausalityError):
            view.get(bad)
        with pytest.raises(CausalityError):
            view.arrays(bad)
    assert source.decoded_frames == 31 and reader.stored == 2
