"""Serve an ASGI app with uvicorn in a background thread: the demo and the tests use a real socket."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp


@contextmanager
def serve_in_background(
    app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, name: str = "server", **config: Any
) -> Iterator[str]:
    """Yields the server's root URL (``http://host:port``) once it listens; stops it on exit.

    ``config``: more ``uvicorn.Config`` options. The host application's logging is left alone.
    """
    config = {"log_config": None, "access_log": False, "timeout_graceful_shutdown": 5, **config}
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, **config))
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"{name} did not start on {host}:{port}")
        time.sleep(0.005)
    bound_host, bound_port = server.servers[0].sockets[0].getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    try:
        yield f"http://{shown}:{bound_port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
