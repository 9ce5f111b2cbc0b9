"""Test utilities shipped with the package, so benchmarks and users can use them too."""

from streamspatial.testing.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    answer_fixed,
    answer_latest_frame,
)

__all__ = ["FakeOpenAIServer", "RecordedRequest", "answer_fixed", "answer_latest_frame"]
