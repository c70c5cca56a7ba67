import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
import uvicorn

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import FakeUpstream

pytest_plugins = ["proxy.testing"]

RunProxy = Callable[..., AbstractContextManager[str]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def litellm(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    """litellm as a client in the test's own loop, its cached HTTP clients closed afterwards.

    Its aiohttp transport rebuilds a session, never closed, when reused from another event loop
    (each test has its own); its httpx transport does not, so client-side tests use that.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    monkeypatch.setattr(litellm, "disable_aiohttp_transport", True)
    litellm.in_memory_llm_clients_cache.flush_cache()
    yield litellm
    await litellm.close_litellm_async_clients()
    litellm.in_memory_llm_clients_cache.flush_cache()


@contextmanager
def run_proxy(upstream_url: str, overrides: dict[str, Any] | None = None, **services: Any) -> Iterator[str]:
    """A real proxy on a real socket, in a background thread; yields its ``/v1`` base URL."""
    settings = load_settings(overrides={"upstream.base_url": upstream_url, **(overrides or {})})
    app = create_app(build_services(settings, **services))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, name="memproxy", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the proxy did not start"
        time.sleep(0.005)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def proxy_server(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_upstream_server.base_url) as url:
        yield url


@pytest.fixture
def proxy_url(proxy_server: str, fake_upstream: FakeUpstream) -> str:
    """The session's proxy in front of the (freshly reset) fake upstream."""
    return proxy_server


@pytest.fixture
def start_proxy() -> RunProxy:
    return run_proxy


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
