"""Running the app on a loopback port in a background thread (tests, notebooks, scripts).

``uvicorn.Server`` in a thread with its own event loop: the caller keeps its thread, the port
is chosen by the OS (bind to port 0 first, so parallel test runs never collide), and ``close``
stops the server cleanly.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ServerThread:
    """``with ServerThread(app) as srv: httpx.get(srv.url + "/")``."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None):
        import uvicorn

        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["ServerThread", "free_port"]
