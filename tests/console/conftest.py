from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.app import create_app
from proxy.auth.keys import create_key
from proxy.config import load_settings
from proxy.services import Services, build_services

from .pages import ORIGIN, Browser


def upstream(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "ok"}
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    return httpx.Response(
        200, json=completion | {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def keyed(tmp_path: Path) -> AsyncIterator[Services]:
    """A memproxy in keys mode, in-process, on a files store of its own."""
    overrides = {"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path), "auth.mode": "keys"}
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(upstream))
    async with services:
        yield services


@pytest.fixture
async def opened(tmp_path: Path) -> AsyncIterator[Services]:
    """A memproxy in open mode, in-process."""
    overrides = {"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path)}
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(upstream))
    async with services:
        yield services


BrowserFor = Callable[..., Any]


@pytest.fixture
async def browser_for() -> AsyncIterator[BrowserFor]:
    """``browser_for(services, peer=..., base=...)``: a fresh client (its own cookies) on the app over ASGI."""
    opened: list[httpx.AsyncClient] = []

    def make(services: Services, *, peer: str = "127.0.0.1", base: str = ORIGIN) -> Browser:
        transport = httpx.ASGITransport(create_app(services), client=(peer, 50000))
        client = httpx.AsyncClient(transport=transport, base_url=base)
        opened.append(client)
        return Browser(client)

    yield make
    for client in opened:
        await client.aclose()


async def new_key(services: Services, user: str, kind: str = "personal") -> tuple[str, str]:
    """A key for ``user``, known to the running ring at once (the poller would take up to half a second)."""
    keyring = services.auth.keyring
    assert keyring is not None
    record, key = await create_key(keyring.store, user, kind)
    await keyring.refresh()
    return record.id, key
