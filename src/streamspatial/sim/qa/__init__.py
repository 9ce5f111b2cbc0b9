"""Step 5 of the pipeline: questions over simulator ground truth, written as benchmark files.

In: an episode's metadata (:class:`~streamspatial.sim.types.EpisodeMeta`: house, per-frame poses
and visibility, the schedule of a dynamic episode).  Out: :class:`~streamspatial.core.schema.Item`
s in S3-Bench, OVO-S, VCBench and UCS styles (:class:`QuestionGenerator`), and the released
files a benchmark adapter reads (:mod:`.export`).

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
