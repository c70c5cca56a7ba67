"""A memory's versions over HTTP, in-process on files and PostgreSQL: GET with an ETag, the history with who made
each change, If-Match on PATCH, DELETE and restore (a stale tag is a 412 that changes nothing), restore after a
delete, and forget-all leaving no version."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.app import create_app
from proxy.auth.keys import create_key
from proxy.config import load_settings
from proxy.services import build_key_store, build_services

pytestmark = pytest.mark.anyio

ADA = {"x-memory-user": "ada"}
BOB = {"x-memory-user": "bob"}


def upstream(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, json={"error": "no upstream in these tests"})


async def client_on(overrides: dict[str, Any]) -> AsyncIterator[httpx.AsyncClient]:
    settings = load_settings(overrides={"upstream.base_url": "http://upstream.test/v1", **overrides})
    services = build_services(settings, transport=httpx.MockTransport(upstream))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        yield client


@pytest.fixture(params=["files", "postgres"])
async def client(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    overrides: dict[str, Any] = {"store.path": str(tmp_path)}
    if request.param == "postgres":
        overrides |= {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn")}
    async for made in client_on(overrides):
        yield made


@pytest.fixture
async def files_client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """For what is refused before any store is asked: one backend is enough."""
    async for made in client_on({"store.path": str(tmp_path)}):
        yield made


def error_of(response: httpx.Response) -> dict[str, Any]:
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


async def add(client: httpx.AsyncClient, text: str, **fields: Any) -> tuple[str, str]:
    response = await client.post("/memory/memories", headers=ADA, json={"text": text, **fields})
    assert response.status_code == 201, response.text
    return response.json()["id"], response.headers["etag"]


async def test_a_memory_comes_with_an_etag_that_each_change_moves(client: httpx.AsyncClient) -> None:
    memory_id, created = await add(client, "Ada deploys with Fabric")
    got = await client.get(f"/memory/memories/{memory_id}", headers=ADA)
    assert got.status_code == 200 and got.headers["etag"] == created == f'"{memory_id}.v1"'
    assert (got.json()["id"], got.json()["version"], got.json()["held"]) == (memory_id, 1, False)

    edited = await client.patch(f"/memory/memories/{memory_id}", headers=ADA | {"if-match": created},
                                json={"text": "Ada deploys with Ansible"})  # fmt: skip
    assert edited.status_code == 200 and edited.headers["etag"] == f'"{memory_id}.v2"'
    assert edited.json()["memory"]["version"] == 2
    assert (await client.get(f"/memory/memories/{memory_id}", headers=ADA)).headers["etag"] == f'"{memory_id}.v2"'
    assert (await client.get(f"/memory/memories/{memory_id}", headers=BOB)).status_code == 404  # not Bob's


async def test_a_stale_if_match_is_a_412_and_changes_nothing(client: httpx.AsyncClient) -> None:
    memory_id, seen = await add(client, "Ada deploys with Fabric")
    path = f"/memory/memories/{memory_id}"
    # Two people read version 1; the first saves, the second saves on top of what it read.
    first = await client.patch(path, headers=ADA | {"if-match": seen}, json={"text": "Ada deploys with Ansible"})
    second = await client.patch(path, headers=ADA | {"if-match": seen}, json={"text": "Ada deploys with Salt"})
    assert first.status_code == 200
    assert second.status_code == 412 and error_of(second)["code"] == "version_mismatch"
    assert error_of(second)["type"] == "invalid_request_error" and second.headers["etag"] == f'"{memory_id}.v2"'
    deleted = await client.delete(path, headers=ADA | {"if-match": seen})
    assert deleted.status_code == 412
    restored = await client.post(f"{path}/restore", headers=ADA | {"if-match": seen}, json={"version": 1})
    assert restored.status_code == 412

    current = (await client.get(path, headers=ADA)).json()
    assert (current["text"], current["version"]) == ("Ada deploys with Ansible", 2)
    assert (await client.get(f"{path}/versions", headers=ADA)).json()["count"] == 2
    # Without If-Match it works as it always did; * and a list naming the current tag match.
    assert (await client.patch(path, headers=ADA, json={"tags": ["ops"]})).status_code == 200
    listed = f'"{memory_id}.v1", "{memory_id}.v3"'
    assert (await client.patch(path, headers=ADA | {"if-match": listed}, json={"tags": []})).status_code == 200
    assert (await client.delete(path, headers=ADA | {"if-match": "*"})).status_code == 200


async def test_concurrent_writers_with_one_tag_one_wins(client: httpx.AsyncClient) -> None:
    memory_id, seen = await add(client, "Ada deploys with Fabric")
    path = f"/memory/memories/{memory_id}"
    answers = await asyncio.gather(
        *(client.patch(path, headers=ADA | {"if-match": seen}, json={"text": f"writer {n}"}) for n in range(4))
    )
    assert sorted(a.status_code for a in answers) == [200, 412, 412, 412]
    [winner] = [a for a in answers if a.status_code == 200]
    assert (await client.get(path, headers=ADA)).json()["text"] == winner.json()["memory"]["text"]


@pytest.mark.parametrize(
    "header", ["m-1.v1", '"unterminated', 'W/"m-1.v1" junk', '*, "m-1.v1"', " "], ids=lambda h: repr(h)
)
async def test_a_malformed_if_match_is_a_400_and_changes_nothing(files_client: httpx.AsyncClient, header: str) -> None:
    client = files_client
    memory_id, _ = await add(client, "Ada deploys with Fabric")
    path = f"/memory/memories/{memory_id}"
    for answer in (
        await client.patch(path, headers=ADA | {"if-match": header}, json={"text": "changed"}),
        await client.delete(path, headers=ADA | {"if-match": header}),
        await client.post(f"{path}/restore", headers=ADA | {"if-match": header}, json={"version": 1}),
    ):
        assert answer.status_code == 400 and error_of(answer)["param"] == "If-Match"
    assert (await client.get(path, headers=ADA)).json()["version"] == 1


async def test_the_history_says_what_changed_when_and_by_whom(client: httpx.AsyncClient) -> None:
    memory_id, _ = await add(client, "Ada writes Go", scope="user")
    path = f"/memory/memories/{memory_id}"
    await client.patch(path, headers=ADA, json={"pinned": True})
    await client.patch(path, headers=ADA, json={"text": "Ada writes Go and Rust"})

    listed = await client.get(f"{path}/versions", headers=ADA)
    assert listed.status_code == 200 and listed.headers["etag"] == f'"{memory_id}.v3"'
    body = listed.json()
    assert (body["id"], body["deleted"], body["count"]) == (memory_id, False, 3)
    assert [(v["version"], v["change"], v["text"], v["pinned"]) for v in body["versions"]] == [
        (3, "edited", "Ada writes Go and Rust", True),
        (2, "pinned", "Ada writes Go", True),
        (1, "created", "Ada writes Go", False),
    ]
    assert {str(v["at"]).endswith("Z") for v in body["versions"]} == {True}
    assert [v["actor"] for v in body["versions"]] == [{"kind": "person", "via": "api"}] * 3
    assert (await client.get(f"{path}/versions", headers=BOB)).status_code == 404


async def test_restore_brings_a_deleted_memory_back_under_its_id(client: httpx.AsyncClient) -> None:
    memory_id, _ = await add(client, "Ada deploys with Fabric")
    path = f"/memory/memories/{memory_id}"
    await client.patch(path, headers=ADA, json={"text": "Ada deploys with Ansible"})
    assert (await client.delete(path, headers=ADA)).status_code == 200
    assert (await client.get(path, headers=ADA)).status_code == 404

    history = await client.get(f"{path}/versions", headers=ADA)
    assert history.json()["deleted"] is True and history.headers["etag"] == f'"{memory_id}.v3"'
    restored = await client.post(f"{path}/restore", headers=ADA | {"if-match": history.headers["etag"]},
                                 json={"version": 1})  # fmt: skip
    assert restored.status_code == 200 and restored.headers["etag"] == f'"{memory_id}.v4"'
    assert restored.json() == {"ok": True, "id": memory_id, "restored": 1, "memory": restored.json()["memory"]}
    assert restored.json()["memory"]["text"] == "Ada deploys with Fabric"
    listed = await client.get("/memory/memories", headers=ADA, params={"q": "Fabric"})
    assert [m["id"] for m in listed.json()["memories"]] == [memory_id]


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        ({}, 400, "version"),
        ({"version": "1"}, 400, "version"),
        ({"version": 0}, 400, "version"),
        ({"version": True}, 400, "version"),
        ({"version": 1.5}, 400, "version"),
        ({"version": 10**30}, 400, "version"),  # past what a JSON number holds here: read as a float
        ({"version": 2**40}, 404, "version"),
        ({"version": 7}, 404, "version"),
    ],
)
async def test_a_restore_of_a_version_that_is_not_there_is_refused(
    files_client: httpx.AsyncClient, body: dict[str, Any], status: int, param: str | None
) -> None:
    client = files_client
    memory_id, _ = await add(client, "Ada deploys with Fabric")
    answer = await client.post(f"/memory/memories/{memory_id}/restore", headers=ADA, json=body)
    assert answer.status_code == status and error_of(answer)["param"] == param
    missing = await client.post("/memory/memories/m-99999/restore", headers=ADA, json={"version": 1})
    assert missing.status_code == 404 and error_of(missing)["code"] == "memory_not_found"
    assert (await client.get(f"/memory/memories/{memory_id}", headers=ADA)).json()["version"] == 1


async def test_forget_all_leaves_no_version_to_list_or_restore(client: httpx.AsyncClient) -> None:
    memory_id, _ = await add(client, "Ada deploys with Fabric")
    gone, _ = await add(client, "Ada's laptop is a Mac")
    await client.patch(f"/memory/memories/{memory_id}", headers=ADA, json={"text": "Ada deploys with Ansible"})
    await client.delete(f"/memory/memories/{gone}", headers=ADA)

    assert (await client.post("/memory/forget-all", headers=ADA, json={"confirm": True})).status_code == 200
    for ident in (memory_id, gone):
        assert (await client.get(f"/memory/memories/{ident}/versions", headers=ADA)).status_code == 404
        restore = await client.post(f"/memory/memories/{ident}/restore", headers=ADA, json={"version": 1})
        assert restore.status_code == 404


async def test_a_held_memory_is_shown_to_its_person_with_its_history(client: httpx.AsyncClient) -> None:
    """A held memory comes from an untrusted session (stored here through the service, as the tool loop does)."""
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    services = transport.app.state.services  # type: ignore[attr-defined]
    from proxy.memory.caller import Identity
    from proxy.memory.provenance import untrusted_by

    held = await services.memory.add(
        Identity("ada"), {"text": "Deploy keys live in the vault"}, origin="tool", provenance=untrusted_by(["web"])
    )
    path = f"/memory/memories/{held.memory.id}"
    shown = await client.get(path, headers=ADA)
    assert shown.status_code == 200 and shown.json()["held"] is True
    assert (await client.post(f"{path}/approve", headers=ADA)).headers["etag"] == f'"{held.memory.id}.v2"'
    versions = (await client.get(f"{path}/versions", headers=ADA)).json()["versions"]
    assert [(v["change"], v["held"], v["actor"]["kind"]) for v in versions] == [
        ("approved", False, "person"),
        ("created", True, "model"),
    ]


async def test_in_keys_mode_a_change_names_the_key_that_made_it(tmp_path: Path) -> None:
    overrides = {"store.path": str(tmp_path), "auth.mode": "keys"}
    settings = load_settings(overrides={"upstream.base_url": "http://upstream.test/v1", **overrides})
    keys = build_key_store(settings)
    record, key = await create_key(keys, "ada", "personal")
    await keys.aclose()
    async for client in client_on(overrides):
        auth = {"x-memproxy-key": key}
        stored = await client.post("/memory/memories", headers=auth, json={"text": "Ada deploys with Fabric"})
        path = f"/memory/memories/{stored.json()['id']}"
        await client.patch(path, headers=auth, json={"text": "Ada deploys with Ansible"})
        versions = (await client.get(f"{path}/versions", headers=auth)).json()["versions"]
        assert [v["actor"] for v in versions] == [{"kind": "person", "key_id": record.id, "via": "api"}] * 2
        assert (await client.get(f"{path}/versions")).status_code == 401  # no key: nothing
