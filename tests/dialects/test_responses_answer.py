"""The Responses answer reader: several upstream responses assembled into the one the client gets (COMPAT E7)."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import orjson

from proxy.dialects.base import Call
from proxy.dialects.responses import RESPONSES, tool_schema
from proxy.dialects.responses_items import HopRecord
from proxy.tools.memory_tools import NAMES, SCHEMAS

from ..openapi_spec import validate
from .responses_wire import CLIENT_TOOL, call_item, message_item, reasoning_item, response, usage

TOOLS = [CLIENT_TOOL, *(tool_schema(spec) for spec in SCHEMAS.values())]
SEARCH = '{"query":"x"}'


def hidden(store: bool = True, *extra: dict[str, Any]) -> dict[str, Any]:
    output = [reasoning_item("rs_1"), call_item("fc_m1", "call_m1", "memory_search", SEARCH), *extra]
    return response("resp_1", output=output, usage=usage(100, 20, reasoning=8), tools=TOOLS, store=store)


def final(store: bool = True) -> dict[str, Any]:
    output = [message_item("msg_2", "Done.")]
    return response("resp_2", output=output, usage=usage(150, 5), tools=TOOLS, store=store, created_at=1741476800)


def read_all(*responses: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    reader = RESPONSES.reader(NAMES)
    turns = [reader.read(orjson.dumps(body)) for body in responses]
    return turns, orjson.loads(reader.result())


def test_a_hop_with_a_memory_call_is_read_as_a_turn_for_the_loop() -> None:
    turns, _ = read_all(hidden())
    turn = turns[0]
    assert turn.hidden == [Call("call_m1", "memory_search", SEARCH)]
    assert turn.order == ["call_m1"] and turn.relayed == 0 and turn.reason == "completed" and not turn.cut
    assert turn.state == HopRecord("resp_1", tuple(hidden()["output"]))


def test_the_client_gets_every_visible_item_and_usage_summed() -> None:
    _, result = read_all(hidden(), final())
    assert [item["id"] for item in result["output"]] == ["rs_1", "msg_2"]
    assert result["usage"] == {
        "input_tokens": 250,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 25,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 275,
    }
    assert result["tools"] == [CLIENT_TOOL]
    assert result["created_at"] == hidden()["created_at"]
    validate("Response", result)


def test_the_client_gets_the_first_hops_id_and_a_chain_goes_on_from_the_last() -> None:
    """SDKs require one identity per response; the upstream stored the whole loop under the last hop's id."""
    assert read_all(hidden(), final())[1]["id"] == "resp_1"
    assert read_all(hidden(False), final(False))[1]["id"] == "resp_1"
    reader = RESPONSES.reader(NAMES)
    reader.read(orjson.dumps(hidden()))
    reader.read(orjson.dumps(final()))
    assert (reader.response_id, reader.chain_id) == ("resp_1", "resp_2")


def test_the_previous_response_id_the_client_chained_from_is_kept() -> None:
    first = {**hidden(), "previous_response_id": "resp_0"}
    last = {**final(), "previous_response_id": "resp_1"}
    assert read_all(first, last)[1]["previous_response_id"] == "resp_0"


def test_a_mixed_turn_keeps_the_clients_call_and_counts_it() -> None:
    client_call = call_item("fc_c1", "call_c1", "get_weather", '{"city":"Paris"}')
    turns, result = read_all(hidden(True, client_call))
    assert turns[0].relayed == 1 and turns[0].order == ["call_m1", "call_c1"]
    assert [item["id"] for item in result["output"]] == ["rs_1", "fc_c1"]
    assert b"memory_" not in orjson.dumps(result)


def test_the_tools_the_client_got_calls_of_are_named_for_a_chain_but_never_the_memory_tools() -> None:
    """A chained follow-up carries only the results: provenance learns the calls' names from the answer."""
    client_call = call_item("fc_c1", "call_c1", "web_fetch", '{"url":"x"}')
    builtin = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"query": "x"}}
    reader = RESPONSES.reader(NAMES)
    reader.read(orjson.dumps(hidden(True, builtin)))
    reader.read(orjson.dumps({**final(), "output": [client_call]}))
    assert reader.called == (("ws_1", "web_search"), ("call_c1", "web_fetch"))
    assert RESPONSES.reader(NAMES).called == ()


def test_a_chained_answer_is_read_for_its_echo_even_without_a_memory_call() -> None:
    assert RESPONSES.reader(NAMES, "resp_0").rewrites and not RESPONSES.reader(NAMES).rewrites


def test_a_single_hop_without_memory_calls_only_loses_the_tools_echo() -> None:
    body = final()
    _, result = read_all(body)
    assert result == {**body, "tools": [CLIENT_TOOL]}


def test_an_incomplete_hop_is_cut() -> None:
    turns, result = read_all(
        {**hidden(), "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    )
    assert turns[0].cut and result["status"] == "incomplete"


def test_output_text_is_recomputed_when_the_upstream_sent_it() -> None:
    _, result = read_all({**hidden(), "output_text": ""}, {**final(), "output_text": "Done."})
    assert result["output_text"] == "Done."


def test_anything_but_a_response_object_is_not_read() -> None:
    reader = RESPONSES.reader(NAMES)
    assert reader.read(b"not json") is None
    assert reader.read(b'{"object": "chat.completion", "choices": []}') is None


def test_openais_sdk_reads_the_assembled_answer() -> None:
    _, result = read_all(hidden(), final())

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=result)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    client = openai.OpenAI(api_key="sk-test", base_url="http://upstream.test/v1", http_client=http, max_retries=0)
    parsed = client.responses.create(model="gpt-5", input="hi")
    assert parsed.output_text == "Done." and parsed.id == "resp_1"
    assert parsed.usage is not None and parsed.usage.input_tokens == 250


# -- what the answer brought in from outside (DESIGN "Provenance") ------------------------------------------------

SEARCHED = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"query": "x"}}
MCP = {"id": "mcp_1", "type": "mcp_call", "server_label": "web", "name": "fetch", "arguments": "{}", "output": "x"}


def test_the_tools_the_upstream_ran_itself_are_what_the_answer_brought_in() -> None:
    reader = RESPONSES.reader(NAMES)
    reader.read(orjson.dumps(hidden(True, SEARCHED)))
    assert reader.brought == ("web_search",)
    reader.read(orjson.dumps({**final(), "output": [MCP, {"type": "shell_call_output", "call_id": "c", "output": []}]}))
    assert reader.brought == ("web_search", "web__fetch", "shell_call_output")


def test_the_models_own_items_and_the_clients_calls_bring_nothing_in() -> None:
    reader = RESPONSES.reader(NAMES)
    reader.read(orjson.dumps({**final(), "output": [call_item("fc_c1", "call_c1", "web_fetch", "{}")]}))
    assert reader.brought == ()  # the client runs web_fetch: its result comes back in a request, judged there


def test_an_item_this_proxy_does_not_know_is_outside_content() -> None:
    reader = RESPONSES.reader(NAMES)
    reader.read(orjson.dumps({**final(), "output": [{"type": "tool_search_output", "id": "ts_1", "tools": []}]}))
    assert reader.brought == ("tool_search_output",)


def test_an_untouched_answer_is_read_when_the_session_needs_it() -> None:
    reader = RESPONSES.reader(NAMES)
    body = orjson.dumps({**final(), "output": [SEARCHED]})
    reader.glance(body)
    assert (reader.response_id, reader.brought) == ("resp_2", ("web_search",))
