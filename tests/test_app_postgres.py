"""The app on a PostgreSQL store that goes away: chat requests go on without memory, memory writes get a 503.

The database is a server of the test's own, stopped under the running app (the session's server stays up).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest
import respx

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing.postgres import postgres_server

pytestmark = pytest.mark.anyio

BASE = "http://upstream.test/v1"
ADA = {"x-memory-user": "ada", "x-memory-workspace": "w"}
CHAT = {"model": "gpt-test", "messages": [{"role": "user", "content": "which database runs staging?"}]}
ANSWER = {"id": "chatcmpl-1", "object": "chat.completion", "choices": []}


async def test_a_database_that_goes_away_costs_chat_its_memory_and_writes_get_a_503() -> None:
    upstream = respx.Router(assert_all_called=False)
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json=ANSWER)
    with postgres_server(in_memory=True) as server:
        settings = load_settings(
            overrides={"upstream.base_url": BASE, "store.backend": "postgres", "store.dsn": server.dsn()}
        )
        services = build_services(settings, transport=httpx.MockTransport(upstream.async_handler))
        async with (
            services,
            httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
        ):
            stored = await client.post("/memory/memories", json={"text": "Staging runs Postgres 16"}, headers=ADA)
            assert stored.status_code == 201
            response = await client.post("/v1/chat/completions", json=CHAT, headers=ADA)
            assert response.status_code == 200 and response.headers["x-memproxy-injected"] == stored.json()["id"]

            server.stop()
            assert services.database is not None
            # Until the process has seen its connections go, a trusted cache serves what it holds.
            for _ in range(2000):
                if not services.database.listening:
                    break
                await asyncio.sleep(0.005)
            assert not services.database.listening, "the stopped server's connections still look alive"
            response = await client.post("/v1/chat/completions", json=CHAT, headers=ADA)
            assert response.status_code == 200 and response.headers["x-memproxy-memory"] == "unavailable"
            assert "x-memproxy-injected" not in response.headers
            assert route.call_count == 2
            refused = await client.post("/memory/memories", json={"text": "Production runs 15"}, headers=ADA)
            assert refused.status_code == 503
            assert refused.json()["error"]["code"] == "memory_store_unavailable"


def test_the_files_store_never_loads_the_postgresql_driver() -> None:
    code = (
        "import sys\n"
        "from proxy.cli import main\n"
        "from proxy.app import create_app\n"
        "from proxy.config import load_settings\n"
        "from proxy.services import build_services\n"
        "create_app(build_services(load_settings(overrides={'store.path': sys.argv[1]})))\n"
        "print(sorted(name for name in sys.modules if name.startswith('asyncpg')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, "/nonexistent-memproxy"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
