"""A run's query points answered in this process or on Ray actors (``--executor``).

The executors are :mod:`streamspatial.core.runtime`'s, which generation's share; this module
gives them the evaluation's work.  Locally the run's one backend is built here and the runner
drives it on this event loop; on Ray each actor builds its own backend from the same function
(the API key read from the actor's own environment), and the driver's runner only plans,
writes and counts.  Either way the records, and so the scores, are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.runtime import Executor, pick_executor
from streamspatial.eval.outcome import run_local
from streamspatial.models.types import Backend, placement

Placed = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Evaluation:
    """One run's work for an executor.

    ``make_runner(backend)`` makes the run's runner (backend None on Ray: actors have their
    own); ``make_backend(device=None)`` builds the model's backend, None for an agent that
    answers without a model; ``placed`` is told where the model runs (device, dtype) once
    that is known."""

    make_runner: Callable[[Backend | None], Any]
    make_backend: Callable[..., Backend] | None
    placed: Placed


@dataclass(frozen=True)
class RayPlacement:
    """How many actors a run starts on Ray, and the GPUs each asks for (None: Ray decides,
    one for a local model on a cluster with GPUs)."""

    workers: int | None = None
    gpus_per_worker: float | None = None


def run_here(work: Evaluation) -> None:
    """The run on this machine: one backend, the runner on this process's event loop."""
    backend = work.make_backend() if work.make_backend is not None else None
    where = placement(backend)
    if where is not None:
        work.placed(where)
    run_local(work.make_runner(backend), backend)


def run_on_actors(address: str | None, actors: RayPlacement, work: Evaluation) -> None:
    """The run on Ray actors; the placements their models report, devices joined."""
    from streamspatial.eval.ray_executor import RayOptions, run_on_ray

    if work.make_backend is None:  # check_model refuses it first, with the agent's name
        raise StreamspatialError("an agent answering without a model runs with --executor local")
    options = RayOptions(
        address=address, workers=actors.workers, gpus_per_worker=actors.gpus_per_worker
    )
    reported = run_on_ray(work.make_runner(None), work.make_backend, options)
    if reported:
        work.placed(
            {key: ", ".join(sorted({str(p[key]) for p in reported})) for key in ("device", "dtype")}
        )


def evaluation_executor(
    name: str, address: str | None = None, actors: RayPlacement | None = None
) -> Executor[Evaluation, None]:
    """The executor ``--executor name`` names, running an :class:`Evaluation`."""
    ray = partial(run_on_actors, address, actors or RayPlacement())
    return pick_executor(name, local=run_here, ray=ray, address=address)


__all__ = ["Evaluation", "RayPlacement", "evaluation_executor", "run_here", "run_on_actors"]
