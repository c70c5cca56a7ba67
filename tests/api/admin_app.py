"""An app in-process for the admin routes' tests: its settings, a store on either backend, keys made before it
starts, and a store filled with something of every kind for a user whose name needs URL-encoding."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from proxy.app import create_app
from proxy.auth.keys import create_key
from proxy.config import load_settings
from proxy.dialects.base import Call
from proxy.episodes.extraction import Answer
from proxy.episodes.jobs import new_job
from proxy.memory.details import Detail, detail_id
from proxy.memory.episodes import Episode, episode_id
from proxy.memory.provenance import TRUSTED, Provenance
from proxy.memory.records import MemoryDraft
from proxy.memory.store import GLOBAL, Owner
from proxy.services import Services, build_key_store, build_services

ADMIN_KEY = "admin-secret"
OPEN_ADMIN = {"x-memory-admin-key": ADMIN_KEY}
HELD = Provenance(True, ("web_fetch",))
ODD = "a/b c é"  # a user name holding a slash, a space and a non-ASCII letter
BOB = "bob"


class Stalled:
    """An extraction model that never answers: the job it was given stays running, as the queue shows."""

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def extract(self, messages: Any, **call: Any) -> Answer:  # every Extractor keyword (the format, the key)
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("never answers")

    async def aclose(self) -> None:
        pass


def upstream(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "Noted."}
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return httpx.Response(200, json=completion | {"choices": [choice]})


@dataclass
class App:
    services: Services
    client: httpx.AsyncClient
    keys: dict[str, str] = field(default_factory=dict)  # user -> their key, made before the app started
    key_ids: dict[str, str] = field(default_factory=dict)


@asynccontextmanager
async def running(overrides: dict[str, Any], keys: tuple[tuple[str, str], ...] = ()) -> AsyncIterator[App]:
    """The app over ``overrides`` (a store); ``keys``: (user, kind) pairs to create first."""
    settings = load_settings(
        overrides={"upstream.base_url": "http://upstream.test/v1", "memory.admin_key": ADMIN_KEY, **overrides}
    )
    made, ids = {}, {}
    if keys:
        store = build_key_store(settings)
        try:
            for user, kind in keys:
                record, key = await create_key(store, user, kind)
                made[user], ids[user] = key, record.id
        finally:
            await store.aclose()
    services = build_services(settings, transport=httpx.MockTransport(upstream), extractor=Stalled())
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        yield App(services, client, made, ids)


def as_user(user: str, workspace: str = "default", **more: str) -> dict[str, Any]:
    """Headers naming ``user`` (UTF-8: header values are bytes)."""
    return {"x-memory-user": user.encode(), "x-memory-workspace": workspace.encode(), **more}


def forget_path(user: str) -> str:
    return f"/memory/users/{quote(user, safe='')}/forget"


def error_code(response: httpx.Response) -> str | None:
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return error["code"]


async def add(app: App, user: str, workspace: str, text: str, **fields: Any) -> str:
    response = await app.client.post(
        "/memory/memories", json={"text": text, **fields}, headers=as_user(user, workspace) | OPEN_ADMIN
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def chat(app: App, user: str, workspace: str, session: str, turns: int) -> None:
    messages: list[dict[str, str]] = []
    for turn in range(turns):
        messages = [*messages, {"role": "user", "content": f"question {turn} about the deploy"}]
        response = await app.client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": messages},
            # with a key of the client's own, as a real client sends: the user's queued job is extracted with it
            headers=as_user(user, workspace, **{"x-memory-session": session, "authorization": "Bearer sk-client"}),
        )
        assert response.status_code == 200, response.text
        messages.append({"role": "assistant", "content": "Noted."})


def episode(user: str, workspace: str, session: str, provenance: Provenance = TRUSTED) -> Episode:
    return Episode(
        episode_id(user, workspace, session), session, user, workspace, 3, time.time(), "A session.", (), provenance
    )


async def fill(app: App) -> None:
    """Something of every kind for ODD (two workspaces and user-wide) and a little for BOB.

    ODD: default holds 3 live memories (one pinned), 1 superseded, 1 held, 1 episode, a running extraction job, a
    live session with its history, 1 offloaded tool output; w2 holds 1 memory, 1 held episode and 1 kept hidden
    turn; 1 user-wide memory. BOB: 1 memory and 1 held memory in default, and some history. Global: 1 held memory.
    """
    services = app.services
    store, episodes = services.memory.store, services.memory.episodes
    assert episodes is not None and services.memory.details is not None
    await add(app, ODD, "default", "Drinks green tea every morning")
    await add(app, ODD, "default", "Edits code in vim", pinned=True)
    old = await store.add(Owner(ODD, "default"), MemoryDraft("The office is in Berlin"), max_total=100)
    await store.add(Owner(ODD, "default"), MemoryDraft("The office is in Lisbon"), max_total=100, supersedes=[old.id])
    await store.add(Owner(ODD, "default"), MemoryDraft("Visited example.com", provenance=HELD), max_total=100)
    await add(app, ODD, "w2", "Deploys with Nomad")
    await add(app, ODD, "w2", "Prefers dark mode", scope="user")
    await episodes.put(Owner(ODD, "default"), episode(ODD, "default", "s0"))
    await episodes.put(Owner(ODD, "w2"), episode(ODD, "w2", "s8", HELD))
    job = new_job(user=ODD, workspace="default", session_id="s7", model=None, turns=3, transcript="user: hi",
                  untrusted=False, sources=(), now=time.time())  # fmt: skip
    await services.episodes.jobs.put(job)
    services.episodes.wake()
    await chat(app, ODD, "default", "s1", turns=2)
    owner = Owner(ODD, "default")
    await services.memory.details.put(
        owner, [Detail(detail_id(owner, "a long tool output"), "read_file", "{}", "a long tool output", time.time())]
    )
    services.hidden_turns.keep_calls((ODD, "w2"), "s9", ["c1", "h1"], [Call("h1", "memory_search", "{}")], ["{}"])
    await services.hidden_turns.flush()
    await add(app, BOB, "default", "Bob deploys on Fridays")
    await store.add(Owner(BOB, "default"), MemoryDraft("Bob read a web page", provenance=HELD), max_total=100)
    await chat(app, BOB, "default", "b1", turns=1)
    await store.add(GLOBAL, MemoryDraft("The wiki says so", scope="global", provenance=HELD), max_total=100)
