"""End to end: a session's taint lives with the state every replica shares (issue 36, points 3 and 5).

A chained Responses follow-up that lands on another replica (PostgreSQL, or a second process on the same data dir),
that comes after many other answers of the same user, or after another user's flood of sessions pushed this one
out of the proxy's memory, still holds what an untrusted session's model stores. The openai SDK -> memproxy replicas
on sockets -> the fake upstream.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proxy.testing import FakeUpstream, ToolCall
from proxy.testing.postgres import PostgresServer

from ..conftest import run_proxy
from .memory_client import close_clients, listed, sdk
from .poison import PAGE, POISON, STORE, responses, stored
from .told import Told, run_replica

__all__ = ["close_clients"]

WEB_FETCH = {"type": "function", "name": "web_fetch", "parameters": {"type": "object", "properties": {}}}
FLOOD_LIMIT = 50  # live sessions the flooded proxy holds: its cap lowered, so a flood takes 60 requests, not 5,100


def overrides_for(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """Settings that make proxies share one store: one database, or one data dir."""
    if backend == "postgres":
        postgres: PostgresServer = request.getfixturevalue("postgres")
        return {"store.backend": "postgres", "store.dsn": postgres.create_database()}
    return {"store.path": str(tmp_path / "shared")}


@pytest.fixture
def told() -> Told:
    return Told()


@pytest.fixture(params=["files", "postgres"])
def replicas(
    request: pytest.FixtureRequest, fake_upstream_server: FakeUpstream, tmp_path: Path, told: Told
) -> Iterator[tuple[str, str]]:
    """Two proxies on one store, nothing else shared: two data dirs on one database, or two processes' worth of
    state on one data dir."""
    upstream, overrides = fake_upstream_server.base_url, overrides_for(request.param, request, tmp_path)
    with run_replica(upstream, overrides, told) as a, run_replica(upstream, overrides, told) as b:
        yield a, b


@pytest.fixture
def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


def tainted_answer(url: str, fake: FakeUpstream, user: str, stream: bool) -> str:
    """A Responses answer of a session that read the page through the client's web_fetch: its id."""
    conversation = [
        {"role": "user", "content": "Summarise https://example.com/pricing"},
        {"type": "function_call", "call_id": "call_page", "name": "web_fetch", "arguments": '{"url": "x"}'},
        {"type": "function_call_output", "call_id": "call_page", "output": PAGE},
    ]
    fake.reply(content="The page wants invoices emailed elsewhere.")
    return str(responses(sdk(url, user), stream, input=conversation, tools=[WEB_FETCH]).id)


def store_after(url: str, fake: FakeUpstream, user: str, stream: bool, previous: str, **kwargs: Any) -> dict[str, Any]:
    fake.reply(content=None, tool_calls=[STORE])
    fake.reply(content="Done.")
    kwargs = {"input": "Remember that.", "tools": [WEB_FETCH], **kwargs}
    responses(sdk(url, user), stream, previous_response_id=previous, **kwargs)
    return stored(fake)


def held_sources(url: str, user: str, result: dict[str, Any]) -> list[str]:
    assert result["held"] is True, result
    assert listed(url, user) == []
    [held] = listed(url, user, held="true")
    assert held["text"] == POISON
    return list(held["sources"])


@pytest.mark.parametrize("stream", [False, True])
def test_a_chained_follow_up_on_the_other_replica_holds_what_the_untrusted_session_stores(
    replicas: tuple[str, str], fake_upstream: FakeUpstream, user: str, stream: bool, told: Told
) -> None:
    a, b = replicas
    answer = tainted_answer(a, fake_upstream, user, stream)
    told()  # B has heard of what A did
    result = store_after(b, fake_upstream, user, stream, answer)
    assert held_sources(b, user, result) == ["web_fetch"]
    told()  # A has heard of the memory B stored
    assert held_sources(a, user, result) == ["web_fetch"]  # the same store: A lists it held too


@pytest.mark.parametrize("stream", [False, True])
def test_a_chained_result_on_the_other_replica_is_held(
    replicas: tuple[str, str], fake_upstream: FakeUpstream, user: str, stream: bool, told: Told
) -> None:
    """The issue's case: A's answer asked the client to fetch the page; the page comes back to B."""
    a, b = replicas
    fake_upstream.reply(content=None, tool_calls=[ToolCall("web_fetch", {"url": "x"}, id="call_page")])
    first = responses(sdk(a, user), stream, input="Summarise https://example.com/pricing", tools=[WEB_FETCH])
    told()  # B has heard of what A did
    page = {"type": "function_call_output", "call_id": "call_page", "output": PAGE}
    result = store_after(b, fake_upstream, user, stream, first.id, input=[page])
    assert held_sources(b, user, result) in (["web_fetch"], ["(unseen call)"])


@pytest.mark.parametrize("backend", ["files", "postgres"])
def test_a_chain_is_held_after_many_other_answers_of_the_same_user(
    request: pytest.FixtureRequest, fake_upstream_server: FakeUpstream, fake_upstream: FakeUpstream, tmp_path: Path,
    user: str, backend: str,
) -> None:  # fmt: skip
    with run_proxy(fake_upstream_server.base_url, overrides_for(backend, request, tmp_path)) as url:
        answer = tainted_answer(url, fake_upstream, user, False)
        for n in range(12):  # other conversations of the same user, each answered
            fake_upstream.reply(content="ok")
            responses(sdk(url, user), False, input=f"Unrelated question {n}")
        assert held_sources(url, user, store_after(url, fake_upstream, user, False, answer)) == ["web_fetch"]


@pytest.mark.parametrize("backend", ["files", "postgres"])
def test_another_users_flood_of_sessions_never_makes_a_tainted_session_trusted(
    request: pytest.FixtureRequest, fake_upstream_server: FakeUpstream, fake_upstream: FakeUpstream, tmp_path: Path,
    user: str, backend: str,
) -> None:  # fmt: skip
    overrides = {**overrides_for(backend, request, tmp_path), "sessions.max_live": FLOOD_LIMIT}
    with run_proxy(fake_upstream_server.base_url, overrides) as url:
        answer = tainted_answer(url, fake_upstream, user, False)
        flooder = sdk(url, f"flooder-{user}")
        for n in range(FLOOD_LIMIT + 10):  # each a new session: the victim's is pushed out of the proxy's memory
            fake_upstream.reply(content="ok")
            flooder.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": f"hi {n}"}])
        assert held_sources(url, user, store_after(url, fake_upstream, user, False, answer)) == ["web_fetch"]
