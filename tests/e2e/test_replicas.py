"""End to end: two memproxy replicas on one PostgreSQL, a client's requests spread over both.

The openai SDK -> replica A or B (each a real server on a socket) -> the fake upstream. What one replica does
(a memory stored, a session's block chosen, a mixed turn kept, a job queued) the other sees. Waits end on their
event (a memory injected, an episode settled, the other replica told of a change), never on a guess of how long
something takes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson
import pytest

from proxy.memory.block import BLOCK_TITLE
from proxy.testing import FakeUpstream, Reply, ToolCall, extraction_reply

from ..conftest import free_port, run_proxy
from .episode_client import (
    WAIT_S,
    Chat,
    Model,
    end,
    extraction_calls,
    fake,
    fake_server,
    memories,
    sessions,
    settled_episodes,
    the_session,
    wait_until,
)
from .memory_client import api, close_clients, remember, sdk, user, user_says
from .told import Told, run_replica

__all__ = ["close_clients", "user", "fake", "fake_server"]

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture
def told() -> Told:
    return Told()


@pytest.fixture
def replicas(fake_server: FakeUpstream, pg_dsn: str, told: Told) -> Iterator[tuple[str, str]]:
    """Two replicas on one new database, each with a data dir of its own (nothing shared but PostgreSQL)."""
    upstream, overrides = fake_server.base_url, {"store.backend": "postgres", "store.dsn": pg_dsn}
    with run_replica(upstream, overrides, told) as a, run_replica(upstream, overrides, told) as b:
        yield a, b


def chat(url: str, user: str, messages: list[dict[str, Any]], **headers: str) -> httpx.Response:
    response = httpx.post(
        f"{url}/chat/completions",
        json={"model": "fake-model", "messages": messages},
        headers={"X-Memory-User": user, "Authorization": "Bearer sk-test", **headers},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response


def injected(response: httpx.Response) -> list[str]:
    return [i for i in response.headers.get("x-memproxy-injected", "").split(",") if i]


def blocks(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m["content"]) for m in messages if str(m.get("content")).startswith(BLOCK_TITLE)]


# -- memories and blocks ----------------------------------------------------------------------------------------


def test_a_memory_stored_through_one_replica_is_injected_by_the_other(
    replicas: tuple[str, str], fake: FakeUpstream, user: str
) -> None:
    a, b = replicas
    chat(b, user, [{"role": "user", "content": "Which database runs staging?"}])  # B holds the user's view now
    stored = remember(a, user, "Staging runs Postgres 16")
    written = time.monotonic()

    def seen() -> bool:
        session = {"X-Memory-Session": uuid.uuid4().hex}  # a new session each time: a new block
        return stored in injected(
            chat(b, user, [{"role": "user", "content": "Which database runs staging?"}], **session)
        )

    wait_until(seen, "replica B to inject the memory stored through A")
    delay = time.monotonic() - written
    print(f"\nreplica consistency: B injected A's memory {delay * 1000:.0f} ms after A acknowledged it")  # noqa: T201 - reported


def test_a_ten_turn_session_alternating_replicas_sends_one_block_byte_for_byte(
    replicas: tuple[str, str], fake: FakeUpstream, user: str, told: Told
) -> None:
    for text in ("User deploys with Nomad", "User writes the billing service in Rust", "User's team is in Lisbon"):
        remember(replicas[0], user, text)
    messages: list[dict[str, Any]] = [SYSTEM]
    sent: list[list[dict[str, Any]]] = []
    for turn in range(10):
        if turn == 5:  # a memory that only a later turn finds: a note, made by one replica, re-sent by the other
            remember(replicas[1], user, "User's pager rotation starts on Mondays")
        question = "When does my pager rotation start?" if turn == 6 else f"Turn {turn}: how do I deploy billing?"
        messages.append({"role": "user", "content": question})
        told()  # the other replica has heard of the last turn (and of the memory)
        chat(replicas[turn % 2], user, messages)
        sent.append(fake.requests[-1].json["messages"])
        messages.append({"role": "assistant", "content": "ok"})

    (block,) = blocks(sent[0])
    assert "Nomad" in block
    for request in sent:
        assert blocks(request)[0] == block  # the same block, byte for byte, whichever replica sent it
    for before, after in zip(sent, sent[1:], strict=False):
        assert after[: len(before)] == before  # each request extends the last: the provider's cache keeps hitting
    assert any("pager rotation" in m for m in blocks(sent[6])[1:])  # the note, and every later request keeps it
    assert all(blocks(request)[1:] == blocks(sent[6])[1:] for request in sent[7:])


class TableLock:
    """A transaction holding ``table`` in EXCLUSIVE mode (reads go on, writes wait) until :meth:`release`."""

    def __init__(self, dsn: str, table: str) -> None:
        self.dsn, self.table = dsn, table
        self.locked, self._release = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._hold(),), daemon=True)
        self._thread.start()
        assert self.locked.wait(WAIT_S), "the lock was not taken"

    async def _hold(self) -> None:
        conn = await asyncpg.connect(self.dsn)
        try:
            async with conn.transaction():
                await conn.execute(f"LOCK TABLE {self.table} IN EXCLUSIVE MODE")
                self.locked.set()
                await asyncio.get_running_loop().run_in_executor(None, self._release.wait)
        finally:
            await conn.close()

    def writes_waiting(self) -> int:
        async def count() -> int:
            conn = await asyncpg.connect(self.dsn)
            try:
                query = f"%{self.table}%"  # a write of it (the first of a process sweeps expired rows first)
                sql = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1"
                return int(await conn.fetchval(sql, query))
            finally:
                await conn.close()

        return asyncio.run(count())

    def release(self) -> None:
        self._release.set()
        self._thread.join(WAIT_S)


def test_a_new_sessions_block_is_shared_while_the_upstream_works_and_the_answer_waits_for_it(
    fake_server: FakeUpstream, fake: FakeUpstream, pg_dsn: str, user: str
) -> None:
    """The write of a new conversation's block for the other replicas overlaps the upstream call (it held every new
    conversation back by a round trip), and the answer still goes out only once it is written."""
    overrides = {"store.backend": "postgres", "store.dsn": pg_dsn, "memory.store_deadline_ms": 60_000}
    with run_proxy(fake_server.base_url, overrides) as url:
        remember(url, user, "User deploys with Nomad")
        lock = TableLock(pg_dsn, "session_state")
        answered: list[httpx.Response] = []
        asking = threading.Thread(target=lambda: answered.append(chat(url, user, [SYSTEM, user_says()])))
        try:
            asking.start()
            wait_until(lock.writes_waiting, "the block's write to wait on the lock")
            wait_until(lambda: fake.requests, "the upstream to get the request while the block's write waits")
            assert lock.writes_waiting()  # the write still waits...
            assert not answered  # ...and so does the answer
        finally:
            lock.release()
            asking.join(WAIT_S)
    (response,) = answered
    assert "Nomad" in blocks(fake.requests[0].json["messages"])[0] and injected(response)


def test_a_mixed_turn_answered_by_one_replica_is_restored_by_the_other(
    replicas: tuple[str, str], fake: FakeUpstream, user: str, told: Told
) -> None:
    a, b = replicas
    messages: list[dict[str, Any]] = [{"role": "user", "content": "I live in Lisbon. Weather?"}]
    weather = ToolCall("get_weather", {"city": "Lisbon"}, id="call_weather")
    fake.reply(
        content=None, tool_calls=[ToolCall("memory_store", {"text": "User lives in Lisbon"}, id="call_mem"), weather]
    )
    first = sdk(a, user).chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
    assert [c.function.name for c in first.choices[0].message.tool_calls or ()] == ["get_weather"]

    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_weather", "content": "Sunny, 24C"},
    ]
    fake.reply(content="Sunny in Lisbon.")
    told()  # B has heard that A kept a turn of the session
    final = sdk(b, user).chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
    assert final.choices[0].message.content == "Sunny in Lisbon."
    sent = [m for m in fake.requests[-1].json["messages"] if m["role"] in ("assistant", "tool")]
    assert [c["id"] for c in sent[0]["tool_calls"]] == ["call_mem", "call_weather"]
    assert [m["tool_call_id"] for m in sent[1:]] == ["call_mem", "call_weather"]
    assert orjson.loads(sent[1]["content"])["ok"] is True and sent[2]["content"] == "Sunny, 24C"


def test_a_job_queued_on_one_replica_runs_exactly_once(
    replicas: tuple[str, str], fake: FakeUpstream, user: str
) -> None:
    a, b = replicas
    Model(fake, lambda transcript: extraction_reply("The user set up billing.", ["User's billing is in Rust"]))
    conversation = Chat(sdk(a, user), SYSTEM)
    for text in ("I am building a billing service.", "It is written in Rust.", "We deploy it with Nomad."):
        conversation.say(text)
    assert end(a, user, the_session(a, user)["id"])["extraction"]["state"] == "queued"
    (episode,) = settled_episodes(b, user)  # seen through the other replica: one store
    assert episode["facts"] == ["User's billing is in Rust"]
    assert [m["text"] for m in memories(b, user)] == ["User's billing is in Rust"]
    assert len(extraction_calls(fake)) == 1  # both replicas' workers polled; one claimed it


def test_users_stay_apart_through_both_replicas(replicas: tuple[str, str], fake: FakeUpstream, user: str) -> None:
    a, b = replicas
    other = f"other-{user}"
    mine = remember(a, user, "User's staging database password rotates weekly")
    ask = [{"role": "user", "content": "When does the staging database password rotate?"}]
    session = {"X-Memory-Session": "shared-name"}
    assert injected(chat(a, user, ask, **session)) == [mine]
    for url in (a, b):  # the same session name, another user: nothing of the first user's, block or memory
        response = chat(url, other, ask, **session)
        assert injected(response) == [] and blocks(fake.requests[-1].json["messages"]) == []
        assert memories(url, other) == []
    assert injected(chat(b, user, ask, **session)) == [mine]


def test_forget_all_on_one_replica_drops_the_session_block_on_the_other(
    replicas: tuple[str, str], fake: FakeUpstream, user: str, told: Told
) -> None:
    a, b = replicas
    remember(a, user, "User's staging database is Postgres 16")
    ask = [{"role": "user", "content": "Which staging database?"}]
    session = {"X-Memory-Session": "s1"}
    assert injected(chat(b, user, ask, **session))
    assert api(a, user, "POST", "/memory/forget-all", json={"confirm": True}).status_code == 200
    told()  # B has heard of the forget
    assert injected(chat(b, user, ask, **session)) == []
    assert blocks(fake.requests[-1].json["messages"]) == []


def test_forget_all_on_one_replica_leaves_nothing_on_the_other_and_a_continued_conversation_stays_forgotten(
    replicas: tuple[str, str], fake: FakeUpstream, user: str
) -> None:
    """B holds a live three-turn session, a kept hidden turn and history not yet written when forget-all runs on A:
    none of it comes back, there or anywhere, and a client that simply goes on re-sends it all for nothing."""
    a, b = replicas
    model = Model(fake, lambda transcript: extraction_reply("Zebra ships in May.", ["User's project is Zebra"]))
    client_b, client_a = sdk(b, user), sdk(a, user)
    messages: list[dict[str, Any]] = [SYSTEM]
    for text in ("My secret project is Zebra.", "It ships in May."):
        messages.append({"role": "user", "content": text})
        answer = client_b.chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
        messages.append(answer.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "user", "content": "Weather in Lisbon for the Zebra launch?"})
    store = ToolCall("memory_store", {"text": "User's project Zebra launches in Lisbon"}, id="call_mem")
    model.calls(store, ToolCall("get_weather", {"city": "Lisbon"}, id="call_weather"))
    mixed = client_b.chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
    messages.append(mixed.choices[0].message.model_dump(exclude_none=True))  # B keeps the memory_store part
    (live,) = sessions(b, user)
    assert live["turns"] == 3

    assert api(a, user, "POST", "/memory/forget-all", json={"confirm": True}).status_code == 200
    wait_until(lambda: sessions(b, user) == [], "replica B to drop the forgotten session")
    assert api(b, user, "POST", f"/memory/sessions/{live['id']}/end").status_code == 404

    messages.append({"role": "tool", "tool_call_id": "call_weather", "content": "Sunny, 24C"})
    model.chat.append(Reply("Sunny for the launch."))
    client_b.chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
    sent = fake.requests[-1].json["messages"]
    assert "call_mem" not in orjson.dumps(sent).decode()  # the forgotten hidden turn is not re-sent upstream
    messages += [{"role": "assistant", "content": "Sunny for the launch."}, {"role": "user", "content": "Thanks!"}]
    client_a.chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])

    for replica in (a, b):
        kept = api(replica, user, "GET", "/memory/export").text
        assert "Zebra" not in kept and "ships in May" not in kept and "Sunny, 24C" not in kept
        assert "Thanks!" in kept  # what was said after the forget is kept
        assert all(s["turns"] <= 1 for s in sessions(replica, user))  # the old turns are not counted again
        found = api(replica, user, "GET", "/memory/episodes").json()
        assert found["episodes"] == [] and found["jobs"] == []
    assert extraction_calls(fake) == []


# -- a replica killed mid-write ---------------------------------------------------------------------------------


def test_kill_9_of_a_replica_mid_write_loses_no_acknowledged_memory(
    replicas: tuple[str, str], fake: FakeUpstream, user: str, pg_dsn: str, tmp_path: Path
) -> None:
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    environ |= {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": pg_dsn}
    command = [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--upstream", fake.base_url]
    with open(tmp_path / "proxy.log", "wb") as log:
        process = subprocess.Popen(
            [*command, "--data-dir", str(tmp_path / "data")], stdout=log, stderr=subprocess.STDOUT, env=environ
        )
    try:
        url = f"http://127.0.0.1:{port}/v1"

        def healthy() -> bool:
            assert process.poll() is None, (tmp_path / "proxy.log").read_text()
            try:
                return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(healthy, "the replica process to listen")
        acknowledged: list[str] = []
        stop = threading.Event()

        def write() -> None:
            n = 0
            while not stop.is_set():
                n += 1
                try:
                    response = api(url, user, "POST", "/memory/memories", json={"text": f"Fact number {n} of {user}"})
                except httpx.TransportError:
                    return  # the replica is gone: this write was never acknowledged
                if response.status_code == 201:
                    acknowledged.append(response.json()["id"])

        writers = [threading.Thread(target=write) for _ in range(3)]
        for writer in writers:
            writer.start()
        wait_until(lambda: len(acknowledged) >= 30, "30 acknowledged writes")
        process.send_signal(signal.SIGKILL)  # while writes are in flight
        assert process.wait(timeout=10) == -signal.SIGKILL
        stop.set()
        for writer in writers:
            writer.join(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    exported = api(replicas[1], user, "GET", "/memory/export")
    assert exported.status_code == 200, exported.text
    lines = [orjson.loads(line) for line in exported.content.splitlines() if line.strip()]
    stored = {line["id"] for line in lines if line.get("kind") != "history"}
    assert set(acknowledged) <= stored  # every write the client heard back about, through the other replica
