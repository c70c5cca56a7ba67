"""The client side of end-to-end memory tests: the openai and anthropic SDKs and the management API, as a user drives
them."""

import uuid
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest

from proxy.testing import FakeUpstream

from ..conftest import run_proxy

TABS = "User prefers tabs over spaces for indentation"
QUESTION = "How should I indent the new module?"


@pytest.fixture(scope="module")
def memproxy(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    """One proxy per test module, in front of the session's fake upstream."""
    with run_proxy(fake_upstream_server.base_url) as url:
        yield url


@pytest.fixture
def user() -> str:
    """A fresh user per test, so tests never see each other's memories."""
    return f"user-{uuid.uuid4().hex[:8]}"


_clients: list[openai.OpenAI | anthropic.Anthropic] = []


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    """Close every SDK client a test made (import this fixture into the test module)."""
    yield
    while _clients:
        _clients.pop().close()


def sdk(url: str, user: str | None = None, key: str = "sk-test", **headers: str) -> openai.OpenAI:
    default_headers = {"X-Memory-User": user} if user else {}
    client = openai.OpenAI(base_url=url, api_key=key, max_retries=0, default_headers={**default_headers, **headers})
    _clients.append(client)
    return client


def claude(url: str, user: str | None = None, key: str = "sk-ant-test", **headers: str) -> anthropic.Anthropic:
    """The anthropic SDK pointed at the proxy (it appends ``/v1/messages`` to the root itself)."""
    default_headers = {"X-Memory-User": user} if user else {}
    client = anthropic.Anthropic(
        base_url=url.removesuffix("/v1"), api_key=key, max_retries=0, default_headers={**default_headers, **headers}
    )
    _clients.append(client)
    return client


def listed(url: str, user: str, **params: Any) -> list[dict[str, Any]]:
    """The user's memories as ``GET /memory/memories`` lists them (``held=true``: the ones held for approval)."""
    response = api(url, user, "GET", "/memory/memories", params=params)
    assert response.status_code == 200, response.text
    return list(response.json()["memories"])


def api(url: str, user: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
    headers = {"X-Memory-User": user} if user else {}
    headers.update(kwargs.pop("headers", {}))
    return httpx.request(method, url.removesuffix("/v1") + path, headers=headers, timeout=10, **kwargs)


def remember(url: str, user: str, text: str = TABS, **fields: Any) -> str:
    response = api(url, user, "POST", "/memory/memories", json={"text": text, **fields})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def ask(client: openai.OpenAI, *messages: dict[str, Any], **kwargs: Any) -> Any:
    return client.chat.completions.with_raw_response.create(model="fake-model", messages=list(messages), **kwargs)


def sent(fake: FakeUpstream) -> list[dict[str, Any]]:
    return list(fake.requests[-1].json["messages"])


def user_says(text: str = QUESTION) -> dict[str, Any]:
    return {"role": "user", "content": text}
