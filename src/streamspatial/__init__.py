"""streamspatial: streaming spatial intelligence under a strict prefix-only protocol.

A model answering a question at query time ``t_q`` never receives anything recorded after
``t_q``.  The package is laid out in one direction: ``core`` (schema, errors) ← ``bench``
(benchmark formats) / ``video`` (causal frame access) / ``models`` (backends) ← ``agents`` ←
``eval`` (runner, extraction, metrics) ← ``report``.
"""

__version__ = "0.1.0"
