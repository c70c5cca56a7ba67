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
from proxy.memory.caller import Identity
from proxy.memory.episodes import Episode, Provenance, episode_id
from proxy.memory.provenance import untrusted_by
from proxy.memory.store import Owner
from proxy.services import Services, build_services

from .admin_app import BOB, ODD, OPEN_ADMIN, as_user, fill, forget_path, running

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
        (method.lower(), route.path_format)  # {user:path} is documented as {user}
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
        "/memory/memories/{memory_id}/versions",
        "/memory/memories/{memory_id}/restore",
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
        "/memory/keys",
        "/memory/keys/{key_id}",
        "/memory/users",
        "/memory/users/{user}/forget",
        "/memory/held",
        "/memory/health",
    }


def matches(document: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    """The response is one the document lists for this operation, and its body fits that schema."""
    listed = document["paths"][path][method]["responses"]
    assert str(response.status_code) in listed, f"{method} {path} answered {response.status_code}"
    for header in listed[str(response.status_code)].get("headers", {}):  # a documented header is always sent
        assert header.lower() in response.headers, f"{method} {path} {response.status_code} without {header}"
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


@pytest.mark.anyio
async def test_version_answers_match_the_documented_schemas(app, document) -> None:
    _, client = app

    async def call(method: str, template: str, path: str, **options: Any) -> httpx.Response:
        response = await client.request(method.upper(), path, headers=ADA | options.pop("headers", {}), **options)
        matches(document, template, method, response)
        return response

    one, versions, restore = (
        "/memory/memories/{memory_id}",
        "/memory/memories/{memory_id}/versions",
        "/memory/memories/{memory_id}/restore",
    )
    stored = await call("post", "/memory/memories", "/memory/memories", json={"text": "Ada deploys with Fabric"})
    path, tag = f"/memory/memories/{stored.json()['id']}", stored.headers["etag"]
    await call("get", one, path)
    await call("get", one, "/memory/memories/m-404")  # 404
    await call("patch", one, path, headers={"if-match": tag}, json={"text": "Ada deploys with Ansible"})
    await call("patch", one, path, headers={"if-match": tag}, json={"text": "Ada deploys with Salt"})  # 412
    await call("patch", one, path, headers={"if-match": "no quotes"}, json={"text": "x"})  # 400
    await call("delete", one, path, headers={"if-match": tag})  # 412
    await call("get", versions, f"{path}/versions")
    await call("get", versions, "/memory/memories/m-404/versions")  # 404
    await call("post", restore, f"{path}/restore", json={"version": 1})
    await call("post", restore, f"{path}/restore", json={"version": 99})  # 404
    await call("post", restore, f"{path}/restore", json={"version": "one"})  # 400
    await call("post", restore, f"{path}/restore", headers={"if-match": tag}, json={"version": 1})  # 412
    await call("delete", one, path, headers={"if-match": "*"})
    await call("post", restore, f"{path}/restore", json={"version": 2})  # back under its id


@pytest.mark.anyio
async def test_the_admin_routes_answers_match_the_documented_schemas(tmp_path: Path) -> None:
    async with running({"store.path": str(tmp_path)}) as admin_app:
        await fill(admin_app)
        client = admin_app.client
        document = (await client.get("/memory/openapi.json")).json()

        async def call(method: str, template: str, path: str | None = None, **options: Any) -> httpx.Response:
            response = await client.request(method.upper(), path or template, **options)
            matches(document, template, method, response)
            return response

        created = await call("post", "/memory/keys", json={"user": "ada", "kind": "service"}, headers=OPEN_ADMIN)
        await call("post", "/memory/keys", json={"user": "ada", "kind": "root"}, headers=OPEN_ADMIN)  # 400
        await call("post", "/memory/keys", json={"user": "ada"}, headers=as_user("ada"))  # 403
        await call("get", "/memory/keys", headers=OPEN_ADMIN)
        await call("get", "/memory/keys", headers=as_user("ada"))  # 403
        key = f"/memory/keys/{created.json()['id']}"
        await call("delete", "/memory/keys/{key_id}", key, headers=OPEN_ADMIN)
        await call("delete", "/memory/keys/{key_id}", "/memory/keys/k-000000000000", headers=OPEN_ADMIN)  # 404
        await call("get", "/memory/users", headers=OPEN_ADMIN)
        await call("get", "/memory/users", headers=as_user(BOB))
        await call("get", "/memory/held", headers=OPEN_ADMIN)
        await call("get", "/memory/held", headers=as_user(ODD))
        await call("get", "/memory/health", headers=OPEN_ADMIN)
        await call("get", "/memory/health", headers=as_user(BOB))  # 403
        template = "/memory/users/{user}/forget"
        await call("get", template, forget_path(ODD), headers=OPEN_ADMIN)
        await call("post", template, forget_path(ODD), json={}, headers=OPEN_ADMIN)  # 400
        await call("post", template, forget_path(ODD), json={"confirm": True}, headers=OPEN_ADMIN)
        await call("get", template, forget_path(ODD), headers=OPEN_ADMIN)  # 404: nothing left
        await call("post", template, forget_path(BOB), json={"confirm": True}, headers=as_user(BOB))  # 403


@pytest.mark.anyio
async def test_sessions_and_review_answers_match_the_documented_schemas(app, document) -> None:
    services, client = app

    async def call(method: str, template: str, path: str | None = None, **options: Any) -> httpx.Response:
        response = await client.request(method.upper(), path or template, headers=ADA, **options)
        matches(document, template, method, response)
        return response

    ada = Identity("ada", "default")
    await call("post", "/memory/memories", json={"text": "User's name is Ada", "scope": "user", "pinned": True})
    await call("post", "/memory/memories", json={"text": "The staging database listens on port 6432"})
    await call("post", "/memory/memories", json={"text": "User's daughter plays the violin"})
    for said in (["Which port does the staging database use?"], ["Which port does the staging database use?",
                                                                 "And who plays the violin?"]):  # fmt: skip
        messages = [{"role": "user", "content": text} for text in said]
        await client.post("/v1/chat/completions", json={"model": "m", "messages": messages},
                          headers=ADA | {"x-memory-session": "s1"})  # fmt: skip
    await client.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                      headers=ADA | {"x-memory-session": "s2"})  # fmt: skip
    await call("post", "/memory/sessions/{session_id}/end", "/memory/sessions/s2/end")
    listed = await call("get", "/memory/sessions", params={"limit": "1"})
    assert listed.json()["next"]
    await call("get", "/memory/sessions", params={"before": listed.json()["next"], "live": "false"})
    await call("get", "/memory/sessions", params={"limit": "0"})  # 400
    detail = await call("get", "/memory/sessions/{session_id}", "/memory/sessions/s1")
    assert {e["why"] and next(iter(e["why"])) for e in detail.json()["block"]["entries"]} == {"pinned", "score"}
    await call("get", "/memory/sessions/{session_id}", "/memory/sessions/s2")  # ended: from history
    await call("get", "/memory/sessions/{session_id}", "/memory/sessions/nope")  # 404
    memories = await call("get", "/memory/memories")
    assert any(m["injected_count"] for m in memories.json()["memories"])

    held = await services.memory.add(ada, {"text": "Held from a fetched page"}, origin="tool", session="s1",
                                     provenance=untrusted_by(["web_fetch"]))  # fmt: skip
    trusted = await services.memory.add(ada, {"text": "User prefers tabs over spaces"}, origin="api")
    episode = Episode(
        episode_id("ada", "default", "s1"), "s1", "ada", "default", 2, 1.9e9, "Talked about staging.",
        ("The staging database listens on port 6432", "User prefers tabs over spaces indeed"),
        Provenance(True, ("web_fetch",), False),
    )  # fmt: skip
    assert services.memory.episodes is not None
    await services.memory.episodes.put(Owner("ada", "default"), episode)
    review = await call("get", "/memory/review")
    assert [i["kind"] for i in review.json()["items"]] == ["episode", "memory"]
    await call("get", "/memory/review", params={"before": "nope"})  # 400
    reject = "/memory/memories/{memory_id}/reject"
    await call("post", reject, f"/memory/memories/{trusted.memory.id}/reject")  # 409: not held
    await call("post", reject, f"/memory/memories/{held.memory.id}/reject")
    await call("post", reject, f"/memory/memories/{held.memory.id}/reject")  # 404
