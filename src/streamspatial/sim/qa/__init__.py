"""Step 5 of the pipeline: questions over simulator ground truth, written as benchmark files.

In: an episode's metadata (:class:`~streamspatial.scene.types.EpisodeMeta`: house, per-frame poses
and visibility, the schedule of a dynamic episode).  Out: :class:`~streamspatial.core.schema.Item`
s in S3-Bench, OVO-S, VCBench and UCS styles (:class:`QuestionGenerator`), and the released
files a benchmark adapter reads (:mod:`.export`).

Every answer is computed from a causal :class:`Prefix` of the episode (frames up to the query
time only); every item carries a structured ``intent`` (task, referenced instance ids,
parameters) next to its natural-language question.  ``docs/simulator.md`` lists the families.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .build import IDENTITY_KEY, QuestionGenerator
    from .draft import Draft, DraftQuery, LetterDealer, to_item
    from .prefix import Prefix, query_time
    from .registry import FAMILIES, Episode, Family

# The names below, imported on first use: a module of this package (``.export``, ``.prefix``)
# imports without the forty others, and the first name asked for loads ``.build``, which
# registers every family (so :data:`FAMILIES` is never seen half full).
_HOME = {
    "FAMILIES": "registry",
    "IDENTITY_KEY": "build",
    "Draft": "draft",
    "DraftQuery": "draft",
    "Episode": "registry",
    "Family": "registry",
    "LetterDealer": "draft",
    "Prefix": "prefix",
    "QuestionGenerator": "build",
    "query_time": "prefix",
    "to_item": "draft",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    importlib.import_module(".build", __name__)
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)


__all__ = [
    "FAMILIES",
    "IDENTITY_KEY",
    "Draft",
    "DraftQuery",
    "Episode",
    "Family",
    "LetterDealer",
    "Prefix",
    "QuestionGenerator",
    "query_time",
    "to_item",
]
