"""A NUL character (a `cat` of a binary file) on every write path of a real proxy, on both backends: nothing a
client sends with one is a 5xx, and a line that holds one never keeps the lines behind it out of history.

PostgreSQL refuses NUL in jsonb and text; the proxy stores it as U+FFFD there (the files store keeps it as it came).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from proxy.testing import FakeUpstream, ToolCall, extraction_reply

from ..conftest import run_proxy
from .episode_client import Chat, Model, fake, fake_server, settled_episodes, tool
from .memory_client import api, close_clients, sdk, user

__all__ = ["close_clients", "user", "fake", "fake_server"]

NUL = "\x00"
BINARY = f"ELF{NUL}{NUL}\x01\x02 header of a binary file, then more text" + " padding" * 40


@pytest.fixture(params=["files", "postgres"])
def proxy(request: pytest.FixtureRequest, fake_server: FakeUpstream) -> Iterator[str]:
    overrides: dict[str, Any] = {"context.offload_chars": 200}  # a long tool output becomes a detail record
    if request.param == "postgres":
        overrides |= {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn")}
    with run_proxy(fake_server.base_url, overrides) as url:
        yield url


def same(stored: str, sent: str) -> bool:
    """Kept as sent (files) or with each NUL as U+FFFD (PostgreSQL)."""
    return stored in (sent, sent.replace(NUL, "\ufffd"))


def test_a_nul_on_every_write_path_is_stored_and_never_a_5xx(proxy: str, fake: FakeUpstream, user: str) -> None:
    statuses: list[int] = []

    def call(method: str, path: str, **kwargs: Any) -> Any:
        response = api(proxy, user, method, path, **kwargs)
        statuses.append(response.status_code)
        assert response.status_code < 400, response.text
        return response.json()

    written = call("POST", "/memory/memories", json={"text": f"The build box has a {NUL} in its hostname"})
    assert same(written["memory"]["text"], f"The build box has a {NUL} in its hostname")
    lines = [{"text": f"Ada keeps{NUL}binary notes"}, {"text": "Ada drinks tea"}]
    imported = call("POST", "/memory/import", content=b"\n".join(orjson.dumps(line) for line in lines))
    assert len(imported["imported"]) == 2 and imported["errors"] == []

    model = Model(fake, extract=lambda transcript: extraction_reply(f"A session with a {NUL}.", [f"Fact{NUL}one"]))
    chat = Chat(sdk(proxy, user, **{"X-Memory-Session": "s-nul"}), tools=[tool("read_file")])
    model.calls(ToolCall("read_file", {"path": "a.out"}, id="call_read"))
    chat.say(f"Look at this: {NUL} what is it?")
    chat.tool_result(BINARY)
    chat.say("And the next one?")  # the offloaded output goes upstream as a reference from here on
    chat.say("Thanks, the zebra build is fine.")
    ended = call("POST", "/memory/sessions/s-nul/end")
    assert ended["extraction"] is not None

    [episode] = settled_episodes(proxy, user)
    assert same(episode["summary"], f"A session with a {NUL}.")
    found = call("GET", "/memory/history", params={"q": "zebra build"})["history"]
    assert any("zebra build" in line["text"] for line in found)  # the lines after the NUL ones were kept
    exported = api(proxy, user, "GET", "/memory/export")
    statuses.append(exported.status_code)
    kept = [orjson.loads(line) for line in exported.text.splitlines()]
    assert any(same(x.get("text", ""), f"Look at this: {NUL} what is it?") for x in kept if x.get("kind") == "history")
    memories = [m["text"] for m in call("GET", "/memory/memories", params={"limit": 50})["memories"]]
    assert any(same(text, f"Ada keeps{NUL}binary notes") for text in memories)
    assert all(status < 500 for status in statuses)
