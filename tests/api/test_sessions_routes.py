"""GET /memory/sessions and GET /memory/sessions/{id} in-process, on both backends: what a session was given and
why, its turns from history, past sessions beside live ones, pages, and that another user's session is a 404."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.services import Services

from .served import BACKENDS, chat, served, store_overrides

pytestmark = pytest.mark.anyio

ADA = {"x-memory-user": "ada"}
BOB = {"x-memory-user": "bob"}


@pytest.fixture(params=BACKENDS)
async def app(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[Services, httpx.AsyncClient]]:
    async with served(store_overrides(request.param, tmp_path, request)) as made:
        yield made


async def remember(client: httpx.AsyncClient, text: str, headers: dict[str, str] = ADA, **extra: Any) -> str:
    stored = await client.post("/memory/memories", json={"text": text, **extra}, headers=headers)
    assert stored.status_code == 201, stored.text
    return str(stored.json()["id"])


async def test_a_session_shows_its_block_with_why_and_its_turns(app) -> None:
    services, client = app
    port = await remember(client, "The staging database listens on port 6432")
    await remember(client, "User's daughter plays the violin")
    pin = await remember(client, "User's name is Ada", scope="user", pinned=True)
    sent = await chat(client, ADA, "Which port does the staging database use?", session="s1")
    assert sent.headers["x-memproxy-injected"] == f"{pin},{port}"

    response = await client.get("/memory/sessions/s1", headers=ADA)
    assert response.status_code == 200
    body = response.json()
    assert body["session"] | {"started_at": None, "last_seen": None} == {
        "id": "s1",
        "workspace": "default",
        "live": True,
        "state": "active",
        "turns": 1,
        "model": "m",
        "started_at": None,
        "last_seen": None,
        "tools": [],
        "untrusted": False,
        "sources": [],
    }
    entries = body["block"]["entries"]
    assert [(e["id"], e["kind"]) for e in entries] == [(pin, "pinned"), (port, "memory")]
    assert entries[0]["why"] == {"pinned": True}
    assert entries[1]["text"] == "The staging database listens on port 6432"
    assert entries[1]["why"]["terms"] == ["port", "stage", "databas"] and entries[1]["why"]["score"] > 0
    assert f"({port}, fact) The staging database listens on port 6432" in body["block"]["text"]
    assert body["notes"] == [] and body["episode"] is None
    assert [(t["turn"], t["role"], t["text"]) for t in body["turns"]] == [
        (1, "user", "Which port does the staging database use?")
    ]

    await chat(client, ADA, "Which port does the staging database use?", "And who plays the violin?", session="s1")
    body = (await client.get("/memory/sessions/s1", headers=ADA)).json()
    (note,) = body["notes"]
    assert note["before"] == 3 and note["text"].startswith("[Memories] More recalled")
    assert [(e["kind"], e["text"], e["why"]["terms"]) for e in note["entries"]] == [
        ("memory", "User's daughter plays the violin", ["play", "violin"])
    ]
    assert [(t["turn"], t["role"]) for t in body["turns"]] == [(1, "user"), (1, "assistant"), (2, "user")]


async def test_another_users_session_is_a_404_never_their_block(app) -> None:
    _, client = app
    await remember(client, "The staging database listens on port 6432")
    await chat(client, ADA, "Which port does the staging database use?", session="s1")
    for path in ("/memory/sessions/s1", "/memory/sessions/nope"):
        response = await client.get(path, headers=BOB)
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "session_not_found"
        assert "6432" not in response.text
    other = await client.get("/memory/sessions/s1", headers=ADA | {"x-memory-workspace": "other"})
    assert other.status_code == 404
    assert (await client.get("/memory/sessions", headers=BOB)).json()["sessions"] == []


async def test_an_ended_session_still_shows_its_turns_and_block(app) -> None:
    services, client = app
    memory = await remember(client, "The staging database listens on port 6432")
    await chat(client, ADA, "Which port does the staging database use?", session="s1")
    ended = await client.post("/memory/sessions/s1/end", headers=ADA)
    assert ended.status_code == 200

    body = (await client.get("/memory/sessions/s1", headers=ADA)).json()
    assert (body["session"]["live"], body["session"]["state"], body["session"]["turns"]) == (False, "ended", 1)
    assert body["session"]["model"] is None and body["session"]["started_at"] is not None
    assert [e["id"] for e in body["block"]["entries"]] == [memory]
    assert [t["role"] for t in body["turns"]] == ["user", "assistant"]  # its last answer, kept when it ended


async def test_past_and_live_sessions_are_listed_newest_first_in_pages(app) -> None:
    _, client = app
    for n in range(3):
        await chat(client, ADA, f"question number {n}", session=f"s{n}")
    assert (await client.post("/memory/sessions/s0/end", headers=ADA)).status_code == 200

    listed = (await client.get("/memory/sessions", headers=ADA)).json()
    assert [(s["id"], s["live"]) for s in listed["sessions"]] == [("s2", True), ("s1", True), ("s0", False)]
    assert listed["count"] == 3 and listed["next"] is None

    first = (await client.get("/memory/sessions", params={"limit": "2"}, headers=ADA)).json()
    assert [s["id"] for s in first["sessions"]] == ["s2", "s1"] and first["next"]
    rest = (await client.get("/memory/sessions", params={"limit": "2", "before": first["next"]}, headers=ADA)).json()
    assert [s["id"] for s in rest["sessions"]] == ["s0"] and rest["next"] is None

    live = (await client.get("/memory/sessions", params={"live": "true"}, headers=ADA)).json()
    ended = (await client.get("/memory/sessions", params={"live": "false"}, headers=ADA)).json()
    assert [s["id"] for s in live["sessions"]] == ["s2", "s1"] and [s["id"] for s in ended["sessions"]] == ["s0"]


@pytest.mark.parametrize(
    ("params", "param"),
    [({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"), ({"before": "not-a-cursor"}, "before"),
     ({"live": "maybe"}, "live")],
)  # fmt: skip
async def test_a_bad_page_parameter_is_a_400_naming_it(app, params: dict[str, str], param: str) -> None:
    _, client = app
    response = await client.get("/memory/sessions", params=params, headers=ADA)
    assert response.status_code == 400 and response.json()["error"]["param"] == param


async def test_a_block_another_replica_chose_is_shown_from_the_shared_state(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    overrides = store_overrides("postgres", tmp_path, request)
    async with served(overrides) as (replica, first), served(overrides) as (_, second):
        memory = await remember(first, "The staging database listens on port 6432")
        await chat(first, ADA, "Which port does the staging database use?", session="s1")
        assert replica.episodes.history is not None
        await replica.episodes.history.flush()  # history is written within a second: now, here
        body = (await second.get("/memory/sessions/s1", headers=ADA)).json()
        (entry,) = body["block"]["entries"]
        assert (entry["id"], entry["why"]["terms"]) == (memory, ["port", "stage", "databas"])
        assert [t["text"] for t in body["turns"]] == ["Which port does the staging database use?"]
        assert body["session"]["live"] is False  # live on the other replica, not on this one


async def test_a_memory_counts_the_sessions_it_was_injected_into(app) -> None:
    services, client = app
    port = await remember(client, "The staging database listens on port 6432")
    violin = await remember(client, "User's daughter plays the violin")

    async def counted() -> dict[str, tuple[int, bool]]:
        listed = (await client.get("/memory/memories", headers=ADA)).json()["memories"]  # flushes the counts first
        return {m["id"]: (m["injected_count"], m["last_injected"] is not None) for m in listed}

    assert await counted() == {port: (0, False), violin: (0, False)}
    question = "Which port does the staging database use?"
    await chat(client, ADA, question, session="s1")
    await chat(client, ADA, question, session="s1")  # the same block re-sent: no new injection
    assert await counted() == {port: (1, True), violin: (0, False)}
    await chat(client, ADA, question, "And who plays the violin?", session="s1")  # a note
    await chat(client, ADA, question, session="s2")  # another session's block
    assert await counted() == {port: (2, True), violin: (1, True)}
    memory = (await client.get("/memory/memories", params={"q": "staging port"}, headers=ADA)).json()["memories"][0]
    assert (memory["text"], memory["superseded_by"], memory["use_count"]) == (
        "The staging database listens on port 6432",
        None,
        0,
    )
