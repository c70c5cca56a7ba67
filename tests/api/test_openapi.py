"""GET /memory/openapi.json: every /memory route the app serves is in it, and real answers match its schemas."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from jsonschema import Draft202012Validator
from starlette.routing import Route

from proxy.app import create_app
from proxy.config import load_settings
from proxy.episodes.extraction import Answer
from proxy.memory.episodes import Episode, Provenance, episode_id
from proxy.memory.store import Owner
from proxy.services import Services, build_services

ADA = {"x-memory-user": "ada"}
CATCH_ALL = ("/memory", "/memory/{rest:path}")  # answers 404/405 for what no route serves; not an operation


class NeverExtracts:
    async def extract(self, messages: Any, **route: Any) -> Answer:
        raise RuntimeError("no extraction in this test")

    async def aclose(self) -> None:
        pass


def upstream(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "ok"}
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    return httpx.Response(
        200, json=completion | {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    )


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[tuple[Services, httpx.AsyncClient]]:
    overrides = {"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path)}
    services = build_services(
        load_settings(overrides=overrides), transport=httpx.MockTransport(upstream), extractor=NeverExtracts()
    )
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        yield services, client


@pytest.fixture
async def document(app: tuple[Services, httpx.AsyncClient]) -> dict[str, Any]:
    response = await app[1].get("/memory/openapi.json")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    return dict(response.json())


@pytest.mark.anyio
async def test_it_lists_every_memory_route_the_app_serves_and_nothing_else(app, document) -> None:
    served = {
        (method.lower(), route.path)
        for route in create_app(app[0]).routes
        if isinstance(route, Route) and route.path.startswith("/memory") and route.path not in CATCH_ALL
        for method in route.methods or ()
        if method != "HEAD"
    }
    documented = {(method, path) for path, operations in document["paths"].items() for method in operations}
    assert documented == served
    assert {path for _, path in served} >= {
        "/memory/memories",
        "/memory/memories/{memory_id}",
        "/memory/export",
        "/memory/import",
        "/memory/forget-all",
        "/memory/sessions",
        "/memory/sessions/{session_id}/end",
        "/memory/episodes",
        "/memory/episodes/{episode_id}",
        "/memory/episodes/{episode_id}/approve",
        "/memory/episodes/{episode_id}/reject",
        "/memory/openapi.json",
    }


def matches(document: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    """The response is one the document lists for this operation, and its body fits that schema."""
    listed = document["paths"][path][method]["responses"]
    assert str(response.status_code) in listed, f"{method} {path} answered {response.status_code}"
    content = listed[str(response.status_code)]["content"]
    media = response.headers["content-type"].split(";")[0]
    schema = {**content[media]["schema"], "components": document["components"]}
    bodies = (
        [orjson.loads(line) for line in response.content.splitlines()]
        if media.endswith("ndjson")
        else [response.json()]
    )
    for body in bodies:
        Draft202012Validator(schema).validate(body)


@pytest.mark.anyio
async def test_real_answers_match_the_documented_schemas(app, document) -> None:
    services, client = app
    Draft202012Validator.check_schema({"$defs": document["components"]["schemas"]})

    async def call(method: str, template: str, path: str | None = None, **options: Any) -> httpx.Response:
        response = await client.request(
            method.upper(), path or template, headers=ADA | options.pop("headers", {}), **options
        )
        matches(document, template, method, response)
        return response

    stored = await call("post", "/memory/memories", json={"text": "User prefers tabs", "tags": ["style"]})
    await call("post", "/memory/memories", json={"text": "User prefers tabs"})  # already there: 200
    await call("post", "/memory/memories", json={"text": "my password: hunter2hunter2"})  # 400
    await call("get", "/memory/memories", params={"q": "tabs", "limit": "5"})
    await call("get", "/memory/memories", params={"limit": "0"})  # 400
    await call("get", "/memory/export")
    await call("post", "/memory/import", content=b'{"text": "The staging DB is Postgres 16"}\n{oops\n')
    memory_id = stored.json()["id"]
    await call("delete", "/memory/memories/{memory_id}", f"/memory/memories/{memory_id}")
    await call("delete", "/memory/memories/{memory_id}", "/memory/memories/m-404")  # 404

    for turn in range(3):  # a session of three turns: ending it queues an extraction job
        messages = [{"role": "user", "content": f"question {n}"} for n in range(turn + 1)]
        await client.post(
            "/v1/chat/completions", json={"model": "m", "messages": messages}, headers=ADA | {"x-memory-session": "s1"}
        )
    await client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        headers=ADA | {"x-memory-session": "s2"},
    )
    await call("get", "/memory/sessions")
    await call("get", "/memory/history", params={"q": "question", "limit": "3"})
    await call("get", "/memory/history")  # 400: no q
    await call("post", "/memory/sessions/{session_id}/end", "/memory/sessions/s1/end")
    await call("post", "/memory/sessions/{session_id}/end", "/memory/sessions/s2/end")
    await call("post", "/memory/sessions/{session_id}/end", "/memory/sessions/s3/end")  # 404

    untrusted = Episode(
        episode_id("ada", "default", "s0"),
        "s0",
        "ada",
        "default",
        3,
        1.7e9,
        "Set up the repo.",
        ("The user's API server is written in Go.",),
        Provenance(True, ("web_fetch",), False),
    )
    assert services.memory.episodes is not None
    await services.memory.episodes.put(Owner("ada", "default"), untrusted)
    await call("get", "/memory/episodes")
    path = f"/memory/episodes/{untrusted.id}"
    await call("post", "/memory/episodes/{episode_id}/approve", f"{path}/approve")
    await call("post", "/memory/episodes/{episode_id}/reject", f"{path}/reject")
    await call("delete", "/memory/episodes/{episode_id}", path)  # gone: 404
    await call("post", "/memory/forget-all", json={})  # 400
    await call("post", "/memory/forget-all", json={"confirm": True})
    await call("get", "/memory/memories", headers={"x-memory-user": ""})  # 400 or 401


@pytest.mark.anyio
async def test_pinned_facts_answers_match_the_documented_schemas(app, document) -> None:
    _, client = app

    async def call(method: str, template: str, path: str | None = None, **options: Any) -> httpx.Response:
        response = await client.request(method.upper(), path or template, headers=ADA, **options)
        matches(document, template, method, response)
        return response

    pinned = await call("post", "/memory/memories", json={"text": "Ada writes Go", "scope": "user", "pinned": True})
    await call("post", "/memory/memories", json={"text": "ada writes go", "scope": "user", "pinned": True})  # 409
    await call("post", "/memory/memories", json={"text": "x" * 500, "pinned": True})
    await call("post", "/memory/memories", json={"text": "y " * 200, "pinned": True})  # past the cap: 409
    await call("get", "/memory/pinned")
    path = f"/memory/memories/{pinned.json()['id']}"
    await call("patch", "/memory/memories/{memory_id}", path, json={"text": "Ada writes Go and Rust"})
    await call("patch", "/memory/memories/{memory_id}", path, json={"pinned": False})
    await call("patch", "/memory/memories/{memory_id}", path, json={"scope": "global"})  # 400
    await call("patch", "/memory/memories/{memory_id}", "/memory/memories/m-404", json={"pinned": True})  # 404
