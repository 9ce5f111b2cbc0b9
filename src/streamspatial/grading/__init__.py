"""Grading: the scoring machinery every benchmark shares, below the benchmarks themselves.

How a reply becomes an answer and a number, with no benchmark named: reading a letter, a
number or an action out of a response (:mod:`.extract`, :mod:`.numbers`, :mod:`.thinking`),
one verdict's type and a rule's signature (:mod:`.verdict`), the metrics (:mod:`.metrics`:
accuracy, MRA, GPA / MoC / UDA) and the aggregation into results tables (:mod:`.aggregate`,
with the :class:`~.aggregate.Table` type).  It sits below ``bench`` so that a benchmark's own
folder (``bench/<name>/``) can hold its official and paper rules and its tables; ``scoring``,
above ``bench``, picks a benchmark's rule and table from the registry.
"""
