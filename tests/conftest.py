import os
import socket
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest

from proxy.app import create_app
from proxy.background import serve_in_background
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
    """A real proxy on a real socket, in a background thread, with its own data dir; yields its ``/v1`` base URL."""
    with tempfile.TemporaryDirectory(prefix="memproxy-test-") as data_dir:
        overrides = {"upstream.base_url": upstream_url, "store.path": data_dir, **(overrides or {})}
        app = create_app(build_services(load_settings(overrides=overrides), **services))
        with serve_in_background(app, name="memproxy") as root:
            yield f"{root}/v1"


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
