"""Sources: metadata, index↔time, one forward pass, content ids, and one-line input errors."""

from __future__ import annotations

import os
import wave
from fractions import Fraction

import av
import pytest

from streamspatial.core.errors import InputError
from streamspatial.video.sources import (
    FrameFolderSource,
    PyAVSource,
    open_source,
    probe_duration,
    probe_video,
)
from streamspatial.video.synthetic import (
    draw_frame,
    read_frame_index,
    write_frame_folder,
    write_timestamp_video,
)


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("src") / "v.mp4"
    return write_timestamp_video(path, seconds=4, fps=25, size=(160, 120), gop=30)


def test_probe_reads_metadata(video) -> None:
    info = probe_video(video)
    assert (info.fps, info.n_frames, info.width, info.height) == (25.0, 100, 160, 120)
    assert info.duration == pytest.approx(4.0)
    assert probe_duration(video) == pytest.approx(4.0)


def test_read_converts_only_requested_frames_and_stops_early(video) -> None:
    source = PyAVSource(video)
    wanted = [0, 1, 7, 30, 31, 64]
    frames = list(source.read(wanted))
    assert [f.index for f in frames] == wanted
    assert [read_frame_index(f.image) for f in frames] == wanted
    assert [f.time for f in frames] == [i / 25 for i in wanted]
    assert source.decoded_frames == 65  # frames 0..64, nothing after the last wanted one
    assert source.opens == 1


def test_read_rejects_unsorted_or_out_of_range(video) -> None:
    source = PyAVSource(video)
    with pytest.raises(ValueError):
        list(source.read([3, 2]))
    with pytest.raises(IndexError):
        list(source.read([100]))


def test_irregular_timestamps_map_each_index_to_the_frame_on_screen(tmp_path) -> None:
    # Frames exist only at these ticks of 1/30 s; index i must show the latest one at or before
    # its nominal time i / fps, never a later one.
    kept = [0, 1, 2, 5, 6, 7, 12, 13, 20, 21, 22, 23, 29]
    path = tmp_path / "vfr.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("h264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 160, 120, "yuv420p"
        stream.codec_context.time_base = Fraction(1, 30)
        for k in kept:
            frame = av.VideoFrame.from_ndarray(draw_frame(k, (160, 120)), format="rgb24")
            frame.pts, frame.time_base = k, Fraction(1, 30)
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    source = PyAVSource(path)
    indices = list(range(source.n_frames))
    shown = [read_frame_index(f.image) for f in source.read(indices)]
    for i, k in zip(indices, shown, strict=True):
        t = i / source.fps
        assert k == max(x for x in kept if x / 30 <= t + 1e-6), (i, t, k)


def test_content_id_is_file_sha1_and_memoised(video, tmp_path) -> None:
    import hashlib

    source = PyAVSource(video)
    assert source.content_id() == hashlib.sha1(video.read_bytes()).hexdigest()
    copy = tmp_path / "copy.mp4"
    copy.write_bytes(video.read_bytes())
    assert PyAVSource(copy).content_id() == source.content_id()
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    os.utime(copy, ns=(1, 1))  # new mtime: the memo must not serve the old id
    assert PyAVSource(copy).content_id() != source.content_id()


def test_frame_folder(tmp_path) -> None:
    folder = write_frame_folder(tmp_path / "f", 6, size=(64, 48), start=0, digits=4)
    (folder / "notes.txt").write_text("not a frame")
    (folder / "._0001.jpg").write_bytes(b"macOS resource fork")
    source = open_source(folder)
    assert isinstance(source, FrameFolderSource)
    assert (source.fps, source.n_frames, source.duration) == (1.0, 6, 6.0)
    frames = list(source.read([0, 3, 5]))
    assert [read_frame_index(f.image) for f in frames] == [0, 3, 5]
    assert [f.time for f in frames] == [0.0, 3.0, 5.0]
    assert probe_duration(folder, fps=2.0) == 3.0


def test_frame_folder_orders_numerically_not_lexically(tmp_path) -> None:
    folder = write_frame_folder(tmp_path / "f", 12, size=(64, 48), digits=1)  # 1.jpg … 12.jpg
    source = FrameFolderSource(folder)
    assert [p.name for p in source.files][:3] == ["1.jpg", "2.jpg", "3.jpg"]
    assert [read_frame_index(f.image) for f in source.read(range(12))] == list(range(12))


def test_frame_folder_content_id_changes_with_any_frame(tmp_path) -> None:
    a = write_frame_folder(tmp_path / "a", 3, size=(64, 48))
    b = write_frame_folder(tmp_path / "b", 3, size=(64, 48))
    assert FrameFolderSource(a).content_id() == FrameFolderSource(b).content_id()
    (b / "000002.jpg").write_bytes((b / "000001.jpg").read_bytes())
    assert FrameFolderSource(a).content_id() != FrameFolderSource(b).content_id()


def _one_line(exc: pytest.ExceptionInfo, *fragments: str) -> None:
    message = str(exc.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_bad_video_files_raise_one_line_input_errors(video, tmp_path) -> None:
    cases = {}
    cases["missing"] = (tmp_path / "nope.mp4", "not found")
    empty = tmp_path / "empty.mp4"
    empty.touch()
    cases["empty"] = (empty, "empty file")
    truncated = tmp_path / "truncated.mp4"
    truncated.write_bytes(video.read_bytes()[: video.stat().st_size // 2])
    cases["truncated"] = (truncated, "not a readable video")
    text = tmp_path / "notes.mp4"
    text.write_text("hello, this is not a video\n" * 50)
    cases["text"] = (text, "not a readable video")
    audio = tmp_path / "tone.wav"
    with wave.open(str(audio), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x10" * 8000)
    cases["audio"] = (audio, "no video stream (found audio")
    for name, (path, fragment) in cases.items():
        for call in (probe_duration, open_source, probe_video):
            with pytest.raises(InputError) as info:
                call(path)
            _one_line(info, str(path), fragment)
        assert name


def test_bad_frame_folders(tmp_path) -> None:
    gap = write_frame_folder(tmp_path / "gap", 8, size=(64, 48))
    (gap / "000004.jpg").unlink()
    (gap / "000006.jpg").unlink()
    with pytest.raises(InputError) as info:
        open_source(gap)
    _one_line(info, str(gap), "gap in frame numbering", "numbers 4, 6")

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError) as info:
        open_source(empty)
    _one_line(info, "no frame images")

    dup = write_frame_folder(tmp_path / "dup", 3, size=(64, 48))
    (dup / "2.jpg").write_bytes((dup / "000002.jpg").read_bytes())
    with pytest.raises(InputError) as info:
        open_source(dup)
    _one_line(info, "appears twice")

    unnumbered = write_frame_folder(tmp_path / "unnumbered", 2, size=(64, 48))
    (unnumbered / "cover.jpg").write_bytes((unnumbered / "000001.jpg").read_bytes())
    with pytest.raises(InputError) as info:
        open_source(unnumbered)
    _one_line(info, "cover.jpg", "no frame number")


def test_open_source_checks_a_given_fps(video) -> None:
    assert open_source(video, fps=25).fps == 25.0
    with pytest.raises(InputError) as info:
        open_source(video, fps=30)
    _one_line(info, "frame rate is 25")


def test_truncated_faststart_video_fails_while_reading(tmp_path) -> None:
    # With the index at the front the container still opens; the missing tail shows up when the
    # stream ends long before its metadata says it should.
    full = tmp_path / "fs.mp4"
    with av.open(str(full), "w", options={"movflags": "faststart"}) as out:
        stream = out.add_stream("h264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 160, 120, "yuv420p"
        for k in range(150):
            frame = av.VideoFrame.from_ndarray(draw_frame(k, (160, 120)), format="rgb24")
            frame.pts, frame.time_base = k, Fraction(1, 30)
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    source = PyAVSource(cut)
    assert source.n_frames == 150
    with pytest.raises(InputError) as info:
        list(source.read([10, 149]))
    _one_line(info, str(cut), "truncated")
