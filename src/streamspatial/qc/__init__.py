"""Quality control of benchmark items (OVO-S-Bench E.5, UCS-Bench F.4–F.5).

* :mod:`.blind` — the text-only probe: a model sees question and options only; what it gets
  right is a leakage candidate.
* :mod:`.options` — option checks a reviewer would do by eye: a correct option longer than the
  rest, lexical overlap between the question and a single option, duplicate options.
* :mod:`.counting` — counting distractors where the true count is second largest or second
  smallest, never the median.
* :mod:`.neighbours` — retrieval of distractors from answers of similar questions (sentence
  embeddings, band-pass filter, maximal marginal relevance); needs the ``[nlp]`` extra.
"""

from __future__ import annotations

from .counting import check_count_options, counting_distractors
from .options import OptionFinding, check_options

__all__ = ["OptionFinding", "check_count_options", "check_options", "counting_distractors"]
