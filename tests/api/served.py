"""An app served in-process on either backend, in front of an upstream that answers every chat request: what the
sessions and review route tests drive (``backend`` parametrises them over files and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.app import create_app
from proxy.config import load_settings
from proxy.episodes.extraction import Answer
from proxy.services import Services, build_services

BACKENDS = ["files", "postgres"]


class NeverExtracts:
    async def extract(self, messages: Any, **call: Any) -> Answer:
        raise RuntimeError("no extraction in these tests")

    async def aclose(self) -> None:
        pass


def answer(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "ok"}
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    return httpx.Response(
        200, json=completion | {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    )


def store_overrides(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    if backend == "files":
        return {"store.path": str(tmp_path / "data")}
    return {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn")}


@asynccontextmanager
async def served(overrides: dict[str, Any]) -> AsyncIterator[tuple[Services, httpx.AsyncClient]]:
    settings = load_settings(overrides={"upstream.base_url": "http://upstream.test/v1", **overrides})
    services = build_services(settings, transport=httpx.MockTransport(answer), extractor=NeverExtracts())
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        yield services, client


async def chat(
    client: httpx.AsyncClient, headers: dict[str, str], *said: str, session: str | None = None
) -> httpx.Response:
    """One chat request of a conversation whose user turns are ``said`` (the assistant's answers between them)."""
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are helpful."}]
    for n, text in enumerate(said):
        if n:
            messages.append({"role": "assistant", "content": "ok"})
        messages.append({"role": "user", "content": text})
    extra = {"x-memory-session": session} if session else {}
    response = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": messages}, headers=headers | extra
    )
    assert response.status_code == 200, response.text
    return response
