from typing import Any

import orjson
import pytest

from proxy.dialects.chat_stream import ChunkNormaliser
from proxy.pipe.sse import StreamProtocolError


def chunk(choices: Any = None, *, id: str = "chatcmpl-1", created: int = 100, **extra: Any) -> dict[str, Any]:
    body = {"id": id, "object": "chat.completion.chunk", "created": created, "model": "m", "choices": choices}
    return body | extra


def choice(delta: dict[str, Any], finish_reason: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def relay(events: list[Any], *, include_usage: bool = True) -> tuple[list[Any], bytes]:
    """Run events through a normaliser; return the relayed events (decoded) and the raw output."""
    normaliser = ChunkNormaliser(include_usage=include_usage)
    out = b""
    for event in events:
        out += normaliser.push(event if isinstance(event, bytes) else orjson.dumps(event))
    out += normaliser.finish()
    relayed = []
    for block in out.split(b"\n\n"):
        if block.startswith(b"data: "):
            data = block[len(b"data: ") :]
            relayed.append("[DONE]" if data == b"[DONE]" else orjson.loads(data))
    return relayed, out


def tool_fragments(relayed: list[Any]) -> list[dict[str, Any]]:
    return [
        fragment
        for event in relayed
        if isinstance(event, dict)
        for c in event["choices"]
        for fragment in c["delta"].get("tool_calls", [])
    ]


def test_a_well_formed_stream_is_relayed_byte_for_byte() -> None:
    events = [
        chunk([choice({"role": "assistant", "content": ""})], usage=None, obfuscation="x1"),
        chunk([choice({"content": "Hi"})], usage=None, system_fingerprint="fp_1"),
        chunk([choice({}, "stop")], usage=None),
        chunk([], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}),
        b"[DONE]",
    ]
    _, out = relay(events)
    expected = b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in events[:-1]) + b"data: [DONE]\n\n"
    assert out == expected


def test_role_is_sent_only_in_the_first_delta() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"role": "assistant", "content": "a"})]),
            chunk([choice({"role": "assistant", "content": "b"})]),
            chunk([choice({"role": "assistant"}, "stop")]),
        ]
    )
    roles = [c["delta"].get("role") for e in relayed if e != "[DONE]" for c in e["choices"]]
    assert roles == ["assistant", None, None]


def test_id_and_created_are_the_same_on_every_chunk() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"content": "a"})], id="first", created=1),
            chunk([choice({"content": "b"})], id="second", created=2),
            chunk([choice({}, "stop")], id="third", created=3),
        ]
    )
    assert {(e["id"], e["created"]) for e in relayed if e != "[DONE]"} == {("first", 1)}


def test_null_choices_become_an_empty_list_and_usage_goes_last() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"content": "a"}, "stop")]),
            chunk(None, usage={"total_tokens": 5}),  # vLLM's usage chunk
        ]
    )
    assert relayed[-2]["choices"] == [] and relayed[-2]["usage"] == {"total_tokens": 5}
    assert relayed[-1] == "[DONE]"


def test_usage_on_the_finish_chunk_becomes_one_usage_chunk_before_done() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"content": "a"})], usage={"total_tokens": 1}),  # cumulative usage on every chunk
            chunk([choice({}, "stop")], usage={"total_tokens": 9}),
            b"[DONE]",
        ]
    )
    usage_chunks = [e for e in relayed if e != "[DONE]" and e.get("usage")]
    assert usage_chunks == [relayed[-2]]
    assert relayed[-2]["choices"] == [] and relayed[-2]["usage"] == {"total_tokens": 9}
    assert all(e["usage"] is None for e in relayed[:-2])


def test_a_usage_chunk_before_the_last_choice_chunk_is_moved_to_the_end() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"content": "a"})]),
            chunk([], usage={"total_tokens": 3}),
            chunk([choice({}, "stop")]),
            b"[DONE]",
        ]
    )
    assert relayed[-3]["choices"][0]["finish_reason"] == "stop"
    assert relayed[-2]["usage"] == {"total_tokens": 3}


def test_no_usage_chunk_reaches_a_client_that_did_not_ask_for_it() -> None:
    relayed, _ = relay(
        [chunk([choice({"content": "a"}, "stop")]), chunk([], usage={"total_tokens": 3}), b"[DONE]"],
        include_usage=False,
    )
    assert [e for e in relayed if e != "[DONE]" and not e["choices"]] == []


def test_parallel_calls_sharing_index_zero_are_renumbered_by_id() -> None:
    relayed, _ = relay(
        [  # Ollama: every call at index 0
            chunk([choice({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]})]),
            chunk([choice({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": "{}"}}]})]),
            chunk([choice({}, "tool_calls")]),
        ]
    )
    assert [(f["index"], f["id"], f["function"]["name"]) for f in tool_fragments(relayed)] == [
        (0, "a", "f"),
        (1, "b", "g"),
    ]


def test_indices_start_at_zero_and_have_no_gaps() -> None:
    relayed, _ = relay(
        [  # Copilot: first index 1
            chunk(
                [
                    choice(
                        {
                            "tool_calls": [
                                {"index": 1, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}
                            ]
                        }
                    )
                ]
            ),
            chunk([choice({"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]})]),
            chunk(
                [
                    choice(
                        {
                            "tool_calls": [
                                {
                                    "index": 3,
                                    "id": "b",
                                    "type": "function",
                                    "function": {"name": "g", "arguments": "{}"},
                                }
                            ]
                        }
                    )
                ]
            ),
            chunk([choice({}, "tool_calls")]),
        ]
    )
    assert [f["index"] for f in tool_fragments(relayed)] == [0, 0, 1]


def test_id_and_name_only_in_a_calls_first_fragment_and_summaries_are_dropped() -> None:
    call = {"index": 0, "id": "call_x", "type": "function"}
    relayed, _ = relay(
        [  # LiteLLM: id on every fragment, then a summary of the whole call
            chunk([choice({"tool_calls": [call | {"function": {"name": "f", "arguments": '{"a":'}}]})]),
            chunk([choice({"tool_calls": [call | {"function": {"arguments": "1}"}}]})]),
            chunk([choice({"tool_calls": [call | {"function": {"name": "f", "arguments": '{"a":1}'}}]})]),
            chunk([choice({}, "tool_calls")]),
        ]
    )
    fragments = tool_fragments(relayed)
    assert fragments[0] == {
        "index": 0,
        "id": "call_x",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a":'},
    }
    assert fragments[1:] == [{"index": 0, "function": {"arguments": "1}"}}]


def test_missing_call_ids_are_made_up_once_per_call() -> None:
    relayed, _ = relay(
        [  # vLLM: no id
            chunk([choice({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": ""}}]})]),
            chunk([choice({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})]),
            chunk([choice({}, "tool_calls")]),
        ]
    )
    first, second = tool_fragments(relayed)
    assert first["id"].startswith("call_") and first["type"] == "function"
    assert "id" not in second


def test_arguments_that_arrive_before_the_name_are_held_until_it_comes() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": '{"q":'}}]})]),
            chunk([choice({"tool_calls": [{"index": 0, "function": {"name": "search", "arguments": '"x"}'}}]})]),
            chunk([choice({}, "tool_calls")]),
        ]
    )
    assert tool_fragments(relayed) == [
        {"index": 0, "id": "c", "type": "function", "function": {"name": "search", "arguments": '{"q":"x"}'}}
    ]


def test_choices_of_n_greater_than_one_keep_their_own_calls_and_finish() -> None:
    relayed, _ = relay(
        [
            chunk([choice({"role": "assistant", "content": "a"}, index=0)]),
            chunk([choice({"role": "assistant", "content": "b"}, index=1)]),
            chunk(
                [
                    choice(
                        {"tool_calls": [{"index": 0, "id": "x", "function": {"name": "f", "arguments": "{}"}}]}, index=1
                    )
                ]
            ),
            chunk([choice({}, "stop", index=0)]),
            chunk([choice({}, "tool_calls", index=1)]),
        ]
    )
    assert [c["delta"].get("role") for e in relayed[:2] for c in e["choices"]] == ["assistant", "assistant"]
    assert tool_fragments(relayed)[0]["index"] == 0
    assert relayed[-1] == "[DONE]"


def test_provider_finish_reasons_are_mapped_to_openais() -> None:
    relayed, _ = relay([chunk([choice({"content": "a"}, "end_turn")])])
    assert relayed[0]["choices"][0]["finish_reason"] == "stop"


def test_an_upstream_error_event_ends_the_stream_without_done() -> None:
    normaliser = ChunkNormaliser(include_usage=False)
    normaliser.push(orjson.dumps(chunk([choice({"content": "a"})])))
    error = {"error": {"message": "overloaded", "type": "server_error", "param": None, "code": None}}
    assert normaliser.push(orjson.dumps(error)) == b"data: " + orjson.dumps(error) + b"\n\n"
    assert normaliser.ended and normaliser.failed


def test_empty_and_null_events_are_dropped() -> None:
    normaliser = ChunkNormaliser(include_usage=False)
    assert normaliser.push(b"") == b"" and normaliser.push(b"null") == b""


def test_an_event_that_is_not_json_is_a_protocol_error() -> None:
    with pytest.raises(StreamProtocolError):
        ChunkNormaliser(include_usage=False).push(b"<html>")


# A llama.cpp server stream (b5200-era shape): no `usage: null` on the choice chunks, and a usage chunk that carries
# the server's `timings` beside `usage`.
LLAMA_CPP = (
    b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],'
    b'"created":1745000000,"id":"chatcmpl-k3X","model":"qwen2.5-7b-instruct","system_fingerprint":"b5200-7c24f3a1",'
    b'"object":"chat.completion.chunk"}\n\n'
    b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}],"created":1745000000,'
    b'"id":"chatcmpl-k3X","model":"qwen2.5-7b-instruct","system_fingerprint":"b5200-7c24f3a1",'
    b'"object":"chat.completion.chunk"}\n\n'
    b'data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1745000000,"id":"chatcmpl-k3X",'
    b'"model":"qwen2.5-7b-instruct","system_fingerprint":"b5200-7c24f3a1","object":"chat.completion.chunk"}\n\n'
    b'data: {"choices":[],"created":1745000000,"id":"chatcmpl-k3X","model":"qwen2.5-7b-instruct",'
    b'"system_fingerprint":"b5200-7c24f3a1","object":"chat.completion.chunk",'
    b'"usage":{"completion_tokens":2,"prompt_tokens":9,"total_tokens":11},'
    b'"timings":{"prompt_n":9,"prompt_ms":40.12,"prompt_per_token_ms":4.458,"prompt_per_second":224.3,'
    b'"predicted_n":2,"predicted_ms":30.2,"predicted_per_token_ms":15.1,"predicted_per_second":66.2}}\n\n'
    b"data: [DONE]\n\n"
)


def test_a_llama_cpp_stream_with_timings_is_relayed_byte_for_byte() -> None:
    """Without memory calls there is nothing to sum: the usage chunk goes out as the upstream sent it."""
    events = [block[len(b"data: ") :] for block in LLAMA_CPP.split(b"\n\n") if block]
    _, out = relay(events)
    assert out == LLAMA_CPP
    assert b'"timings":{"prompt_n":9' in out


def test_a_usage_chunk_under_another_id_gets_the_streams_id_and_keeps_its_other_fields() -> None:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    relayed, _ = relay(
        [chunk([choice({"content": "a"}, "stop")]), chunk([], id="other", usage=usage, timings={"predicted_n": 1})]
    )
    assert relayed[-2] == chunk([], usage=usage, timings={"predicted_n": 1})


def test_usage_summed_over_calls_is_one_usage_chunk_of_the_proxys_own() -> None:
    normaliser = ChunkNormaliser(include_usage=True)
    first = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    normaliser.push(orjson.dumps(chunk([choice({"content": "a"}, "stop")])))
    normaliser.push(orjson.dumps(chunk([], usage=first, timings={"predicted_n": 2})))
    normaliser.next_hop()
    normaliser.push(orjson.dumps(chunk([choice({"content": "b"}, "stop")], id="chatcmpl-2")))
    normaliser.push(orjson.dumps(chunk([], id="chatcmpl-2", usage=first, timings={"predicted_n": 2})))
    usage_event = normaliser.finish().split(b"\n\n")[0]
    summed = orjson.loads(usage_event[len(b"data: ") :])
    assert summed["usage"] == {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14}
    assert summed["id"] == "chatcmpl-1" and "timings" not in summed  # one call's timings would misdescribe both
