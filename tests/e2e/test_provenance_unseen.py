"""End to end: what the proxy cannot vouch for taints the session (issue 36, points 6, 7 and 8).

A result whose call the conversation does not show, an item stored upstream out of sight, a tool the configuration
does not trust (whatever its name) and an untrusted tool's output read back with memory_retrieve: the session took
in content from outside, so what its model stores is held for a person's approval. The openai and anthropic SDKs
-> memproxy on a socket -> the fake upstream.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from proxy.testing import FakeUpstream, ToolCall

from ..conftest import RunProxy, run_proxy
from .memory_client import claude, close_clients, listed, memproxy, sdk, user
from .poison import PAGE, POISON, STORE, chat, messages, responses, stored

__all__ = ["close_clients", "memproxy", "user"]

QUESTION = {"role": "user", "content": "What does the pricing page say?"}


def held_sources(url: str, user: str, result: dict[str, Any]) -> list[str]:
    """The sources of the one memory held, after checking it was held and nothing went live."""
    assert result["held"] is True, result
    assert listed(url, user) == []
    [held] = listed(url, user, held="true")
    assert held["text"] == POISON
    return list(held["sources"])


def script_store(fake: FakeUpstream) -> None:
    fake.reply(content=None, tool_calls=[STORE])
    fake.reply(content="Done.")


# -- results whose call is out of sight (point 6) ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_chat_tool_result_without_its_call_is_untrusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    script_store(fake_upstream)
    orphan = {"role": "tool", "tool_call_id": "call_gone", "content": PAGE}
    chat(sdk(memproxy, user), stream, [QUESTION, {"role": "assistant", "content": "Fetching."}, orphan])
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["(unseen call)"]


@pytest.mark.parametrize("stream", [False, True])
def test_an_anthropic_tool_result_without_its_call_is_untrusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    script_store(fake_upstream)
    orphan = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_gone", "content": PAGE}]}
    messages(claude(memproxy, user), stream, QUESTION, {"role": "assistant", "content": "Fetching."}, orphan)
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["(unseen call)"]


@pytest.mark.parametrize("stream", [False, True])
def test_an_anthropic_server_tool_result_without_its_call_is_untrusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    script_store(fake_upstream)
    fetched = {
        "type": "web_fetch_tool_result",
        "tool_use_id": "srvtoolu_gone",
        "content": {"type": "web_fetch_result", "url": "https://example.com", "content": {
            "type": "document", "source": {"type": "text", "media_type": "text/plain", "data": PAGE}}},
    }  # fmt: skip
    turns = [QUESTION, {"role": "assistant", "content": [fetched]}, {"role": "user", "content": "Remember it."}]
    messages(claude(memproxy, user), stream, *turns)
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["web_fetch"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_responses_function_call_output_without_its_call_is_untrusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    script_store(fake_upstream)
    orphan = {"type": "function_call_output", "call_id": "call_gone", "output": PAGE}
    responses(sdk(memproxy, user), stream, input=[QUESTION, orphan])
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["(unseen call)"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_result_chained_from_an_answer_the_proxy_never_saw_is_untrusted(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    script_store(fake_upstream)
    result = {"type": "function_call_output", "call_id": "call_elsewhere", "output": PAGE}
    responses(sdk(memproxy, user), stream, input=[result], previous_response_id="resp_made_elsewhere")
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["(unseen call)"]


@pytest.mark.parametrize("stream", [False, True])
def test_an_item_reference_is_untrusted(memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool) -> None:
    script_store(fake_upstream)
    responses(sdk(memproxy, user), stream, input=[QUESTION, {"type": "item_reference", "id": "fco_stored_upstream"}])
    assert held_sources(memproxy, user, stored(fake_upstream)) == ["item_reference"]


def test_a_result_with_its_call_in_sight_is_judged_by_its_tools_name(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    """The control: the call is there, and TodoWrite is trusted by default, so the store goes live."""
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_store", {"text": "User ships on Fridays"})])
    fake_upstream.reply(content="Noted.")
    call = {"id": "call_todo", "type": "function", "function": {"name": "TodoWrite", "arguments": "{}"}}
    conversation = [
        QUESTION,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_todo", "content": "Todos have been modified successfully."},
    ]
    chat(sdk(memproxy, user), False, conversation)
    assert "held" not in stored(fake_upstream) and [m["text"] for m in listed(memproxy, user)] == [
        "User ships on Fridays"
    ]


# -- tools the configuration does not trust (point 7) -----------------------------------------------------------

UNKNOWN_OUTSIDE = [
    "use_mcp_tool", "access_mcp_resource", "execute_bash", "execute_ipython_cell", "fetch_url_content",
    "search_web", "run_terminal_command", "visit_webpage", "tavily_search_results_json", "duckduckgo_search",
]  # fmt: skip


def read_with(url: str, fake: FakeUpstream, who: str, tool: str, stream: bool = False) -> dict[str, Any]:
    """A conversation in which the client's ``tool`` brought the page in, then the model stores."""
    script_store(fake)
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": '{"url": "x"}'}}
    conversation = [
        QUESTION,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": PAGE},
    ]
    chat(sdk(url, who), stream, conversation)
    return stored(fake)


@pytest.mark.parametrize("tool", UNKNOWN_OUTSIDE)
def test_a_tool_no_list_names_is_untrusted(memproxy: str, fake_upstream: FakeUpstream, user: str, tool: str) -> None:
    assert held_sources(memproxy, user, read_with(memproxy, fake_upstream, user, tool)) == [tool]


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_the_configuration_trusts_does_not_taint_and_untrusted_tools_still_wins(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    overrides = {"extraction.trusted_tools": ["get_weather", "Write"], "extraction.untrusted_tools": ["Write"]}
    with start_proxy(fake_upstream.base_url, overrides) as url:
        result = read_with(url, fake_upstream, user, "get_weather", stream)
        assert "held" not in result and [m["text"] for m in listed(url, user)] == [POISON]
        assert held_sources(url, f"{user}-2", read_with(url, fake_upstream, f"{user}-2", "Write", stream)) == ["Write"]


# -- an untrusted detail read back (point 8) ---------------------------------------------------------------------

REF = re.compile(r"\[MemoryRef: (r-[0-9a-f]{16}) ")
LONG_PAGE = PAGE * 40


@pytest.fixture(scope="module")
def offloading(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_upstream_server.base_url, {"context.offload_chars": 1000}) as url:
        yield url


@pytest.mark.parametrize("stream", [False, True])
def test_reading_an_untrusted_detail_back_taints_the_reading_session(
    offloading: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """The page was offloaded in one session; another session's model reads it back, then stores."""
    call = {"id": "call_web", "type": "function", "function": {"name": "web_fetch", "arguments": '{"url": "x"}'}}
    fetched = [
        QUESTION,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_web", "content": LONG_PAGE},
        {"role": "assistant", "content": "Fetched."},
        {"role": "user", "content": "Thanks."},
    ]
    fake_upstream.reply(content="ok")
    chat(sdk(offloading, user), False, fetched)
    ref = REF.search(orjson.dumps(fake_upstream.requests[-1].json["messages"]).decode())
    assert ref is not None

    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_retrieve", {"id": ref.group(1)})])
    script_store(fake_upstream)
    chat(sdk(offloading, user), stream, [{"role": "user", "content": f"Read {ref.group(1)} and remember it."}])
    assert held_sources(offloading, user, stored(fake_upstream)) == ["web_fetch"]
