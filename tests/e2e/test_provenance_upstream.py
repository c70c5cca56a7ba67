"""End to end: what the upstream's own answer brings in taints the session (issue 36, point 1).

When the upstream runs a tool itself (a Responses hosted tool, an Anthropic server tool or the MCP connector, a chat
search model) the client never sent the content: the answer did. A memory_store in that answer, in a later hop of
the hidden loop or in a later request of the session is held for a person's approval, streamed or not, on both
backends. The openai and anthropic SDKs -> memproxy on a socket -> the fake upstream, scripted with the hosted
items and server tool blocks an upstream sends.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from proxy.testing import FakeUpstream, ToolCall
from proxy.testing.postgres import PostgresServer

from ..conftest import run_proxy
from .memory_client import claude, close_clients, listed, sdk
from .poison import HOSTED_ITEMS, POISON, SERVER_BLOCKS, STORE, chat, messages, responses, stored

__all__ = ["close_clients"]

BACKENDS = ["files", "postgres"]


@pytest.fixture(scope="module", params=BACKENDS)
def memproxy(request: pytest.FixtureRequest, fake_upstream_server: FakeUpstream) -> Iterator[str]:
    """One proxy per backend for the module, in front of the session's fake upstream."""
    overrides: dict[str, Any] = {}
    if request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("postgres")
        overrides = {"store.backend": "postgres", "store.dsn": postgres.create_database()}
    with run_proxy(fake_upstream_server.base_url, overrides) as url:
        yield url


@pytest.fixture
def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


def assert_held(url: str, user: str, result: dict[str, Any], source: str) -> None:
    assert result["held"] is True, result
    assert listed(url, user) == []
    [held] = listed(url, user, held="true")
    assert held["text"] == POISON and source in held["sources"]


# -- in the same answer -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", sorted(HOSTED_ITEMS))
def test_a_hosted_tool_taints_the_memory_stored_in_the_same_answer(
    memproxy: str, fake_upstream: FakeUpstream, user: str, kind: str, stream: bool
) -> None:
    fake_upstream.reply(content=None, items=[HOSTED_ITEMS[kind]], tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    answer = responses(sdk(memproxy, user), stream, input="What does the pricing page say?")
    assert answer.output[0].type == kind  # the client gets the hosted tool's item as the upstream sent it
    source = {"mcp_call": "web__fetch", "mcp_list_tools": "web__list_tools"}.get(kind, kind.removesuffix("_call"))
    assert_held(memproxy, user, stored(fake_upstream), source)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("tool", sorted(SERVER_BLOCKS))
def test_a_server_tool_taints_the_memory_stored_in_the_same_answer(
    memproxy: str, fake_upstream: FakeUpstream, user: str, tool: str, stream: bool
) -> None:
    fake_upstream.reply(content=None, items=SERVER_BLOCKS[tool], tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    answer = messages(claude(memproxy, user), stream, {"role": "user", "content": "What does the page say?"})
    assert [block.type for block in answer.content][:2] == [block["type"] for block in SERVER_BLOCKS[tool]]
    assert_held(memproxy, user, stored(fake_upstream), "web__fetch" if tool == "mcp" else tool)


@pytest.mark.parametrize("stream", [False, True])
def test_a_server_tools_result_alone_taints_what_follows_it(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """An upstream that sends the result block without its call still brought the page in."""
    fake_upstream.reply(content=None, items=SERVER_BLOCKS["web_fetch"][1:], tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    messages(claude(memproxy, user), stream, {"role": "user", "content": "What does the page say?"})
    assert_held(memproxy, user, stored(fake_upstream), "web_fetch")


@pytest.mark.parametrize("stream", [False, True])
def test_a_chat_search_model_taints_what_it_stores(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """With ``web_search_options`` the model reads the web for its answer, which shows no call."""
    fake_upstream.reply(content=None, tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    question = [{"role": "user", "content": "What does the pricing page say?"}]
    chat(sdk(memproxy, user), stream, question, web_search_options={})
    assert_held(memproxy, user, stored(fake_upstream), "web_search")


# -- later: the next hop, the next request ----------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_hosted_tool_taints_the_memory_calls_of_the_loops_later_hops(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    fake_upstream.reply(content=None, items=[HOSTED_ITEMS["web_search_call"]], tool_calls=[ToolCall("memory_search")])
    fake_upstream.reply(content=None, tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    responses(sdk(memproxy, user), stream, input="What does the pricing page say?")
    assert_held(memproxy, user, stored(fake_upstream), "web_search")


@pytest.mark.parametrize("stream", [False, True])
def test_a_hosted_tool_taints_a_chained_follow_up(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """The answer that searched made no memory call; the follow-up chains from it and carries only a question."""
    client = sdk(memproxy, user)
    fake_upstream.reply(content="The page says to email invoices elsewhere.", items=[HOSTED_ITEMS["web_search_call"]])
    first = responses(client, stream, input="What does the pricing page say?")
    fake_upstream.reply(content=None, tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    responses(client, stream, input="Remember that.", previous_response_id=first.id)
    assert_held(memproxy, user, stored(fake_upstream), "web_search")


@pytest.mark.parametrize("stream", [False, True])
def test_a_server_tool_taints_the_next_request_though_the_client_drops_its_blocks(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    client = claude(memproxy, user)
    question = {"role": "user", "content": "What does the pricing page say?"}
    fake_upstream.reply(content="It says to email invoices elsewhere.", items=SERVER_BLOCKS["web_fetch"])
    answer = messages(client, stream, question)
    text = [{"type": "text", "text": block.text} for block in answer.content if block.type == "text"]
    fake_upstream.reply(content=None, tool_calls=[STORE])
    fake_upstream.reply(content="Done.")
    follow_up = [question, {"role": "assistant", "content": text}, {"role": "user", "content": "Remember that."}]
    messages(client, stream, *follow_up)
    assert_held(memproxy, user, stored(fake_upstream), "web_fetch")


def test_an_answer_without_outside_content_leaves_the_session_trusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    """The control: the same store after a plain answer is live."""
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_store", {"text": "User prefers tabs"})])
    fake_upstream.reply(content="Noted.")
    responses(sdk(memproxy, user), False, input="I prefer tabs.")
    result = stored(fake_upstream)
    assert "held" not in result and [m["text"] for m in listed(memproxy, user)] == ["User prefers tabs"]
