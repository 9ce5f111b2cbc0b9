"""Video: sources, the causal ``PrefixView``, sampling policies and the frame cache.

Nothing outside this package decodes video or touches a source: agents receive frames only
through :class:`PrefixView`, which refuses anything recorded after the query time.
"""

from streamspatial.video.cache import FrameCache, ResizeSpec
from streamspatial.video.frames import Frame, FrameSource
from streamspatial.video.policies import PolicySpec, parse_policy, select_frames
from streamspatial.video.prefix import JpegFrame, PrefixView, query_frame_index
from streamspatial.video.reader import SinglePassReader
from streamspatial.video.sources import (
    FrameFolderSource,
    PyAVSource,
    VideoInfo,
    open_source,
    probe_duration,
)
from streamspatial.video.synthetic import (
    read_frame_index,
    read_frame_index_jpeg,
    read_timestamp,
    write_frame_folder,
    write_timestamp_video,
)

__all__ = [
    "Frame",
    "FrameCache",
    "FrameFolderSource",
    "FrameSource",
    "JpegFrame",
    "PolicySpec",
    "PrefixView",
    "PyAVSource",
    "ResizeSpec",
    "SinglePassReader",
    "VideoInfo",
    "open_source",
    "parse_policy",
    "probe_duration",
    "query_frame_index",
    "read_frame_index",
    "read_frame_index_jpeg",
    "read_timestamp",
    "select_frames",
    "write_frame_folder",
    "write_timestamp_video",
]
