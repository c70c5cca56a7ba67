"""End to end: what a session was given and why, as a person sees it afterwards. The openai SDK -> memproxy on a
socket -> the fake upstream; then the management API: the session's block with each entry's score and matched
terms, its turns from history, and the memory's injection count."""

from __future__ import annotations

from proxy.testing import FakeUpstream

from .memory_client import (
    QUESTION,
    TABS,
    api,
    ask,
    close_clients,
    listed,
    memproxy,
    remember,
    sdk,
    sent,
    user,
    user_says,
)

__all__ = ["close_clients", "memproxy", "user"]

SYSTEM = {"role": "system", "content": "You are a concise coding assistant."}


def test_a_session_shows_the_memory_it_was_given_with_why_and_the_turn_that_asked(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    memory = remember(memproxy, user, TABS, category="preference")
    other = remember(memproxy, user, "The staging database is Postgres 16")
    raw = ask(sdk(memproxy, user, **{"X-Memory-Session": "e2e-1"}), SYSTEM, user_says())
    assert raw.headers["x-memproxy-injected"] == memory
    block = sent(fake_upstream)[1]["content"]

    response = api(memproxy, user, "GET", "/memory/sessions/e2e-1")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["block"]["text"] == block  # exactly as sent
    (entry,) = body["block"]["entries"]
    assert (entry["id"], entry["kind"], entry["text"]) == (memory, "memory", TABS)
    assert entry["why"]["score"] > 0 and "indent" in entry["why"]["terms"]
    assert [(t["turn"], t["role"], t["text"]) for t in body["turns"]] == [(1, "user", QUESTION)]
    assert (body["session"]["id"], body["session"]["live"], body["session"]["turns"]) == ("e2e-1", True, 1)

    counts = {m["id"]: m["injected_count"] for m in listed(memproxy, user)}  # the list flushes counts first
    assert counts == {memory: 1, other: 0}
    ask(sdk(memproxy, user, **{"X-Memory-Session": "e2e-1"}), SYSTEM, user_says())  # a retry: the same block again
    assert {m["id"]: m["injected_count"] for m in listed(memproxy, user)}[memory] == 1

    stranger = api(memproxy, f"{user}-other", "GET", "/memory/sessions/e2e-1")
    assert stranger.status_code == 404 and TABS not in stranger.text
    listed_sessions = api(memproxy, user, "GET", "/memory/sessions").json()["sessions"]
    assert [s["id"] for s in listed_sessions] == ["e2e-1"]
