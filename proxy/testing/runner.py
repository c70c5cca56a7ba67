"""Serve an ASGI app with uvicorn in a background thread: the demo and the tests use a real socket.

Besides the generic `serve_in_background`, the two servers everyone needs: the fake upstream and a memproxy in
front of it. memproxy's own modules are imported only when one is started, so `import proxy.testing` stays light.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from .streams import quiet_deliberate_aborts
from .upstream import FakeUpstream


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


@contextmanager
def run_fake_upstream(host: str = "127.0.0.1", port: int = 0) -> Iterator[FakeUpstream]:
    """Serves a fresh FakeUpstream with uvicorn in a background thread (port 0: a free one) until exit."""
    fake = FakeUpstream()
    quiet_deliberate_aborts()
    with serve_in_background(
        fake.app, host=host, port=port, name="fake-upstream", lifespan="off", timeout_graceful_shutdown=1
    ) as root:
        fake.base_url = f"{root}/v1"
        yield fake


@contextmanager
def run_memproxy(upstream_url: str, overrides: dict[str, Any] | None = None, **services: Any) -> Iterator[str]:
    """A real memproxy on a real socket, in a background thread, with its own temporary data dir; yields its
    ``/v1`` base URL.

    ``upstream_url`` serves ``/v1/messages`` too (``upstream.anthropic_base_url``), as the fake does: every wire
    format reaches it. ``overrides``: settings by dotted name (``{"memory.inject_mode": "off"}``), applied over the
    upstreams and the data dir, so ``{"store.path": ...}`` points it at a lasting one. ``services``:
    ``build_services`` keywords (``store=``, ``transport=``, ``record_dir=``, ...).
    """
    from ..app import create_app
    from ..config import load_settings
    from ..services import build_services
    from ..serving import http_protocol

    with tempfile.TemporaryDirectory(prefix="memproxy-test-") as data_dir:
        overrides = {
            "upstream.base_url": upstream_url,
            "upstream.anthropic_base_url": upstream_url,
            "store.path": data_dir,
            # Generous: a loaded test machine must not turn a slow first read into a request without memory. A test
            # of failing open sets its own.
            "memory.store_deadline_ms": 10_000,
            **(overrides or {}),
        }
        settings = load_settings(overrides=overrides)
        app = create_app(build_services(settings, **services))
        protocol = http_protocol(settings.server.header_timeout_s)  # as `memproxy serve` has it
        with serve_in_background(app, name="memproxy", http=protocol) as root:
            yield f"{root}/v1"
