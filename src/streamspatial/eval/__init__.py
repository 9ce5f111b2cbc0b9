"""Evaluation: plan a benchmark's query points, stream each video once, ask, record.

* :mod:`.planner` groups query points by video and orders them in time;
* :mod:`.runner` drives the agents over each video's single decoding pass;
* :mod:`.results` is the durable store (``predictions.jsonl``, ``run.json``);
* :mod:`.config`, :mod:`.outcome` and :mod:`.ray_executor`: a run's options, how it ends, and
  the Ray executor.

Scoring (extraction, metrics, tables) is its own room, :mod:`streamspatial.scoring`.
"""
