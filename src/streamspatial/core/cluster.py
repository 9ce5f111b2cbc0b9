"""Joining a Ray cluster, for the two things that run on one: evaluation and generation.

``--executor ray [--address]`` means the same for ``streamspatial run`` and ``sim generate``:
no address starts a local Ray instance (or uses the one this process already started);
``auto`` or ``ray://host:10001`` joins a cluster; ``host:port`` is a head node's GCS address,
checked with a TCP connect first, because Ray itself keeps retrying an unreachable one for
minutes.  Ray is imported here only inside functions: the core install does not need it.

Authentication: Ray (2.60 here) starts a cluster with token authentication whenever a token
is at hand (``ray start --head`` with a token in ``~/.ray/auth_token``, which any local
``ray.init()`` writes), and a process joins it only with ``RAY_AUTH_MODE=token`` and the same
token (``RAY_AUTH_TOKEN``, a file at ``RAY_AUTH_TOKEN_PATH``, or ``~/.ray/auth_token``). A
driver without them used to retry for 30 s and then fail without naming authentication, so
before anything is planned a ``host:port`` or ``auto`` cluster is asked once, in a child
process (Ray's GCS client logs to stderr), whether it takes this process's authentication; a
refusal is one line saying what the cluster needs. The driver's environment is used as it is,
as on the nodes (docs/scale.md): a token is never sent to a cluster Ray itself would not send
it to.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import subprocess
import sys

from streamspatial.core.errors import StreamspatialError

AUTH_MODE = "RAY_AUTH_MODE"
# What decides a process's authentication to Ray (the probe is cached per their values).
AUTH_SETTINGS = (AUTH_MODE, "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "HOME")
TOKEN_SOURCES = "RAY_AUTH_TOKEN, a file at RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"
# Run in a child: connect Ray's GCS client once (as ray.init does, "auto" finding a local
# cluster and taking a local token the way ray.init does) and print what happened as JSON.
_PROBE = """
import json, sys
address = sys.argv[1]
try:
    if address == "auto":
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
        from ray._private.services import canonicalize_bootstrap_address_or_die

        address = canonicalize_bootstrap_address_or_die("auto")
        maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    from ray._raylet import GcsClient

    GcsClient(address=address)
    print(json.dumps({"ok": True}))
except Exception as exc:
    print(json.dumps({"ok": False, "error": type(exc).__name__, "message": str(exc)}))
"""


def check_address(address: str | None, timeout: float = 5.0) -> None:
    """Fail fast, with one line, when Ray is missing or a ``host:port`` cluster is unreachable.

    ``ray://`` and no address are left to ``ray.init``; ``host:port`` and ``auto`` are asked
    whether they take this process's authentication (:func:`check_authentication`).
    """
    try:
        import ray  # noqa: F401
    except ImportError:
        raise StreamspatialError(
            "--executor ray needs Ray: pip install 'streamspatial[ray]'"
        ) from None
    if not address or "://" in address:
        return
    if address == "auto":
        check_authentication(address)
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
    check_authentication(address)


def check_authentication(address: str) -> None:
    """One line naming the authentication a cluster asks for, when it refuses this process's
    (see the module); any other outcome is left to ``ray.init``."""
    outcome = _probe(address, tuple(os.environ.get(k, "") for k in AUTH_SETTINGS))
    if outcome.get("error") == "AuthenticationError":
        raise StreamspatialError(auth_refusal(address))


@functools.cache
def _probe(address: str, settings: tuple[str, ...]) -> dict:
    """The probe's outcome (cached per address and authentication settings: a run checks its
    cluster before its folder exists and again when it joins)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, address],
            capture_output=True,
            text=True,
            timeout=120,
            # Ray's C++ logs off the terminal; a GCS that does not answer within 5 s gives no
            # verdict (ray.init then waits and reports as it does)
            env={
                **os.environ,
                "RAY_BACKEND_LOG_LEVEL": "fatal",
                "RAY_py_gcs_connect_timeout_s": "5",
            },
        )
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return {}  # no verdict: ray.init will say


def auth_refusal(address: str) -> str:
    """What the user must set, in one line, for a cluster that refused this process."""
    if os.environ.get(AUTH_MODE, "").lower() == "token":
        return (
            f"--address {address}: the Ray cluster refused this machine's authentication "
            f"token ({AUTH_MODE}=token): give it the cluster's token ({TOKEN_SOURCES}), as on "
            "its nodes"
        )
    return (
        f"--address {address}: the Ray cluster asks for token authentication and this "
        f"process sends none: set {AUTH_MODE}=token and the cluster's token ({TOKEN_SOURCES}), "
        "as on its nodes (docs/scale.md)"
    )


def join(address: str | None) -> bool:
    """``ray.init`` quietly (no dashboard, workers' logs kept off the terminal) unless this
    process has joined already; True when this call started it (the caller shuts it down)."""
    check_address(address)
    import ray
    from ray.exceptions import AuthenticationError

    if ray.is_initialized():
        return False
    try:
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,  # the CLI's stderr stays its own
        )
    except AuthenticationError:
        raise StreamspatialError(auth_refusal(str(address))) from None
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise StreamspatialError(
            f"--address {address}: cannot join the Ray cluster ({exc})"
        ) from None
    return True
