"""streamspatial: streaming spatial intelligence under a strict prefix-only protocol.

A model answering a question at query time ``t_q`` never receives anything recorded after
``t_q``.  The public surface is small::

    import streamspatial as ss

    result = ss.evaluate("ovos.jsonl", videos="videos", model="openai:Qwen3-VL-8B")
    result.headline, result.tables["results"], result.to_frame()
    bench = ss.load_benchmark("ovos.jsonl")
    ss.generate("my-bench", houses=3)              # the simulator (extra ``sim``)

Your own memory method is an :class:`streamspatial.agents.Agent` (``examples/custom_agent.py``).
The subpackages below ("rooms") import one way, from ``core`` at the bottom to this API and the
``cli`` at the top: ``docs/architecture.md`` draws the map, and tests hold the code to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.api import Benchmark, Result, evaluate, generate, load_benchmark

_API = ("Benchmark", "Result", "evaluate", "generate", "load_benchmark")


def __getattr__(name: str) -> Any:
    """The API, imported on first use: ``import streamspatial`` alone stays instant (the CLI
    and every subpackage import it first)."""
    if name in _API:
        from streamspatial import api

        return getattr(api, name)
    raise AttributeError(f"module 'streamspatial' has no attribute {name!r}")


__all__ = ["Benchmark", "Result", "__version__", "evaluate", "generate", "load_benchmark"]
