"""Question generators over simulator ground truth: S3-Bench, OVO-S, VCBench and UCS styles.

Every answer is computed from a causal :class:`Prefix` of the episode (frames up to the query
time only); every item carries a structured ``intent`` (task, referenced instance ids,
parameters) next to its natural-language question.  ``docs/simulator.md`` lists the families.
"""

from .build import IDENTITY_KEY, QuestionGenerator
from .draft import Draft, DraftQuery, LetterDealer, to_item
from .prefix import Prefix, min_pixels_for, query_time
from .registry import FAMILIES, Episode, Family

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
    "min_pixels_for",
    "query_time",
    "to_item",
]
