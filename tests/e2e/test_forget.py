"""Forget-all deletes a user's data everywhere memproxy keeps it, proven by looking at the store afterwards."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from proxy.testing import FakeUpstream, Reply, ToolCall, extraction_reply, is_extraction

from .episode_client import (
    Chat,
    Model,
    end,
    episodes,
    fake,
    fake_server,
    proxy_on,
    sessions,
    settled_episodes,
    tool,
    transcript_of,
    wait_until,
)
from .memory_client import api, close_clients, remember, sdk

__all__ = ["close_clients", "fake", "fake_server"]

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
MEMORY = "User keeps a pet axolotl named Bartholomew"
FACT = "User's billing service is written in Rust"
GRACE = "User keeps a cat named Ada Lovelace"


def files_mentioning(root: Path, *needles: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.relative_to(root)}: {needle}" for needle in needles if needle.encode() in data]
    return found


def test_forget_all_leaves_nothing_of_the_user_in_the_store_or_in_the_proxy(fake: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data"
    extraction = {"answer": extraction_reply("The user builds a billing service.", [FACT])}
    model = Model(fake, extract=lambda transcript: extraction["answer"])
    with proxy_on(data, fake.base_url) as url:
        remember(url, "ada", MEMORY)
        remember(url, "ada", "User prefers tabs over spaces", scope="user")
        remember(url, "grace", GRACE)  # another user: untouched

        done = Chat(sdk(url, "ada"), SYSTEM)
        for text in ("I am building a billing service.", "It is written in Rust.", "We deploy it with Nomad."):
            done.say(text)
        end(url, "ada", sessions(url, "ada")[0]["id"])
        settled_episodes(url, "ada")  # an episode on disk, and its fact stored as a memory

        extraction["answer"] = Reply("this is not the JSON object asked for")  # the next job stays pending
        pending = Chat(sdk(url, "ada", **{"X-Memory-Session": "pending-one"}), SYSTEM)
        for text in ("Tell me about Bartholomew.", "He is an axolotl.", "He likes worms."):
            pending.say(text)
        end(url, "ada", "pending-one")
        wait_until(lambda: episodes(url, "ada")["jobs"] and episodes(url, "ada")["jobs"][0]["attempts"], "a failed try")

        mixed = Chat(sdk(url, "ada", **{"X-Memory-Session": "live-one"}), SYSTEM, tools=[tool("get_time")])
        model.chat.append(Reply(None, [ToolCall("memory_search", {"query": "axolotl"}), ToolCall("get_time", {})]))
        mixed.say("What time is it, and what is my pet's name?")  # a kept hidden turn and a live session

        answer = api(url, "ada", "POST", "/memory/forget-all", json={"confirm": True})
        assert answer.status_code == 200, answer.text
        forgotten = answer.json()["forgotten"]
        assert forgotten.pop("history") >= 7  # what the three sessions said: six turns, the answers, the tool call
        assert forgotten == {"sessions": 1, "jobs": 1, "episodes": 1}
        assert files_mentioning(data, "Bartholomew", FACT, "billing service", "pending-one", "live-one") == []
        assert api(url, "ada", "GET", "/memory/history", params={"q": "Nomad"}).json()["count"] == 0

        assert api(url, "ada", "GET", "/memory/memories").json()["count"] == 0
        assert episodes(url, "ada") == {"count": 0, "episodes": [], "jobs": []}
        assert sessions(url, "ada") == []
        fake.requests.clear()
        mixed.tool_result("12:00")  # the follow-up goes as the client wrote it: the kept turn is gone
        follow_up = fake.requests[-1].json["messages"]
        assert not any("memory_search" in str(m.get("tool_calls")) for m in follow_up)

        assert api(url, "grace", "GET", "/memory/memories").json()["count"] == 1
    # The follow-up came after the forget: it is new history of the session it names, nothing older.
    assert files_mentioning(data, "Bartholomew", FACT, "billing service", "pending-one") == []
    assert len(files_mentioning(data, GRACE)) == 1  # grace's memories stay


def test_a_conversation_continued_after_forget_all_stays_forgotten_even_after_a_restart(
    fake: FakeUpstream, tmp_path: Path
) -> None:
    """Clients re-send the whole conversation on every turn: what came before the forget is never kept again."""
    data = tmp_path / "data"
    model = Model(fake, extract=lambda transcript: extraction_reply("Docs were written.", ["User writes docs"]))
    with proxy_on(data, fake.base_url) as url:
        chat = Chat(sdk(url, "ada"), SYSTEM)
        for text in ("I am building a billing service.", "It is written in Rust.", "We deploy it with Nomad."):
            chat.say(text)
        assert api(url, "ada", "POST", "/memory/forget-all", json={"confirm": True}).status_code == 200
        chat.say("Now about the docs.")
        assert [s["turns"] for s in sessions(url, "ada")] == [1]
    with proxy_on(data, fake.base_url) as url:  # a restart knows the mark: it is in the store
        chat.client = sdk(url, "ada")
        chat.say("They go in the wiki.")
        chat.say("That is all.")
        (session,) = sessions(url, "ada")
        assert session["turns"] == 2
        chat.say("Bye.")
        end(url, "ada", sessions(url, "ada")[0]["id"])
        settled_episodes(url, "ada")
        kept = api(url, "ada", "GET", "/memory/export").text
    assert "billing service" not in kept and "Nomad" not in kept and "They go in the wiki." in kept
    [call] = [r.json for r in fake.requests if r.json and is_extraction(r.json)]
    transcript = transcript_of(call)
    assert "billing service" not in transcript and "They go in the wiki." in transcript
    assert model.chat == deque() and files_mentioning(data, "billing service", "Nomad") == []
