"""Joining a Ray cluster, for the two things that run on one: evaluation and generation.

``--executor ray [--address]`` means the same for ``streamspatial run`` and ``sim generate``:
no address starts a local Ray instance (or uses the one this process already started);
``auto`` or ``ray://host:10001`` joins a cluster; ``host:port`` is a head node's GCS address,
checked with a TCP connect first, because Ray itself keeps retrying an unreachable one for
minutes.  Ray is imported here only inside functions: the core install does not need it.
"""

from __future__ import annotations

import logging
import socket

from streamspatial.core.errors import StreamspatialError


def check_address(address: str | None, timeout: float = 5.0) -> None:
    """Fail fast, with one line, when Ray is missing or a ``host:port`` cluster is unreachable.

    ``auto``, ``ray://`` and no address are left to ``ray.init``.
    """
    try:
        import ray  # noqa: F401
    except ImportError:
        raise StreamspatialError(
            "--executor ray needs Ray: pip install 'streamspatial[ray]'"
        ) from None
    if not address or address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise StreamspatialError(
            f"--address {address}: expected host:port, auto or ray://host:port"
        )
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise StreamspatialError(
            f"--address {address}: cannot reach the Ray cluster ({exc.strerror or exc})"
        ) from None


def join(address: str | None) -> bool:
    """``ray.init`` quietly (no dashboard, workers' logs kept off the terminal) unless this
    process has joined already; True when this call started it (the caller shuts it down)."""
    check_address(address)
    import ray

    if ray.is_initialized():
        return False
    try:
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,  # the CLI's stderr stays its own
        )
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise StreamspatialError(
            f"--address {address}: cannot join the Ray cluster ({exc})"
        ) from None
    return True
