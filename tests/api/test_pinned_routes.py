"""Pinned facts over the management API: pinning, the caps and duplicates as 409s in OpenAI's shape, listing, edits."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services

ADA = {"x-memory-user": "ada"}
BOB = {"x-memory-user": "bob"}

pytestmark = pytest.mark.anyio


def upstream(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "ok"}
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    return httpx.Response(
        200, json=completion | {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    )


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    overrides = {
        "upstream.base_url": "http://upstream.test/v1",
        "store.path": str(tmp_path),
        "memory.pinned_user_chars": 100,
        "memory.pinned_env_chars": 50,
    }
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(upstream))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        yield c


async def pin(client: httpx.AsyncClient, text: str, scope: str = "workspace", **fields: Any) -> httpx.Response:
    return await client.post(
        "/memory/memories", json={"text": text, "scope": scope, "pinned": True, **fields}, headers=ADA
    )


def error_of(response: httpx.Response) -> dict[str, Any]:
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


async def test_a_pin_is_stored_and_listed_by_place_with_its_cap(client: httpx.AsyncClient) -> None:
    profile = await pin(client, "Ada is a backend engineer", "user")
    environment = await pin(client, "Deploys go to Fly.io")
    assert profile.status_code == environment.status_code == 201
    assert profile.json()["memory"]["pinned"] is True
    listed = (await client.get("/memory/pinned", headers=ADA)).json()
    assert listed["user"] == {
        "cap": 100,
        "setting": "memory.pinned_user_chars",
        "chars": len("Ada is a backend engineer"),
        "memories": [profile.json()["memory"]],
    }
    assert [m["id"] for m in listed["workspace"]["memories"]] == [environment.json()["id"]]
    assert listed["workspace"]["cap"] == 50
    other = (await client.get("/memory/pinned", headers=BOB)).json()
    assert other["user"]["memories"] == other["workspace"]["memories"] == []


async def test_a_pin_past_its_cap_is_a_409_that_names_the_cap_and_stores_nothing(client: httpx.AsyncClient) -> None:
    assert (await pin(client, "Deploys go to Fly.io from the main branch")).status_code == 201  # 41 of 50
    refused = await pin(client, "The repo uses Python 3.11")
    assert refused.status_code == 409
    error = error_of(refused)
    assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", "pinned_cap_exceeded", "text")
    assert "memory.pinned_env_chars" in str(error["message"]) and "50 characters" in str(error["message"])
    assert "replace or remove" in str(error["message"]).lower()
    memories = (await client.get("/memory/memories", headers=ADA)).json()["memories"]
    assert [m["text"] for m in memories] == ["Deploys go to Fly.io from the main branch"]


async def test_a_duplicate_pin_is_a_409(client: httpx.AsyncClient) -> None:
    first = await pin(client, "Ada is a backend engineer", "user")
    again = await pin(client, "ada is a  backend engineer", "user")
    assert again.status_code == 409
    error = error_of(again)
    assert error["code"] == "duplicate_pin" and first.json()["id"] in str(error["message"])


@pytest.mark.parametrize(
    ("fields", "param"),
    [({"scope": "session"}, "scope"), ({"scope": "global"}, "scope"), ({"pinned": "yes"}, "pinned")],
)
async def test_a_pin_where_none_can_be_is_a_400(client: httpx.AsyncClient, fields: dict[str, Any], param: str) -> None:
    headers = ADA | {"x-memory-session": "s1"}
    body = {"text": "A fact", "pinned": True} | fields
    refused = await client.post("/memory/memories", json=body, headers=headers)
    assert refused.status_code == 400 and error_of(refused)["param"] == param


async def test_patch_edits_a_pin_in_place_unpins_it_and_holds_the_cap(client: httpx.AsyncClient) -> None:
    memory_id = (await pin(client, "Deploys go to Fly.io")).json()["id"]
    path = f"/memory/memories/{memory_id}"
    edited = await client.patch(path, json={"text": "Deploys go to Fly.io from main"}, headers=ADA)
    assert edited.status_code == 200, edited.text
    assert edited.json()["memory"]["text"] == "Deploys go to Fly.io from main" and edited.json()["id"] == memory_id
    too_long = await client.patch(
        path, json={"text": "Deploys go to Fly.io from main, tagged releases only"}, headers=ADA
    )
    assert too_long.status_code == 409 and error_of(too_long)["code"] == "pinned_cap_exceeded"
    unpinned = await client.patch(path, json={"pinned": False}, headers=ADA)
    assert unpinned.json()["memory"]["pinned"] is False
    assert (await client.get("/memory/pinned", headers=ADA)).json()["workspace"]["memories"] == []
    pinned_again = await client.patch(path, json={"pinned": True}, headers=ADA)
    assert pinned_again.json()["memory"]["pinned"] is True


async def test_patch_refuses_what_it_cannot_change_and_other_users_memories(client: httpx.AsyncClient) -> None:
    memory_id = (await pin(client, "Deploys go to Fly.io")).json()["id"]
    path = f"/memory/memories/{memory_id}"
    scoped = await client.patch(path, json={"scope": "user"}, headers=ADA)
    assert scoped.status_code == 400 and error_of(scoped)["param"] == "scope"
    secret = await client.patch(path, json={"text": "password: hunter2hunter2"}, headers=ADA)
    assert secret.status_code == 400 and "hunter2" not in secret.text
    assert (await client.patch(path, json={"text": "Bob's now"}, headers=BOB)).status_code == 404
    assert (await client.patch("/memory/memories/m-999", json={"pinned": False}, headers=ADA)).status_code == 404
    assert (await client.patch(path, content=b"[1]", headers=ADA)).status_code == 400
    kept = (await client.get("/memory/pinned", headers=ADA)).json()["workspace"]["memories"]
    assert [m["text"] for m in kept] == ["Deploys go to Fly.io"]


async def test_a_pinned_fact_opens_the_block_and_the_header_counts_it(client: httpx.AsyncClient) -> None:
    await client.post("/memory/memories", json={"text": "Ada prefers tabs for indentation"}, headers=ADA)
    memory_id = (await pin(client, "Ada is a backend engineer", "user")).json()["id"]
    body = {"model": "m", "messages": [{"role": "user", "content": "How should I indent?"}]}
    response = await client.post("/v1/chat/completions", json=body, headers=ADA)
    assert response.headers["x-memproxy-pinned"] == "1"
    assert response.headers["x-memproxy-injected"].split(",")[0] == memory_id


async def test_export_and_import_keep_pins(client: httpx.AsyncClient) -> None:
    await pin(client, "Ada is a backend engineer", "user")
    exported = (await client.get("/memory/export", headers=ADA)).content
    imported = await client.post("/memory/import", content=exported, headers=BOB)
    assert imported.json()["ok"] is True
    listed = (await client.get("/memory/pinned", headers=BOB)).json()
    assert [m["text"] for m in listed["user"]["memories"]] == ["Ada is a backend engineer"]
    again = await client.post("/memory/import", content=exported, headers=BOB)  # the same pin again: left as it is
    assert again.json()["imported"] == [] and again.json()["errors"] == []
    assert again.json()["unchanged"] == [m["id"] for m in listed["user"]["memories"]]
