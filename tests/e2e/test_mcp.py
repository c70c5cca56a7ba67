"""End to end: memproxy as an MCP server, driven by the official ``mcp`` SDK's own client.

Streamable HTTP at ``/mcp`` on a real proxy in ``auth.mode: keys`` (both backends), and ``memproxy mcp`` over stdio
(from that proxy with ``--url``, and from a store directly). What the tools write is the user's memory everywhere:
the next chat request through the proxy carries it in its block; another user's key sees none of it; a missing or
revoked key is refused; a secret is refused.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import orjson
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from proxy.app import create_app
from proxy.auth.keys import create_key
from proxy.cli import main
from proxy.config import load_settings
from proxy.mcp.local import NOTHING_YET
from proxy.memory.backends.key_files import FilesKeys
from proxy.memory.backends.pg_keys import PostgresKeys
from proxy.memory.backends.postgres import Database
from proxy.memory.block import BLOCK_TITLE
from proxy.memory.keys import KeyStore
from proxy.services import build_services
from proxy.testing import FakeUpstream
from proxy.testing.postgres import PostgresServer
from proxy.tools.memory_tools import SCHEMAS

from ..conftest import run_proxy

ROOT = Path(__file__).resolve().parents[2]
TABS = "User indents Python with tabs"
SECRET = "the deploy password: hunter2hunter2"


class Keyed:
    """A proxy in keys mode and an admin key of its store."""

    def __init__(self, url: str, admin: str) -> None:
        self.url = url
        self.root = url.removesuffix("/v1")
        self.admin = admin

    def key(self, user: str) -> tuple[str, str]:
        made = httpx.post(f"{self.root}/memory/keys", json={"user": user}, headers={"X-Memproxy-Key": self.admin})
        assert made.status_code == 201, made.text
        return made.json()["id"], made.json()["key"]


@pytest.fixture(scope="module", params=["files", "postgres"])
def keyed(request: pytest.FixtureRequest, fake_upstream_server: FakeUpstream, tmp_path_factory: Any) -> Iterator[Keyed]:
    overrides: dict[str, Any] = {"auth.mode": "keys"}
    store: KeyStore
    if request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("postgres")
        dsn = postgres.create_database()
        overrides |= {"store.backend": "postgres", "store.dsn": dsn}
        store = PostgresKeys(Database(dsn))
    else:
        data_dir = tmp_path_factory.mktemp("keyed")
        overrides["store.path"] = str(data_dir)
        store = FilesKeys(data_dir)

    async def admin() -> str:
        try:
            return (await create_key(store, "root", "admin"))[1]
        finally:
            await store.aclose()

    key = asyncio.run(admin())
    with run_proxy(fake_upstream_server.base_url, overrides) as url:
        yield Keyed(url, key)


@asynccontextmanager
async def connected(url: str, **headers: str) -> AsyncIterator[Client]:
    """The SDK's own client on memproxy's /mcp, with these headers on every request."""
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url.removesuffix("/v1") + "/mcp", http_client=http)) as client,
    ):
        yield client


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def call(client: Client, name: str, **arguments: Any) -> tuple[dict[str, Any], bool]:
    result = await client.call_tool(name, arguments)
    [content] = result.content
    return orjson.loads(content.text), bool(result.is_error)  # type: ignore[union-attr]


def chat_block(url: str, key: str, fake: FakeUpstream) -> str | None:
    """The memory block a new chat session of the key's user gets through the proxy."""
    fake.reply(content="ok")
    client = openai.OpenAI(base_url=url, api_key="sk-provider", max_retries=0, default_headers={"X-Memproxy-Key": key})
    try:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "How do I indent Python?"}])
    finally:
        client.close()
    blocks = [m["content"] for m in fake.requests[-1].json["messages"] if str(m["content"]).startswith(BLOCK_TITLE)]
    return blocks[0] if blocks else None


def mcp_status(url: str, headers: dict[str, str]) -> int:
    """A bare tools/list over HTTP, as any host sends it: its status."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18", **headers}
    return httpx.post(url.removesuffix("/v1") + "/mcp", json=body, headers=sent, timeout=10).status_code


# -- streamable HTTP ------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_tools_are_the_hidden_tools_with_the_resources_and_a_prompt(keyed: Keyed) -> None:
    _, key = keyed.key("ada")
    async with connected(keyed.url, **bearer(key)) as client:
        tools = (await client.list_tools()).tools
        assert {tool.name: tool.input_schema for tool in tools} == {n: s.parameters for n, s in SCHEMAS.items()}
        assert all(tool.description for tool in tools)
        resources = (await client.list_resources()).resources
        assert sorted(str(r.uri) for r in resources) == ["memory://block", "memory://pinned"]
        [prompt] = (await client.list_prompts()).prompts
        text = (await client.get_prompt(prompt.name)).messages[0].content.text  # type: ignore[union-attr]
        assert "memory_store" in text and "memory://block" in text and "never secrets" in text.lower()


@pytest.mark.anyio
async def test_what_a_host_stores_reaches_the_users_chat_and_no_one_elses(
    keyed: Keyed, fake_upstream: FakeUpstream
) -> None:
    ada_id, ada = keyed.key("ada-" + os.urandom(3).hex())
    _, bob = keyed.key("bob-" + os.urandom(3).hex())
    async with connected(keyed.url, **bearer(ada)) as client:
        stored, failed = await call(client, "memory_store", text=TABS, pin=True, scope="user")
        assert not failed and stored["ok"] and stored["pinned"]
        other, _ = await call(client, "memory_store", text="The staging database is Postgres 16")
        found, _ = await call(client, "memory_search", query="staging database")
        assert [m["id"] for m in found["memories"]] == [other["id"]]
        history, failed = await call(client, "memory_search", source="history", query="indent")
        assert not failed and history["count"] == 0
        retrieved, _ = await call(client, "memory_retrieve", id=stored["id"])
        assert retrieved["text"] == TABS
        pinned = orjson.loads((await client.read_resource("memory://pinned")).contents[0].text)  # type: ignore[union-attr]
        assert [m["text"] for m in pinned["user"]["memories"]] == [TABS]
        block = (await client.read_resource("memory://block")).contents[0].text  # type: ignore[union-attr]
        assert block.startswith(BLOCK_TITLE) and TABS in block

    chat = chat_block(keyed.url, ada, fake_upstream)
    assert chat is not None and f"({stored['id']}, fact) {TABS}" in chat

    versions = httpx.get(
        f"{keyed.root}/memory/memories/{stored['id']}/versions", headers={"X-Memproxy-Key": ada}
    ).json()["versions"]
    assert versions[-1]["actor"] == {"kind": "person", "key_id": ada_id, "via": "mcp"}
    listed = httpx.get(f"{keyed.root}/memory/memories", headers={"X-Memproxy-Key": ada}).json()["memories"]
    assert {m["origin"] for m in listed} == {"mcp"}

    async with connected(keyed.url, **bearer(bob)) as client:
        found, _ = await call(client, "memory_search", query="tabs staging")
        assert found["count"] == 0
        gone, failed = await call(client, "memory_delete", id=stored["id"])
        assert failed and gone["ok"] is False
        assert (await client.read_resource("memory://block")).contents[0].text == NOTHING_YET  # type: ignore[union-attr]
    assert chat_block(keyed.url, bob, fake_upstream) is None


@pytest.mark.anyio
async def test_a_secret_is_refused_and_nothing_is_stored(keyed: Keyed) -> None:
    _, key = keyed.key("carol-" + os.urandom(3).hex())
    async with connected(keyed.url, **bearer(key)) as client:
        refused, failed = await call(client, "memory_store", text=SECRET)
        assert failed and refused == {
            "ok": False,
            "error": "text appears to contain a secret (a password) - not stored",
        }
        found, _ = await call(client, "memory_search")
        assert found["count"] == 0


def test_a_missing_wrong_or_revoked_key_is_refused_within_a_second(keyed: Keyed) -> None:
    key_id, key = keyed.key("dave")
    assert mcp_status(keyed.url, bearer(key)) == 200
    for headers in ({}, bearer("mp-" + "x" * 32)):
        answer = httpx.post(keyed.root + "/mcp", json={}, headers=headers)
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_api_key"
        assert answer.headers["www-authenticate"].startswith("Bearer")
    assert mcp_status(keyed.url, {"X-Memproxy-Key": key}) == 200  # the API's other ways to send a key
    assert mcp_status(keyed.url, {**bearer(key), "X-Memory-User": "erin"}) == 403  # a personal key is its user's

    revoked = httpx.delete(f"{keyed.root}/memory/keys/{key_id}", headers={"X-Memproxy-Key": keyed.admin})
    assert revoked.status_code == 200
    deadline = time.monotonic() + 1.0
    while (status := mcp_status(keyed.url, bearer(key))) != 401:
        assert status == 200 and time.monotonic() < deadline, "/mcp still takes the revoked key"
        time.sleep(0.02)


def test_held_writes_wait_for_approval(fake_upstream: FakeUpstream) -> None:
    with run_proxy(fake_upstream.base_url, {"mcp.writes": "held"}) as url:

        async def store() -> dict[str, Any]:
            async with connected(url, **{"X-Memory-User": "ada"}) as client:
                stored, _ = await call(client, "memory_store", text=TABS)
                await call(client, "memory_store", text="Ada prefers dark mode")
                return stored

        stored = asyncio.run(store())
        assert stored["held"] and "mcp.writes" in stored["note"]
        root = url.removesuffix("/v1")
        assert httpx.get(f"{root}/memory/memories", headers={"X-Memory-User": "ada"}).json()["count"] == 0
        held = httpx.get(f"{root}/memory/memories", params={"held": "true"}, headers={"X-Memory-User": "ada"})
        assert [m["text"] for m in held.json()["memories"]] == ["Ada prefers dark mode", TABS]


def test_open_mode_serves_this_machine_only_and_needs_a_user(fake_upstream: FakeUpstream) -> None:
    with run_proxy(fake_upstream.base_url) as url:
        assert mcp_status(url, {"X-Memory-User": "ada"}) == 200
        assert mcp_status(url, {}) == 401  # whose memory?
        assert mcp_status(url, {"X-Memory-User": "ada", "Host": "memory.evil.example"}) == 403  # DNS rebinding


@pytest.mark.anyio
async def test_open_mode_refuses_a_peer_from_elsewhere(tmp_path: Path) -> None:
    services = build_services(load_settings(overrides={"store.path": str(tmp_path)}))
    transport = httpx.ASGITransport(create_app(services), client=("203.0.113.7", 40000))
    async with services, httpx.AsyncClient(transport=transport, base_url="http://localhost:8787") as client:
        answer = await client.post("/mcp", json={}, headers={"X-Memory-User": "ada"})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "loopback_only"


LAZY = """
import sys, tempfile, httpx, asyncio
from proxy.app import create_app
from proxy.config import load_settings
from proxy.mcp.http import McpEndpoint
from proxy.services import build_services

started = []
run = McpEndpoint._run

async def recorded(self, ready):
    started.append(True)  # in the event loop, as the task starts: before the imports it would run in a thread
    await run(self, ready)

McpEndpoint._run = recorded

async def main():
    services = build_services(load_settings(overrides={"store.path": tempfile.mkdtemp()}))
    app = create_app(services)
    async with app.router.lifespan_context(app):  # the app's lifespan opens the services
        transport = httpx.ASGITransport(app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8787") as client:
            assert (await client.get("/healthz")).status_code == 200
            await client.post("/v1/chat/completions", json={})  # a chat request (a 400: no model)
            await asyncio.sleep(0)  # the loop turns once: a task started with the lifespan has begun by now
            print("before", bool(started) or "mcp.server.lowlevel" in sys.modules)
            ready = await client.post("/mcp", json={}, headers={"X-Memory-User": "ada"})
            print("after", bool(started) and "mcp.server.lowlevel" in sys.modules, ready.status_code)

asyncio.run(main())
"""


def test_a_proxy_loads_the_mcp_sdk_when_a_host_first_calls_not_before() -> None:
    """The SDK's imports cost a second of CPU: loaded at start-up in the background, they took it from the chat
    requests of the proxy's first seconds (about 300 us each over a benchmark's first 3,000)."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert before == "before False"
    assert after.startswith("after True") and not after.endswith("500")


# -- stdio ----------------------------------------------------------------------------------------------------


def stdio(*args: str) -> StdioServerParameters:
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=["-m", "proxy", "mcp", *args], env=env, cwd=str(ROOT))


@pytest.mark.anyio
async def test_memproxy_mcp_over_stdio_serves_a_running_proxys_memory(
    keyed: Keyed, fake_upstream: FakeUpstream
) -> None:
    _, key = keyed.key("frank-" + os.urandom(3).hex())
    async with Client(stdio("--url", keyed.url, "--key", key)) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == set(SCHEMAS)
        stored, failed = await call(client, "memory_store", text=TABS, pin=True, scope="user")
        assert not failed and stored["pinned"]
        found, _ = await call(client, "memory_search", query="tabs")
        assert [m["id"] for m in found["memories"]] == [stored["id"]]
        refused, failed = await call(client, "memory_store", text=SECRET)
        assert failed and not refused["ok"]
    assert TABS in (chat_block(keyed.url, key, fake_upstream) or "")


@pytest.mark.anyio
async def test_memproxy_mcp_over_stdio_serves_a_store_directly(tmp_path: Path) -> None:
    async with Client(stdio("--data-dir", str(tmp_path), "--user", "ada")) as client:
        stored, _ = await call(client, "memory_store", text=TABS, pin=True, scope="user")
        block = (await client.read_resource("memory://block")).contents[0].text  # type: ignore[union-attr]
        assert TABS in block
    async with Client(stdio("--data-dir", str(tmp_path), "--user", "bob")) as client:
        found, _ = await call(client, "memory_search", query="tabs")
        assert found["count"] == 0
    listing = ["memories", "list", "--data-dir", str(tmp_path), "--user", "ada", "--json"]
    shown = await asyncio.to_thread(CliRunner().invoke, main, listing)  # the CLI runs its own event loop
    assert shown.exit_code == 0, shown.output
    assert [(m["id"], m["origin"]) for m in orjson.loads(shown.output)["memories"]] == [(stored["id"], "mcp")]


def test_memproxy_mcp_says_in_one_line_what_is_wrong(tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    both = [sys.executable, "-m", "proxy", "mcp", "--url", "http://127.0.0.1:9", "--data-dir", str(tmp_path)]
    done = subprocess.run(both, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "one or the other" in done.stderr
    nobody = [sys.executable, "-m", "proxy", "mcp", "--data-dir", str(tmp_path)]
    done = subprocess.run(nobody, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, input="")
    assert done.returncode == 2 and "--user" in done.stderr
    unreachable = [sys.executable, "-m", "proxy", "mcp", "--url", "http://127.0.0.1:9"]
    done = subprocess.run(unreachable, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, input="")
    assert done.returncode == 2 and done.stderr.startswith("memproxy: cannot reach memproxy's MCP server")
