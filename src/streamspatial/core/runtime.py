"""Where a run's work executes: the interface evaluation's and generation's executors share.

Two rooms run their work either in this process (``--executor local``) or on Ray actors
(``--executor ray [--address]``): ``eval`` answers the query points of a benchmark's videos,
``sim`` renders walks and asks their questions.  Both choose the executor by the same word,
refuse an unreachable cluster the same way *before* any file is written, and hand the chosen
executor one piece of work that it runs to a result.  The interface lives here, below both,
because ``eval`` and ``sim`` may not import each other; each room supplies the two functions
that do its work (a module of its own for Ray, imported only when Ray runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

from streamspatial.core.errors import StreamspatialError

ExecutorName = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorName, ...] = ("local", "ray")

W = TypeVar("W")
R = TypeVar("R")
W_contra = TypeVar("W_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)


class Executor(Protocol[W_contra, R_co]):
    """Runs one piece of work to its result, here or on a cluster."""

    name: ExecutorName

    def check(self) -> None:
        """Refuse what would fail the work at once (Ray missing, a cluster out of reach),
        before the caller writes anything."""

    def run(self, work: W_contra) -> R_co:
        """Run ``work`` to its result (the same result whichever executor runs it)."""


@dataclass(frozen=True)
class LocalExecutor(Generic[W, R]):
    """The work in this process (which may start worker processes of its own)."""

    runs: Callable[[W], R]
    name: ExecutorName = "local"

    def check(self) -> None:
        return None

    def run(self, work: W) -> R:
        return self.runs(work)


@dataclass(frozen=True)
class RayExecutor(Generic[W, R]):
    """The work on Ray actors; ``address`` as ``--address`` takes it (None: a local Ray)."""

    runs: Callable[[W], R]
    address: str | None = None
    name: ExecutorName = "ray"

    def check(self) -> None:
        from streamspatial.core.cluster import check_address

        check_address(self.address)

    def run(self, work: W) -> R:
        return self.runs(work)


def pick_executor(
    name: str, *, local: Callable[[W], R], ray: Callable[[W], R], address: str | None = None
) -> Executor[W, R]:
    """The executor ``name`` (``--executor``) running a room's work with ``local`` or ``ray``;
    ``address`` (the cluster to join) is read by Ray alone."""
    if name == "local":
        return LocalExecutor(local)
    if name == "ray":
        return RayExecutor(ray, address)
    raise StreamspatialError(f"--executor must be local or ray, got {name!r}")


__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorName",
    "LocalExecutor",
    "RayExecutor",
    "pick_executor",
]
