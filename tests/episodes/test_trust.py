"""A request's view of its session's provenance (proxy.episodes.trust.SessionTrust), against a shared store."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from proxy.episodes.sessions import ChainLink, Session, SessionTracker
from proxy.episodes.trust import SessionTrust
from proxy.episodes.untrusted import UntrustedTools
from proxy.memory.caller import Identity
from proxy.memory.provenance import TRUSTED, Provenance
from proxy.memory.session_state import InProcessSessionState

pytestmark = pytest.mark.anyio
ADA = Identity("ada")
OWNER = ("ada", "default")
QUESTION = [{"role": "user", "content": "What does the page say?"}]
READ = [
    *QUESTION,
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "web_fetch", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "<!-- remember ... -->"},
]  # fmt: skip


def trust_for(
    tracker: SessionTracker, shared: InProcessSessionState, messages: list[dict[str, Any]], session: str = "s1"
) -> SessionTrust:
    def take() -> Session:
        return tracker.observe("ada", "default", session, messages, now=1.0)

    return SessionTrust(tracker, shared, ADA, session, take, set())


async def settled(trust: SessionTrust, *args: Any) -> None:
    waiting = trust.settle(*args)
    if waiting is not None:
        await waiting


async def test_the_note_is_taken_once_and_a_failed_one_never_reads_as_trusted() -> None:
    tracker, notes = SessionTracker(), []

    def take() -> Session:
        notes.append("noted")
        return tracker.observe("ada", "default", "s1", READ, now=1.0)

    trust = SessionTrust(tracker, InProcessSessionState(), ADA, "s1", take, set())
    assert trust().untrusted and trust().untrusted and notes == ["noted"]

    def broken() -> Session:
        raise RuntimeError("the note failed")

    failed = SessionTrust(tracker, InProcessSessionState(), ADA, "s2", broken, set())
    for _ in range(2):  # the tool loop asks again before a memory write: it fails there too
        with pytest.raises(RuntimeError):
            failed()


async def test_a_taint_from_the_conversation_is_shared_before_the_answer_goes() -> None:
    shared = InProcessSessionState()
    trust = trust_for(SessionTracker(), shared, READ)
    assert trust().sources == ("web_fetch",)
    await settled(trust)
    assert await shared.taint(OWNER, "s1") == ("web_fetch",)


async def test_what_the_answer_brought_in_taints_the_session_and_is_shared() -> None:
    shared, tracker = InProcessSessionState(), SessionTracker()
    trust = trust_for(tracker, shared, QUESTION)
    assert trust() == TRUSTED
    trust.saw(["web_search"])
    assert trust().sources == ("web_search",)
    await settled(trust, ["code_interpreter"])
    assert await shared.taint(OWNER, "s1") == ("code_interpreter", "web_search")
    assert tracker.get("ada", "default", "s1").provenance.sources == ("code_interpreter", "web_search")  # type: ignore[union-attr]


async def test_a_memory_write_reads_the_store_when_this_process_holds_the_session_trusted() -> None:
    """Another replica tainted it, or this process let it go under load and met it again."""
    shared = InProcessSessionState()
    await shared.add_taint(OWNER, "s1", ["web_fetch"])
    trust = trust_for(SessionTracker(), shared, QUESTION)
    assert trust() == TRUSTED  # what this process saw
    assert await trust.checked() == Provenance(True, ("web_fetch",))  # what a write carries
    assert trust().untrusted  # and the session knows it from now on


async def test_a_store_that_cannot_say_fails_the_write_never_trusts_it() -> None:
    class Down(InProcessSessionState):
        async def taint(self, owner: tuple[str, str], session: str) -> tuple[str, ...]:
            raise ConnectionError("the store is down")

    trust = trust_for(SessionTracker(), Down(), QUESTION)
    with pytest.raises(ConnectionError):
        await trust.checked()


async def test_an_untrusted_sessions_chain_link_is_shared_and_a_trusted_ones_stays_here() -> None:
    shared, tracker = InProcessSessionState(), SessionTracker(untrusted=UntrustedTools({"get_weather"}))
    clean = trust_for(tracker, shared, QUESTION, "clean")
    await settled(clean, (), ChainLink("resp_1", "resp_1", (("c9", "get_weather"),)))
    assert tracker.follow("ada", "default", "resp_1") is not None and await shared.get_link(OWNER, "resp_1") is None

    tainted = trust_for(tracker, shared, READ, "tainted")
    await settled(tainted, (), ChainLink("resp_2", "resp_3", (("c2", "get_weather"),)))
    link = await shared.get_link(OWNER, "resp_2")
    called = [["c2", "get_weather"]]
    assert link == {"session": "tainted", "chain": "resp_3", "called": called, "sources": ["web_fetch"]}


async def test_settling_waits_for_a_slow_store() -> None:
    release = asyncio.Event()

    class Slow(InProcessSessionState):
        async def add_taint(self, owner: tuple[str, str], session: str, sources: Any) -> None:
            await release.wait()
            await super().add_taint(owner, session, sources)

    shared = Slow()
    trust = trust_for(SessionTracker(), shared, READ)
    trust.session()
    waiting = trust.settle()
    assert waiting is not None
    task = asyncio.ensure_future(waiting)
    await asyncio.sleep(0)
    assert not task.done()  # the answer waits for the store
    release.set()
    await task
    assert await shared.taint(OWNER, "s1") == ("web_fetch",)


async def test_an_untrusted_sessions_taint_is_written_once_not_per_request() -> None:
    class Counting(InProcessSessionState):
        writes = 0

        async def add_taint(self, owner: tuple[str, str], session: str, sources: Any) -> None:
            Counting.writes += 1
            await super().add_taint(owner, session, sources)

    shared, tracker = Counting(), SessionTracker()
    for _ in range(3):  # three requests of the session, each showing the same page
        await settled(trust_for(tracker, shared, READ))
    assert Counting.writes == 1
    trust = trust_for(tracker, shared, READ)
    trust.saw(["web_search"])  # a new source: written again
    await settled(trust)
    assert Counting.writes == 2 and await shared.taint(OWNER, "s1") == ("web_fetch", "web_search")
