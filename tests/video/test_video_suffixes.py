"""One list of video file suffixes: a video a benchmark finds is one the web tools serve.

UCS-Bench names its videos by ``video_uid`` without a suffix, so the adapter looks for each
known suffix; the annotation and human-baseline servers list and serve only videos.  Both read
``video.sources.VIDEO_SUFFIXES``: a ``.m4v`` clip used to be served but never found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from streamspatial.bench.ucs.reader import UCSAdapter
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.video.sources import VIDEO_SUFFIXES
from streamspatial.web.media import MediaError, list_videos, resolve_video


def _item(video: str) -> Item:
    return Item(
        benchmark="ucs",
        id="q1",
        video=video,
        question="Where is the fridge relative to you now?",
        answer_type=AnswerType.CHOICE,
        options=(Option(letter="A", text="On your left"), Option(letter="B", text="Behind you")),
        queries=(QueryPoint(index=0, time=8.0, answer="A"),),
        task=TaskLabels(
            category="Position & Orientation", subcategory="Egocentric Direction", task="direction"
        ),
    )


@pytest.mark.parametrize("suffix", [".m4v", ".avi", ".mp4", ".ogv"])
def test_a_video_the_benchmark_finds_is_one_the_web_tools_serve(tmp_path: Path, suffix: str):
    (tmp_path / f"clip{suffix}").write_bytes(b"\x00\x00\x00\x18ftypisom")
    found = UCSAdapter().video_path(_item("clip"), tmp_path)
    assert found == tmp_path / f"clip{suffix}"
    assert resolve_video([tmp_path], found.name) == found
    assert list_videos(tmp_path) == [found.name]


def test_m4v_is_found_by_its_uid(tmp_path: Path):
    """The bug this list fixes: ``clip.m4v`` was served but the adapter fell back to
    ``clip.mp4``, which does not exist."""
    (tmp_path / "clip.m4v").write_bytes(b"")
    assert UCSAdapter().video_path(_item("clip"), tmp_path).suffix == ".m4v"


def test_the_first_suffix_in_the_list_wins_and_non_videos_are_refused(tmp_path: Path):
    for suffix in (".mkv", ".mp4"):
        (tmp_path / f"clip{suffix}").write_bytes(b"")
    (tmp_path / "clip.mp4.meta.json.gz").write_bytes(b"")
    assert VIDEO_SUFFIXES[0] == ".mp4"
    assert UCSAdapter().video_path(_item("clip"), tmp_path) == tmp_path / "clip.mp4"
    with pytest.raises(MediaError):
        resolve_video([tmp_path], "clip.mp4.meta.json.gz")
    assert list_videos(tmp_path) == ["clip.mkv", "clip.mp4"]
