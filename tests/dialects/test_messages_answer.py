"""The Messages answer reader: several upstream messages assembled into the one the client gets (COMPAT E7)."""

from __future__ import annotations

from typing import Any

import orjson

from proxy.dialects.base import Call
from proxy.dialects.messages import MESSAGES
from proxy.tools.memory_tools import NAMES

from .messages_wire import check_message, message, sdk, text, thinking, tool_use, usage

SEARCH = {"query": "x"}


def hidden(*extra: dict[str, Any]) -> dict[str, Any]:
    content = [thinking("hm"), text("Checking."), tool_use("toolu_m1", "memory_search", SEARCH), *extra]
    return message("msg_1", content, "tool_use", usage(100, 20, read=40, created=10))


def final() -> dict[str, Any]:
    return message("msg_2", [text("Done.")], "end_turn", usage(130, 4, read=90))


def read_all(*messages: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    reader = MESSAGES.reader(NAMES)
    turns = [reader.read(orjson.dumps(body)) for body in messages]
    return turns, orjson.loads(reader.result())


def test_a_hop_with_a_memory_call_is_read_as_a_turn_for_the_loop() -> None:
    turns, _ = read_all(hidden())
    turn = turns[0]
    assert turn.hidden == [Call("toolu_m1", "memory_search", '{"query":"x"}')]
    assert turn.order == ["toolu_m1"] and turn.relayed == 0 and turn.reason == "tool_use"
    assert turn.content == "Checking." and turn.state == tuple(hidden()["content"])


def test_the_client_gets_the_first_id_every_visible_block_and_usage_summed() -> None:
    _, result = read_all(hidden(), final())
    assert result["id"] == "msg_1"
    assert result["content"] == [thinking("hm"), text("Checking."), text("Done.")]
    assert result["stop_reason"] == "end_turn"
    assert result["usage"] == {
        "input_tokens": 230,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 130,
        "output_tokens": 24,
        "service_tier": "standard",
    }
    check_message(result)


def test_tool_use_stays_the_stop_reason_only_when_a_client_call_is_left() -> None:
    client_call = tool_use("toolu_c1", "get_weather", {"city": "Paris"})
    turns, result = read_all(hidden(client_call))
    assert turns[0].relayed == 1 and turns[0].order == ["toolu_m1", "toolu_c1"]
    assert result["stop_reason"] == "tool_use"
    assert [block.get("id") for block in result["content"]] == [None, None, "toolu_c1"]
    _, alone = read_all(hidden())  # the loop stopped with only a memory call left
    assert alone["stop_reason"] == "end_turn" and b"memory_" not in orjson.dumps(alone)


def test_a_single_hop_without_memory_calls_comes_back_as_it_was() -> None:
    body = final()
    assert read_all(body)[1] == body


def test_a_cut_hop_is_reported() -> None:
    turns, _ = read_all({**hidden(), "stop_reason": "max_tokens"})
    assert turns[0].cut


def test_anything_but_a_message_is_not_read() -> None:
    reader = MESSAGES.reader(NAMES)
    assert reader.read(b"nope") is None
    assert reader.read(b'{"type": "error", "error": {"type": "api_error", "message": "x"}}') is None


def test_anthropics_sdk_reads_the_assembled_answer() -> None:
    anthropic = sdk()
    import httpx2

    _, result = read_all(hidden(), final())
    http = httpx2.Client(transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json=result)))
    client = anthropic.Anthropic(api_key="sk-test", base_url="http://upstream.test", http_client=http, max_retries=0)
    parsed = client.messages.create(model="claude", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert parsed.id == "msg_1" and parsed.stop_reason == "end_turn"
    assert [block.type for block in parsed.content] == ["thinking", "text", "text"]


# -- what the answer brought in from outside (DESIGN "Provenance") ------------------------------------------------

FETCH = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": "x"}}
FETCHED = {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "web_fetch_result"}}
MCP_CALL = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "read", "server_name": "fs", "input": {}}


def test_the_server_tools_the_upstream_ran_are_what_the_answer_brought_in() -> None:
    reader = MESSAGES.reader(NAMES)
    reader.read(orjson.dumps(hidden(FETCH, FETCHED)))
    reader.read(orjson.dumps(message("msg_2", [MCP_CALL, text("ok")], "end_turn", usage(1, 1))))
    assert reader.brought == ("web_fetch", "fs__read")


def test_a_server_tools_result_or_an_unknown_block_alone_is_outside_content() -> None:
    reader = MESSAGES.reader(NAMES)
    reader.read(orjson.dumps(message("msg_1", [FETCHED, {"type": "container_upload"}], "end_turn", usage(1, 1))))
    assert reader.brought == ("web_fetch", "container_upload")


def test_an_untouched_answers_server_tool_blocks_are_found() -> None:
    plain, reader = MESSAGES.reader(NAMES), MESSAGES.reader(NAMES)
    plain.glance(orjson.dumps(final()))
    assert plain.brought == ()
    reader.glance(orjson.dumps(message("msg_1", [FETCH, FETCHED, text("ok")], "end_turn", usage(1, 1))))
    assert reader.brought == ("web_fetch",)


def test_the_view_names_a_server_tools_result_whose_call_is_not_in_the_message() -> None:
    payload = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [FETCHED]}]}
    assert MESSAGES.messages(payload)[-1] == {"role": "assistant", "content": [], "outside": ["web_fetch"]}
    whole = {"messages": [{"role": "assistant", "content": [FETCH, FETCHED]}]}
    assert "outside" not in MESSAGES.messages(whole)[-1]  # its call is there, named web_fetch
