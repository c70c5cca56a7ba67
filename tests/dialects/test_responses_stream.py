"""The Responses stream splitter: several upstream streams relayed as one response's events (COMPAT E, L4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import openai
import orjson
import pytest

from proxy.dialects.base import Call
from proxy.dialects.responses import tool_schema
from proxy.dialects.responses_items import HopRecord
from proxy.dialects.responses_stream import ResponseEvents
from proxy.pipe.sse import StreamProtocolError
from proxy.tools.memory_tools import NAMES, SCHEMAS

from .openapi_events import validate_event
from .responses_wire import (
    CLIENT_TOOL,
    call_item,
    decoded,
    encode,
    frame,
    hop_events,
    message_item,
    parse_named,
    reasoning_item,
    response,
    usage,
)

TOOLS = [CLIENT_TOOL, *(tool_schema(spec) for spec in SCHEMAS.values())]
SEARCH = '{"query":"weather preferences"}'


def hidden_hop(*, store: bool = True, extra: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The model reasons, then calls memory_search (and whatever ``extra`` adds)."""
    output = [reasoning_item("rs_1", "Check memory first"), call_item("fc_m1", "call_m1", "memory_search", SEARCH)]
    return response("resp_1", output=[*output, *extra], usage=usage(100, 20, reasoning=10), tools=TOOLS, store=store)


def final_hop(*, store: bool = True, status: str = "completed") -> dict[str, Any]:
    output = [reasoning_item("rs_2"), message_item("msg_2", "It is sunny in Paris, as you like it.")]
    return response(
        "resp_2",
        status=status,
        output=output,
        usage=usage(150, 10, cached=96),
        tools=TOOLS,
        store=store,
        created_at=1741476790,
    )


def run(hops: Sequence[list[dict[str, Any]]], hidden: frozenset[str] = NAMES) -> tuple[ResponseEvents, bytes]:
    """The tool loop's part: relay each hop, then go on while the hop made memory calls only."""
    splitter = ResponseEvents(hidden=hidden)
    out = b""
    for number, events in enumerate(hops):
        for data in encode(events):
            if splitter.ended:
                break
            out += splitter.push(data)
        if number < len(hops) - 1:
            turn = splitter.hop_end()
            assert turn.hidden and not turn.relayed
            assert splitter.made_memory_calls()
            splitter.next_hop()
    return splitter, out + splitter.finish()


def events_of(out: bytes) -> list[dict[str, Any]]:
    parsed = parse_named(out)
    for name, data in parsed:
        assert name == data["type"]  # every event is framed under its own type
    return [data for _, data in parsed]


def two_hops(store: bool = True) -> tuple[ResponseEvents, list[dict[str, Any]]]:
    splitter, out = run([hop_events(hidden_hop(store=store)), hop_events(final_hop(store=store))])
    return splitter, events_of(out)


# -- one hop ------------------------------------------------------------------------------------------------


def test_a_stream_without_memory_tools_is_relayed_byte_for_byte() -> None:
    events = hop_events(response("resp_1", output=[message_item("msg_1", "Hi")], usage=usage(5, 1)))
    _, out = run([events], hidden=frozenset())
    assert out == frame(events)


def test_the_memory_tools_never_show_in_the_responses_tools_echo() -> None:
    final = response("resp_1", output=[message_item("msg_1", "Hi")], usage=usage(5, 1), tools=TOOLS)
    _, out = run([hop_events(final)])
    events = events_of(out)
    assert b"memory_" not in out
    assert [e["response"]["tools"] for e in events if "response" in e] == [[CLIENT_TOOL]] * 3
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_a_hop_with_memory_calls_ends_with_them_whole_for_the_loop() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    hop = hidden_hop()
    for data in encode(hop_events(hop)):
        splitter.push(data)
    assert splitter.ended and not splitter.failed
    turn = splitter.hop_end()
    assert turn.hidden == [Call("call_m1", "memory_search", SEARCH)]
    assert turn.order == ["call_m1"] and turn.relayed == 0
    assert turn.reason == "completed" and not turn.cut
    assert turn.state == HopRecord("resp_1", tuple(hop["output"]))


def test_a_memory_calls_events_are_all_dropped_from_its_added_event_on() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    relayed = [splitter.push(data) for data in encode(hop_events(hidden_hop()))]
    events = hop_events(hidden_hop())
    dropped = [e for e, out in zip(events, relayed, strict=True) if not out]
    call_events = [e for e in events if e.get("output_index") == 1]  # the memory call's item
    assert call_events[0]["type"] == "response.output_item.added"
    assert dropped == [*call_events, events[-1]]  # and the response.completed, held for the very end


# -- several hops -------------------------------------------------------------------------------------------


def test_the_client_gets_one_created_and_one_completed_over_the_hops() -> None:
    _, events = two_hops()
    kinds = [e["type"] for e in events]
    assert kinds.count("response.created") == kinds.count("response.in_progress") == 1
    assert kinds.count("response.completed") == 1 and kinds[-1] == "response.completed"


def test_sequence_numbers_run_from_zero_without_gaps() -> None:
    _, events = two_hops()
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_output_indexes_run_without_gaps_over_the_hops() -> None:
    _, events = two_hops()
    added = [(e["output_index"], e["item"]["id"]) for e in events if e["type"] == "response.output_item.added"]
    assert added == [(0, "rs_1"), (1, "rs_2"), (2, "msg_2")]
    by_item = {e["item_id"]: e["output_index"] for e in events if "item_id" in e}
    assert by_item == {"rs_1": 0, "msg_2": 2}


def test_the_final_response_holds_every_visible_item_and_the_summed_usage() -> None:
    _, events = two_hops()
    final = events[-1]["response"]
    assert [item["id"] for item in final["output"]] == ["rs_1", "rs_2", "msg_2"]
    assert final["usage"] == {
        "input_tokens": 250,
        "input_tokens_details": {"cached_tokens": 96, "cache_write_tokens": 0},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 10},
        "total_tokens": 280,
    }
    assert final["tools"] == [CLIENT_TOOL]


def test_nothing_of_the_memory_calls_reaches_the_client() -> None:
    _, out = run([hop_events(hidden_hop()), hop_events(final_hop())])
    assert b"memory_" not in out and b"call_m1" not in out and b"fc_m1" not in out


def test_a_stored_response_keeps_one_identity_and_chains_on_from_the_last_hop() -> None:
    """SDKs require one id from response.created to response.completed; the loop is stored under the last."""
    splitter, events = two_hops(store=True)
    assert events[0]["response"]["id"] == "resp_1"
    assert events[-1]["response"]["id"] == "resp_1" == splitter.response_id
    assert splitter.chain_id == "resp_2"
    assert events[-1]["response"]["created_at"] == events[0]["response"]["created_at"]


def test_an_unstored_response_keeps_the_first_hops_id_throughout() -> None:
    splitter, events = two_hops(store=False)
    assert {e["response"]["id"] for e in events if "response" in e} == {"resp_1"} == {splitter.response_id}


def test_a_chained_stream_echoes_the_id_the_client_chained_from_not_the_proxys() -> None:
    """The upstream got the proxy's chain id (the last hop of the client's previous loop) and echoes it."""
    hops = [hop_events({**body, "previous_response_id": "resp_chain"}) for body in (hidden_hop(), final_hop())]
    splitter = ResponseEvents(hidden=NAMES, previous="resp_0")
    out = b""
    for number, events in enumerate(hops):
        out += b"".join(splitter.push(data) for data in encode(events))
        if number == 0:
            splitter.hop_end()
            splitter.next_hop()
    echoed = {e["response"]["previous_response_id"] for e in events_of(out + splitter.finish()) if "response" in e}
    assert echoed == {"resp_0"}


def test_the_tools_the_client_got_calls_of_are_named_for_a_chain_but_never_the_memory_tools() -> None:
    client_call = call_item("fc_c1", "call_c1", "web_fetch", '{"url":"x"}')
    splitter, _ = run([hop_events(hidden_hop()), hop_events({**final_hop(), "output": [client_call]})])
    assert splitter.called == (("call_c1", "web_fetch"),)
    assert two_hops()[0].called == ()


def test_reasoning_items_pass_through_byte_for_byte() -> None:
    hop = hidden_hop()
    _, out = run([hop_events(hop), hop_events(final_hop())])
    for item in (hop["output"][0], final_hop()["output"][0]):
        assert out.count(orjson.dumps(item)) >= 2  # at least its output_item.done and the final response


def test_every_event_the_client_gets_matches_openais_schema() -> None:
    _, events = two_hops()
    for event in events:
        validate_event(event)


def test_the_stream_is_the_same_however_the_upstream_bytes_are_split() -> None:
    hops = [frame(hop_events(hidden_hop())), frame(hop_events(final_hop()))]
    expected = None
    for size in range(1, max(map(len, hops)) + 1, 7):
        splitter = ResponseEvents(hidden=NAMES)
        out = b""
        for number, raw in enumerate(hops):
            for data in decoded(raw, size):
                out += splitter.push(data)
            if number == 0:
                splitter.hop_end()
                splitter.next_hop()
        out += splitter.finish()
        expected = expected or out
        assert out == expected, size


def test_every_chunk_size_from_one_byte_hands_the_splitter_the_same_events() -> None:
    """So the splitter's output, a function of those events alone, is the same at every size too."""
    raw = frame(hop_events(hidden_hop())) + frame(hop_events(final_hop()))
    whole = decoded(raw, len(raw))
    assert len(whole) == len(hop_events(hidden_hop())) + len(hop_events(final_hop()))
    for size in range(1, len(raw) + 1):
        assert decoded(raw, size) == whole, size


# -- mixed turns, cut turns, failures -----------------------------------------------------------------------


def test_a_mixed_turn_relays_the_clients_call_and_keeps_the_memory_call_for_the_loop() -> None:
    client_call = call_item("fc_c1", "call_c1", "get_weather", '{"city":"Paris"}')
    splitter = ResponseEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop(extra=[client_call]))))
    turn = splitter.hop_end()
    assert turn.relayed == 1 and turn.order == ["call_m1", "call_c1"]
    out += splitter.finish_chunk(turn.reason) + splitter.finish()
    events = events_of(out)
    assert [e["type"] for e in events].count("response.completed") == 1
    final = events[-1]["response"]
    assert [item["id"] for item in final["output"]] == ["rs_1", "fc_c1"]
    calls = [e for e in events if e.get("item", {}).get("type") == "function_call"]
    assert {e["output_index"] for e in calls} == {1}


def test_a_cut_hop_is_reported_and_the_response_ends_incomplete() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    hop = {**hidden_hop(), "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    out = b"".join(splitter.push(data) for data in encode(hop_events(hop, end="response.incomplete")))
    turn = splitter.hop_end()
    assert turn.cut and turn.reason == "incomplete"
    events = events_of(out + splitter.finish_chunk(turn.reason) + splitter.finish())
    assert events[-1]["type"] == "response.incomplete"
    assert [item["id"] for item in events[-1]["response"]["output"]] == ["rs_1"]
    validate_event(events[-1])


def test_an_upstream_error_event_ends_the_stream_renumbered() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    events = hop_events(hidden_hop())[:3]
    error = {
        "type": "error",
        "sequence_number": 99,
        "error": {"type": "server_error", "code": "server_error", "message": "boom", "param": None},
    }
    out = b"".join(splitter.push(data) for data in encode([*events, error]))
    assert splitter.ended and splitter.failed
    assert events_of(out)[-1] == {**error, "sequence_number": 3}


def test_a_failed_later_hop_ends_the_clients_response_as_failed_under_its_identity() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    for data in encode(hop_events(hidden_hop())):
        splitter.push(data)
    splitter.hop_end()
    splitter.next_hop()
    failed = {**final_hop(), "status": "failed", "output": [], "error": {"code": "server_error", "message": "x"}}
    out = b"".join(splitter.push(data) for data in encode(hop_events(failed, end="response.failed")))
    assert splitter.failed
    event = events_of(out)[-1]
    assert event["type"] == "response.failed" and event["response"]["id"] == "resp_1"
    assert [item["id"] for item in event["response"]["output"]] == ["rs_1"]
    assert event["response"]["usage"]["input_tokens"] == 250
    validate_event(event)


@pytest.mark.parametrize(
    ("body", "message", "code"),
    [
        (
            b'{"error": {"message": "Rate limit", "type": "requests", "code": "rate_limit_exceeded"}}',
            "Rate limit",
            "rate_limit_exceeded",
        ),
        (b"<html>bad gateway</html>", "upstream answered 502: <html>bad gateway</html>", "upstream_error"),
    ],
)
def test_an_upstream_error_on_a_later_hop_becomes_an_error_event(body: bytes, message: str, code: str) -> None:
    splitter = ResponseEvents(hidden=NAMES)
    for data in encode(hop_events(hidden_hop())):
        splitter.push(data)
    event = events_of(splitter.upstream_error(502, body))[0]
    assert event["message"] == message and event["code"] == code
    assert event["error"]["message"] == message
    validate_event(event)


def test_an_error_event_is_numbered_in_sequence_and_ends_the_stream() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop())[:2]))
    out += splitter.error_event("the upstream stream failed")
    events = events_of(out)
    assert events[-1]["sequence_number"] == 2 and splitter.failed
    validate_event(events[-1])


def test_a_stream_cut_before_its_end_is_not_complete() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    for data in encode(hop_events(hidden_hop())[:-1]):
        splitter.push(data)
    assert not splitter.ended and not splitter.complete


def test_a_done_marker_is_tolerated() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    assert splitter.push(b"[DONE]") == b"" and not splitter.ended


def test_an_event_that_is_not_json_breaks_the_grammar() -> None:
    with pytest.raises(StreamProtocolError):
        ResponseEvents().push(b"{not json")
    with pytest.raises(StreamProtocolError):
        ResponseEvents().push(b'{"no": "type"}')


def test_items_come_from_their_done_events_when_the_final_response_lists_none() -> None:
    hop = hidden_hop()
    events = hop_events(hop)
    events[-1] = {**events[-1], "response": {**hop, "output": []}}
    splitter = ResponseEvents(hidden=NAMES)
    for data in encode(events):
        splitter.push(data)
    assert splitter.hop_end().hidden == [Call("call_m1", "memory_search", SEARCH)]
    assert splitter.made_memory_calls()


def test_the_loop_is_told_whether_a_hop_made_memory_calls() -> None:
    client_call = call_item("fc_c1", "call_c1", "get_weather", '{"city":"Paris"}')
    answers = {
        "text": final_hop(),
        "client call": response("resp_3", output=[client_call], usage=usage(5, 1), tools=TOOLS),
        "memory call": hidden_hop(),
    }
    made = {}
    for name, answer in answers.items():
        splitter = ResponseEvents(hidden=NAMES)
        for data in encode(hop_events(answer)):
            splitter.push(data)
        made[name] = splitter.made_memory_calls()
        assert made[name] == bool(splitter.hop_end().hidden)
    assert made == {"text": False, "client call": False, "memory call": True}


# -- through the SDK ----------------------------------------------------------------------------------------


def sdk_client(body: bytes) -> openai.OpenAI:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    return openai.OpenAI(api_key="sk-test", base_url="http://upstream.test/v1", http_client=http, max_retries=0)


def test_openais_stream_accumulator_reads_the_spliced_stream() -> None:
    _, out = run([hop_events(hidden_hop()), hop_events(final_hop())])
    client = sdk_client(out)
    with client.responses.stream(model="gpt-5", input="weather?", tools=[CLIENT_TOOL]) as stream:  # type: ignore[list-item]
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert kinds.count("response.completed") == 1
    assert final.output_text == "It is sunny in Paris, as you like it."
    assert [item.type for item in final.output] == ["reasoning", "reasoning", "message"]
    assert final.usage is not None and final.usage.total_tokens == 280


def test_openais_sdk_raises_on_the_error_event() -> None:
    splitter = ResponseEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop())[:2]))
    client = sdk_client(out + splitter.error_event("the upstream stream failed"))
    with (
        pytest.raises(openai.APIError, match="the upstream stream failed"),
        client.responses.stream(model="gpt-5", input="weather?") as stream,
    ):
        for _ in stream:
            pass


def test_openais_accumulator_reads_a_client_call_relayed_after_a_hidden_one() -> None:
    client_call = call_item("fc_c1", "call_c1", "get_weather", '{"city":"Paris"}')
    splitter = ResponseEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop(extra=[client_call]))))
    turn = splitter.hop_end()
    out += splitter.finish_chunk(turn.reason) + splitter.finish()
    with sdk_client(out).responses.stream(model="gpt-5", input="weather?") as stream:
        deltas = [event.snapshot for event in stream if event.type == "response.function_call_arguments.delta"]
        final = stream.get_final_response()
    assert deltas[-1] == '{"city":"Paris"}'
    assert [(item.type, getattr(item, "name", None)) for item in final.output] == [
        ("reasoning", None),
        ("function_call", "get_weather"),
    ]


def test_what_a_hosted_tool_brought_in_is_known_over_the_hops() -> None:
    searched = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"query": "x"}}
    splitter, _ = run([hop_events(hidden_hop(extra=[searched])), hop_events(final_hop())])
    assert splitter.brought == ("web_search",)
    assert two_hops()[0].brought == ()
