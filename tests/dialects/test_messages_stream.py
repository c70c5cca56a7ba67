"""The Messages stream splitter: several upstream streams relayed as one message's events (COMPAT E)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from proxy.dialects.base import Call
from proxy.dialects.messages import MESSAGES
from proxy.dialects.messages_stream import MessageEvents
from proxy.pipe.sse import StreamProtocolError
from proxy.tools.memory_tools import NAMES

from .messages_wire import (
    SIGNATURE,
    check_event,
    encode,
    frame,
    hop_events,
    message,
    sdk,
    text,
    thinking,
    tool_use,
    usage,
)
from .responses_wire import decoded, parse_named

SEARCH = {"query": "weather preferences"}


def hidden_hop(*extra: dict[str, Any]) -> dict[str, Any]:
    content = [
        thinking("The user may have told me before."),
        text("Let me check."),
        tool_use("toolu_m1", "memory_search", SEARCH),
    ]
    return message("msg_1", [*content, *extra], "tool_use", usage(100, 30, read=50))


def final_hop() -> dict[str, Any]:
    return message("msg_2", [text("Sunny, as you like it.")], "end_turn", usage(160, 8, read=100))


def run(hops: Sequence[list[dict[str, Any]]], hidden: frozenset[str] = NAMES) -> tuple[MessageEvents, bytes]:
    """The tool loop's part: relay each hop, then go on while the hop made memory calls only."""
    splitter = MessageEvents(hidden=hidden)
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
        assert name == data["type"]
    return [data for _, data in parsed]


def two_hops() -> tuple[bytes, list[dict[str, Any]]]:
    _, out = run([hop_events(hidden_hop()), hop_events(final_hop())])
    return out, events_of(out)


def test_a_stream_without_memory_tools_is_relayed_byte_for_byte() -> None:
    events = hop_events(final_hop())
    _, out = run([events], hidden=frozenset())
    assert out == frame(events)


def test_a_hop_with_a_memory_call_ends_with_the_call_and_the_blocks_as_sent() -> None:
    splitter = MessageEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop())))
    assert splitter.ended and b"memory_search" not in out and b"toolu_m1" not in out
    turn = splitter.hop_end()
    assert turn.hidden == [Call("toolu_m1", "memory_search", orjson.dumps(SEARCH).decode())]
    assert turn.order == ["toolu_m1"] and turn.relayed == 0 and turn.reason == "tool_use" and not turn.cut
    assert turn.content == "Let me check."
    assert turn.state == tuple(hidden_hop()["content"])  # thinking with its signature, text, the call


def test_the_client_gets_one_message_start_and_one_message_stop() -> None:
    _, events = two_hops()
    kinds = [event["type"] for event in events]
    assert kinds.count("message_start") == kinds.count("message_stop") == kinds.count("message_delta") == 1
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert events[0]["message"]["id"] == "msg_1"


def test_block_indexes_run_without_gaps_over_the_hops() -> None:
    _, events = two_hops()
    starts = [(e["index"], e["content_block"]["type"]) for e in events if e["type"] == "content_block_start"]
    assert starts == [(0, "thinking"), (1, "text"), (2, "text")]
    for event in events:
        if event["type"].startswith("content_block_"):
            assert event["index"] in (0, 1, 2)


def test_the_last_message_delta_carries_usage_summed_over_the_hops() -> None:
    _, events = two_hops()
    delta = events[-2]
    assert delta["delta"]["stop_reason"] == "end_turn"
    assert delta["usage"] == {
        "output_tokens": 38,
        "input_tokens": 260,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 150,
    }


def test_thinking_and_its_signature_pass_unchanged() -> None:
    out, events = two_hops()
    upstream = hop_events(hidden_hop())
    signature = next(e for e in upstream if e.get("delta", {}).get("type") == "signature_delta")
    assert orjson.dumps(signature) in out  # the upstream's own bytes
    thinking_deltas = [e["delta"]["thinking"] for e in events if e.get("delta", {}).get("type") == "thinking_delta"]
    assert "".join(thinking_deltas) == "The user may have told me before."


def test_every_event_the_client_gets_is_one_of_anthropics() -> None:
    _, events = two_hops()
    for event in events:
        check_event(event)


def test_the_stream_is_the_same_however_the_upstream_bytes_are_split() -> None:
    hops = [frame(hop_events(hidden_hop())), frame(hop_events(final_hop()))]
    expected = None
    for size in range(1, max(map(len, hops)) + 1):  # every size, from one byte
        splitter = MessageEvents(hidden=NAMES)
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


def test_a_mixed_turn_relays_the_clients_call_and_ends_with_tool_use() -> None:
    splitter = MessageEvents(hidden=NAMES)
    client_call = tool_use("toolu_c1", "get_weather", {"city": "Paris"})
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop(client_call))))
    turn = splitter.hop_end()
    assert turn.relayed == 1 and turn.order == ["toolu_m1", "toolu_c1"]
    events = events_of(out + splitter.finish_chunk(turn.reason) + splitter.finish())
    uses = [e for e in events if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"]
    assert [(e["index"], e["content_block"]["id"]) for e in uses] == [(2, "toolu_c1")]
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert [e["type"] for e in events].count("message_delta") == 1


def test_the_answer_a_session_keeps_holds_the_text_and_client_calls_and_no_memory_call() -> None:
    splitter = MessageEvents(hidden=NAMES)
    client_call = tool_use("toolu_c1", "get_weather", {"city": "Paris"})
    for data in encode(hop_events(hidden_hop(client_call))):
        splitter.push(data)
    weather = {
        "id": "toolu_c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    assert splitter.answer() == [{"role": "assistant", "content": "Let me check.", "tool_calls": [weather]}]


def test_a_memory_call_left_when_the_loop_stops_ends_the_turn_as_end_turn() -> None:
    splitter = MessageEvents(hidden=NAMES)
    for data in encode(hop_events(hidden_hop())):
        splitter.push(data)
    turn = splitter.hop_end()
    out = splitter.finish_chunk(MESSAGES.visible_reason(turn.reason, turn.relayed)) + splitter.finish()
    assert events_of(out)[0]["delta"]["stop_reason"] == "end_turn"


def test_a_cut_turn_is_reported() -> None:
    splitter = MessageEvents(hidden=NAMES)
    for data in encode(hop_events({**hidden_hop(), "stop_reason": "max_tokens"})):
        splitter.push(data)
    assert splitter.hop_end().cut


def test_counts_a_later_event_leaves_out_are_kept_from_earlier_ones() -> None:
    splitter = MessageEvents(hidden=NAMES)
    events = hop_events(final_hop())
    events[-2] = {**events[-2], "usage": {"output_tokens": 8, "input_tokens": None, "cache_read_input_tokens": None}}
    for data in encode(events):
        splitter.push(data)
    splitter.next_hop()
    for data in encode(hop_events(final_hop())):
        splitter.push(data)
    assert events_of(splitter.finish())[0]["usage"]["cache_read_input_tokens"] == 200


def test_a_close_after_the_stop_reason_still_ends_the_message() -> None:
    splitter = MessageEvents(hidden=NAMES)
    for data in encode(hop_events(final_hop())[:-1]):
        splitter.push(data)
    assert not splitter.ended and splitter.complete
    assert [e["type"] for e in events_of(splitter.finish())] == ["message_delta", "message_stop"]


def test_an_upstream_error_event_ends_the_stream_as_it_came() -> None:
    splitter = MessageEvents(hidden=NAMES)
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    out = splitter.push(orjson.dumps(error))
    assert splitter.failed and splitter.ended and out == frame([error])


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            529,
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            ("overloaded_error", "Overloaded"),
        ),
        (
            429,
            b'{"error":{"message":"slow down","type":"requests","code":"rate_limit"}}',
            ("rate_limit_error", "slow down"),
        ),
        (502, b"<html>bad gateway</html>", ("api_error", "upstream answered 502: <html>bad gateway</html>")),
    ],
)
def test_an_upstream_error_on_a_later_hop_is_an_anthropic_error_event(
    status: int, body: bytes, expected: tuple[str, str]
) -> None:
    splitter = MessageEvents(hidden=NAMES)
    event = events_of(splitter.upstream_error(status, body))[0]
    assert (event["error"]["type"], event["error"]["message"]) == expected
    check_event(event)


def test_the_proxys_own_error_event_is_in_anthropics_shape() -> None:
    splitter = MessageEvents(hidden=NAMES)
    event = events_of(splitter.error_event("the upstream stream failed"))[0]
    assert event == {"type": "error", "error": {"type": "api_error", "message": "the upstream stream failed"}}
    assert splitter.failed


def test_an_event_that_is_not_json_breaks_the_grammar() -> None:
    with pytest.raises(StreamProtocolError):
        MessageEvents().push(b"nope")


# -- through the SDK ----------------------------------------------------------------------------------------


def sdk_client(body: bytes) -> Any:
    anthropic = sdk()
    import httpx2  # the transport anthropic's SDK is built on

    def answer(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    return anthropic.Anthropic(api_key="sk-test", base_url="http://upstream.test", http_client=http, max_retries=0)


def test_anthropics_stream_accumulator_reads_the_spliced_stream() -> None:
    out, _ = two_hops()
    client = sdk_client(out)
    with client.messages.stream(model="claude", max_tokens=100, messages=[{"role": "user", "content": "hi"}]) as stream:
        for _ in stream:
            pass
        final = stream.get_final_message()
    assert [block.type for block in final.content] == ["thinking", "text", "text"]
    assert final.content[0].signature == SIGNATURE
    assert final.content[1].text + final.content[2].text == "Let me check.Sunny, as you like it."
    assert final.stop_reason == "end_turn" and final.id == "msg_1"
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.cache_read_input_tokens) == (260, 38, 150)


def test_anthropics_sdk_raises_on_the_error_event() -> None:
    splitter = MessageEvents(hidden=NAMES)
    out = b"".join(splitter.push(data) for data in encode(hop_events(hidden_hop())[:3]))
    client = sdk_client(out + splitter.error_event("the upstream stream failed"))
    anthropic = sdk()
    with (
        pytest.raises(anthropic.APIStatusError, match="the upstream stream failed"),
        client.messages.stream(model="claude", max_tokens=100, messages=[{"role": "user", "content": "hi"}]) as stream,
    ):
        for _ in stream:
            pass


def test_the_loop_is_told_whether_a_hop_made_memory_calls() -> None:
    client_call = tool_use("toolu_c1", "get_weather", {"city": "Paris"})
    answers = {
        "text": message("msg_2", [text("Sunny.")], "end_turn", usage(160, 8)),
        "client call": message("msg_3", [client_call], "tool_use", usage(160, 8)),
        "memory call": hidden_hop(),
    }
    made = {}
    for name, answer in answers.items():
        splitter = MessageEvents(hidden=NAMES)
        for data in encode(hop_events(answer)):
            splitter.push(data)
        made[name] = splitter.made_memory_calls()
        assert made[name] == bool(splitter.hop_end().hidden)
    assert made == {"text": False, "client call": False, "memory call": True}


def test_what_a_server_tool_brought_in_is_known_over_the_hops() -> None:
    fetch = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": "x"}}
    fetched = {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "web_fetch_result"}}
    splitter, _ = run([hop_events(hidden_hop(fetch, fetched)), hop_events(final_hop())])
    assert splitter.brought == ("web_fetch",)
    assert run([hop_events(hidden_hop()), hop_events(final_hop())])[0].brought == ()
