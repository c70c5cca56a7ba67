"""The normaliser with the proxy's own tools hidden: what the client sees of a tool loop (COMPAT C, D, E1, E3)."""

from __future__ import annotations

from typing import Any

import orjson

from proxy.dialects.base import Call
from proxy.dialects.chat_stream import DONE, ChunkNormaliser
from proxy.tools.memory_tools import NAMES

FIRST_ID, FIRST_CREATED = "chatcmpl-1", 100


def chunk(choices: Any = None, *, id: str = FIRST_ID, created: int = FIRST_CREATED, **extra: Any) -> dict[str, Any]:
    body = {"id": id, "object": "chat.completion.chunk", "created": created, "model": "m", "choices": choices}
    return body | extra


def choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def calls(*fragments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return chunk([choice({"tool_calls": list(fragments)})], **extra)


def first(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def more(index: int, arguments: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}


def decode(out: bytes) -> list[Any]:
    events = []
    for block in out.split(b"\n\n"):
        if block.startswith(b"data: "):
            data = block[len(b"data: ") :]
            events.append("[DONE]" if data == b"[DONE]" else orjson.loads(data))
    return events


class Client:
    """A normaliser hiding the memory tools, and everything it relayed so far (as the client would read it)."""

    def __init__(self, *, include_usage: bool = True) -> None:
        self.normaliser = ChunkNormaliser(include_usage=include_usage, hidden=NAMES)
        self.out = b""

    def push(self, *events: Any) -> list[Any]:
        """Push upstream events; return what each one relayed (decoded; [] when it relayed nothing)."""
        relayed = []
        for event in events:
            out = self.normaliser.push(event if isinstance(event, bytes) else orjson.dumps(event))
            self.out += out
            relayed.append(decode(out))
        return relayed

    def send(self, data: bytes) -> None:
        self.out += data

    @property
    def events(self) -> list[Any]:
        return decode(self.out)

    @property
    def chunks(self) -> list[dict[str, Any]]:
        return [event for event in self.events if event != "[DONE]"]

    def fragments(self) -> list[dict[str, Any]]:
        return [f for e in self.chunks for c in e["choices"] for f in c["delta"].get("tool_calls", [])]


USAGE_1 = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "prompt_tokens_details": {"cached_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 5},
}
USAGE_2 = {
    "prompt_tokens": 150,
    "completion_tokens": 10,
    "total_tokens": 160,
    "prompt_tokens_details": {"cached_tokens": 96},
    "completion_tokens_details": {"reasoning_tokens": 0},
}
USAGE_SUM = {
    "prompt_tokens": 250,
    "completion_tokens": 30,
    "total_tokens": 280,
    "prompt_tokens_details": {"cached_tokens": 96},
    "completion_tokens_details": {"reasoning_tokens": 5},
}


def mixed_turn() -> list[Any]:
    """The model calls memory_store, then get_weather, then memory_search, streamed OpenAI's way."""
    return [
        chunk([choice({"role": "assistant", "content": None})]),
        calls(first(0, "call_m1", "memory_store")),
        calls(more(0, '{"text":')),
        calls(more(0, '"User lives in Paris"}')),
        calls(first(1, "call_c1", "get_weather")),
        calls(more(1, '{"city":')),
        calls(more(1, '"Paris"}')),
        calls(first(2, "call_m2", "memory_search", '{"query":"weather"}')),
        chunk([choice({}, "tool_calls")]),
        chunk([], usage=USAGE_1),
        b"[DONE]",
    ]


# -- one hop ------------------------------------------------------------------------------------------------


def test_memory_calls_are_never_relayed_and_client_calls_are_renumbered_from_zero() -> None:
    client = Client()
    client.push(*mixed_turn())
    fragments = client.fragments()
    assert fragments == [
        {"index": 0, "id": "call_c1", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"city":'}},
        {"index": 0, "function": {"arguments": '"Paris"}'}},
    ]
    assert b"memory_" not in client.out and b"call_m" not in client.out


def test_the_answer_a_session_keeps_holds_the_client_calls_whole_and_no_memory_call() -> None:
    client = Client()
    client.push(*mixed_turn())
    weather = {
        "id": "call_c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    assert client.normaliser.answer() == [{"role": "assistant", "content": None, "tool_calls": [weather]}]


def test_chunks_that_only_carried_held_back_parts_are_dropped() -> None:
    client = Client()
    relayed = client.push(*mixed_turn())
    assert [len(r) for r in relayed] == [1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0]
    for event in client.chunks:  # nothing hollow reached the client: every chunk says something
        assert event["choices"][0]["delta"] or event["choices"][0]["finish_reason"]


def test_the_finish_reason_of_a_turn_with_memory_calls_is_held_for_the_loop() -> None:
    client = Client()
    client.push(*mixed_turn())
    assert client.normaliser.held_reason == "tool_calls"
    assert all(c["finish_reason"] is None for e in client.chunks for c in e["choices"])
    assert client.normaliser.ended


def test_hop_end_reports_the_hidden_calls_whole_in_the_models_order() -> None:
    client = Client()
    client.push(*mixed_turn())
    end = client.normaliser.hop_end()
    assert end.hidden == [
        Call("call_m1", "memory_store", '{"text":"User lives in Paris"}'),
        Call("call_m2", "memory_search", '{"query":"weather"}'),
    ]
    assert end.order == ["call_m1", "call_c1", "call_m2"]
    assert end.relayed == 1
    assert end.reason == "tool_calls"
    assert end.content is None


def test_a_turn_without_memory_calls_is_relayed_with_its_finish_reason() -> None:
    client = Client()
    client.push(
        chunk([choice({"role": "assistant", "content": "Hi"})]),
        calls(first(0, "call_c1", "get_weather", "{}")),
        chunk([choice({}, "tool_calls")]),
    )
    assert client.normaliser.held_reason is None
    assert client.chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    end = client.normaliser.hop_end()
    assert end.hidden == [] and end.relayed == 1 and end.order == ["call_c1"]


def test_a_call_whose_name_comes_after_its_arguments_is_held_until_the_name_decides() -> None:
    client = Client()
    relayed = client.push(
        chunk([choice({"role": "assistant"})]),
        calls({"index": 0, "id": "call_m1", "function": {"arguments": '{"query":'}}),
        calls({"index": 0, "function": {"name": "memory_search", "arguments": '"tabs"}'}}),
        calls({"index": 1, "id": "call_c1", "function": {"arguments": '{"city":'}}),
        calls({"index": 1, "function": {"name": "get_weather", "arguments": '"Oslo"}'}}),
        calls(more(1, "")),
        chunk([choice({}, "tool_calls")]),
    )
    assert relayed[1] == [] and relayed[2] == [] and relayed[3] == []  # nothing before the name is known
    assert client.fragments() == [
        {
            "index": 0,
            "id": "call_c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
        }
    ]
    end = client.normaliser.hop_end()
    assert end.hidden == [Call("call_m1", "memory_search", '{"query":"tabs"}')]
    assert end.order == ["call_m1", "call_c1"]


def test_a_memory_call_sent_whole_and_then_summarised_again_is_kept_once() -> None:
    client = Client()
    whole = first(0, "call_m1", "memory_delete", '{"id":"m-3"}')
    client.push(chunk([choice({"role": "assistant"})]), calls(whole), calls(whole), chunk([choice({}, "tool_calls")]))
    assert client.normaliser.hop_end().hidden == [Call("call_m1", "memory_delete", '{"id":"m-3"}')]
    assert client.fragments() == []


def test_content_of_a_turn_with_memory_calls_is_relayed_and_reported() -> None:
    client = Client()
    client.push(
        chunk([choice({"role": "assistant", "content": ""})]),
        chunk([choice({"content": "Let me "})]),
        chunk([choice({"content": "check."})]),
        calls(first(0, "call_m1", "memory_search", "{}")),
        chunk([choice({}, "tool_calls")]),
    )
    assert [c["delta"].get("content") for e in client.chunks for c in e["choices"]] == ["", "Let me ", "check."]
    assert client.normaliser.hop_end().content == "Let me check."


def test_finish_chunk_shape() -> None:
    client = Client()
    client.push(*mixed_turn())
    assert decode(client.normaliser.finish_chunk("tool_calls")) == [
        {
            "id": FIRST_ID,
            "object": "chat.completion.chunk",
            "created": FIRST_CREATED,
            "model": "m",
            "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "tool_calls"}],
            "usage": None,
        }
    ]
    quiet = Client(include_usage=False)
    quiet.push(*mixed_turn())
    (event,) = decode(quiet.normaliser.finish_chunk("stop"))
    assert "usage" not in event and event["choices"][0]["finish_reason"] == "stop"


def test_a_mixed_turn_ends_with_the_held_reason_then_one_usage_chunk() -> None:
    client = Client()
    client.push(*mixed_turn())
    client.send(client.normaliser.finish_chunk(client.normaliser.held_reason))
    client.send(client.normaliser.finish())
    events = client.events
    assert events[-1] == "[DONE]" and client.out.endswith(DONE) and client.out.count(b"[DONE]") == 1
    assert events[-3]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-2]["choices"] == [] and events[-2]["usage"] == USAGE_1
    assert all(e.get("usage") is None for e in events[:-2])


# -- two hops -----------------------------------------------------------------------------------------------


def hidden_hop() -> list[Any]:
    return [
        chunk([choice({"role": "assistant", "content": None})], system_fingerprint="fp_1"),
        calls(first(0, "call_m1", "memory_search", '{"query":"editor"}')),
        chunk([choice({}, "tool_calls")], usage=None),
        chunk([], usage=USAGE_1),
        b"[DONE]",
    ]


def answer_hop() -> list[Any]:
    second = {"id": "chatcmpl-2", "created": 200}
    return [
        chunk([choice({"role": "assistant", "content": ""})], **second),
        chunk([choice({"content": "You use vim."})], **second),
        chunk([choice({}, "stop")], **second),
        chunk([], usage=USAGE_2, **second),
        b"[DONE]",
    ]


def two_hops(*, include_usage: bool) -> Client:
    client = Client(include_usage=include_usage)
    client.push(*hidden_hop())
    end = client.normaliser.hop_end()
    assert end.hidden and end.relayed == 0  # what makes the loop call again
    client.normaliser.next_hop()
    assert client.normaliser.held_reason is None and not client.normaliser.ended
    client.push(*answer_hop())
    client.send(client.normaliser.finish())
    return client


def test_the_second_hop_keeps_the_first_hops_id_and_created() -> None:
    client = two_hops(include_usage=True)
    assert {(e["id"], e["created"]) for e in client.chunks} == {(FIRST_ID, FIRST_CREATED)}


def test_the_role_is_not_repeated_by_the_second_hop() -> None:
    client = two_hops(include_usage=True)
    roles = [c["delta"]["role"] for e in client.chunks for c in e["choices"] if "role" in c["delta"]]
    assert roles == ["assistant"]


def test_the_client_sees_one_answer_with_its_finish_reason() -> None:
    client = two_hops(include_usage=True)
    choices = [c for e in client.chunks for c in e["choices"]]
    assert "".join(c["delta"].get("content") or "" for c in choices) == "You use vim."
    assert [c["finish_reason"] for c in choices if c["finish_reason"]] == ["stop"]
    assert client.fragments() == []
    assert client.events.count("[DONE]") == 1 and client.events[-1] == "[DONE]"


def test_usage_of_both_hops_is_summed_into_exactly_one_usage_chunk() -> None:
    client = two_hops(include_usage=True)
    usage_chunks = [e for e in client.chunks if e.get("usage") is not None]
    assert usage_chunks == [client.chunks[-1]]
    assert usage_chunks[0]["choices"] == [] and usage_chunks[0]["usage"] == USAGE_SUM
    assert usage_chunks[0]["id"] == FIRST_ID and usage_chunks[0]["system_fingerprint"] == "fp_1"


def test_no_usage_chunk_without_include_usage_even_across_hops() -> None:
    client = two_hops(include_usage=False)
    assert all(e["choices"] for e in client.chunks)
    assert all(e.get("usage") is None for e in client.chunks)


def test_client_calls_of_the_second_hop_start_again_at_index_zero() -> None:
    client = Client()
    client.push(*hidden_hop())
    client.normaliser.next_hop()
    client.push(
        calls(first(1, "call_c1", "get_weather", '{"city":"Oslo"}'), id="chatcmpl-2", created=200),
        chunk([choice({}, "tool_calls")], id="chatcmpl-2", created=200),
    )
    assert [(f["index"], f["id"]) for f in client.fragments()] == [(0, "call_c1")]
    assert client.normaliser.held_reason is None
    assert client.chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    end = client.normaliser.hop_end()
    assert end.hidden == [] and end.order == ["call_c1"] and end.relayed == 1


def test_the_loop_is_told_whether_a_hop_made_memory_calls() -> None:
    mixed, text, client_only = Client(), Client(), Client()
    mixed.push(*mixed_turn())
    text.push(chunk([choice({"role": "assistant", "content": "Hi"})]), chunk([choice({}, "stop")]))
    client_only.push(chunk([choice({"role": "assistant"})]), calls(first(0, "call_c1", "get_weather", "{}")))
    assert mixed.normaliser.made_memory_calls()
    assert not text.normaliser.made_memory_calls() and not text.normaliser.hop_end().hidden
    assert not client_only.normaliser.made_memory_calls() and client_only.normaliser.hop_end().relayed == 1
