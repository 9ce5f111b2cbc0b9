"""How a generation runs, beside what it computes: units of work, where they run, what they cost.

In: a :class:`~streamspatial.sim.pipeline.config.GenerateConfig` and its house seeds.  Out: every
walk planned, rendered and asked (the items, in job order), the families the planned walks
will leave short (before any rendering), and the wall and CPU seconds of each stage.

* :mod:`.jobs` — the units, each a pure function of its arguments: plan a walk (house → walk
  → events), render a planned walk, ask a group of walks;
* :mod:`.executors` — run them here or in worker processes (one render process per core
  where EGL finds a GPU); :mod:`.ray_actors` — the same units on Ray actors, the driver the
  only writer;
* :mod:`.forecast` — what the planned events allow the families that need rare ones;
* :mod:`.stages` — the stage times ``manifest.json`` keeps.

Every unit depends on its arguments alone, so a seed gives the same files whichever executor
runs it.
"""
