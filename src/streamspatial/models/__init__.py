"""Model backends behind one async interface, the response cache and the baselines.

Heavy backends (``hf_local``) are imported on use, so importing this package stays cheap.
"""

from streamspatial.models.baselines import FrequentBackend, RandomBackend, frequent_task_key
from streamspatial.models.cache import CachedBackend, ResponseCache
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.models.registry import load_backend
from streamspatial.models.types import (
    Backend,
    GenerationParams,
    ImagePart,
    ModelRequest,
    ModelResponse,
    TextPart,
)

__all__ = [
    "Backend",
    "CachedBackend",
    "FrequentBackend",
    "GenerationParams",
    "ImagePart",
    "ModelRequest",
    "ModelResponse",
    "OpenAIChatBackend",
    "RandomBackend",
    "ResponseCache",
    "TextPart",
    "frequent_task_key",
    "load_backend",
]
