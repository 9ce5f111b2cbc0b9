"""Test utilities shipped with the package, so benchmarks and users can use them too.

``build_tiny_vlm`` imports torch and transformers (the ``hf`` extra) only when called, so
this package stays importable with the core install alone; ``write_hub_cache`` lays a model
folder out as a Hugging Face cache holds a download, for offline tests of Hub ids.
"""

from streamspatial.testing.hf_cache import write_hub_cache
from streamspatial.testing.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    answer_fixed,
    answer_latest_frame,
)
from streamspatial.testing.tiny_vlm import build_tiny_vlm

__all__ = [
    "FakeOpenAIServer",
    "RecordedRequest",
    "answer_fixed",
    "answer_latest_frame",
    "build_tiny_vlm",
    "write_hub_cache",
]
