"""The unified schema every benchmark format is read into, and the project's error types."""

from streamspatial.core.errors import (
    CausalityError,
    EndpointError,
    InputError,
    Problem,
    StreamspatialError,
)
from streamspatial.core.schema import (
    AnswerType,
    Item,
    Option,
    QueryPoint,
    TaskLabels,
)

__all__ = [
    "AnswerType",
    "CausalityError",
    "EndpointError",
    "InputError",
    "Item",
    "Option",
    "Problem",
    "QueryPoint",
    "StreamspatialError",
    "TaskLabels",
]
