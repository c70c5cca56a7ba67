import os
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest

from proxy.testing import FakeUpstream
from proxy.testing.runner import run_memproxy

from .shared_extraction import SHARED, SharedExtractor
from .ssl_context import share_default_ssl_context

pytest_plugins = ["proxy.testing", "tests.postgres_server"]

share_default_ssl_context()

RunProxy = Callable[..., AbstractContextManager[str]]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (addopts): a worker per core and one more. The e2e tests wait on the processes, servers and browser
    they drive for about a quarter of a worker's time (idle, on 2 cores: 462 s of CPU in 316 s, 73% of the cores):
    a third worker runs tests in those gaps. PYTEST_XDIST_AUTO_NUM_WORKERS, when set, still decides (xdist's own)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


@pytest.fixture(scope="session", autouse=True)
def shared_extraction_process() -> Iterator[None]:
    """The proxies a worker runs in-process send their extraction calls to one process (tests/shared_extraction.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("proxy.services.ProcessExtractor", SharedExtractor)
        yield
    SHARED.close()


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


run_proxy = run_memproxy  # a real proxy on a real socket with its own temporary data dir; yields its /v1 URL


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
