"""The fake upstream in proxy.testing, exercised through a real socket, checked against OpenAI's own schemas."""

import base64
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest

from proxy.testing import FakeUpstream, Reply, ToolCall, run_fake_upstream

from .dialects.openapi_events import validate_event
from .openapi_spec import validate

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # before litellm is first imported (lazily, below)

MESSAGES: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
WEATHER = ToolCall("get_weather", {"city": "Paris"})


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # litellm needs asyncio; trio is installed too


@pytest.fixture
def client(fake_upstream: FakeUpstream) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fake_upstream.base_url, timeout=10) as client:
        yield client


def sse_events(body: bytes) -> list[bytes]:
    """The data payloads of an OpenAI SSE body, asserting the exact `data: ...\\n\\n` framing."""
    assert body.endswith(b"\n\n")
    blocks = body[:-2].split(b"\n\n")
    assert all(block.startswith(b"data: ") for block in blocks), body
    return [block[len(b"data: ") :] for block in blocks]


def stream_chat(client: httpx.Client, **request: Any) -> list[Any]:
    response = client.post(
        "/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES, "stream": True} | request
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    payloads = sse_events(response.content)
    assert payloads[-1] == b"[DONE]"
    return [orjson.loads(p) for p in payloads[:-1]]


def wait_for(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_streamed_chunks_are_openai_shaped(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="It is sunny.", tool_calls=[WEATHER])
    chunks = stream_chat(client, stream_options={"include_usage": True})
    for chunk in chunks:
        validate("CreateChatCompletionStreamResponse", chunk)
    assert {(c["id"], c["created"], c["model"]) for c in chunks} == {("chatcmpl-1", chunks[0]["created"], "gpt-4o")}
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": "", "refusal": None}
    deltas = [c["choices"][0]["delta"] for c in chunks[:-1]]
    assert "".join(d.get("content") or "" for d in deltas) == "It is sunny."
    calls = [call for d in deltas for call in d.get("tool_calls", [])]
    assert calls[0] == {
        "index": 0,
        "id": "call_0",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert "".join(c["function"]["arguments"] for c in calls) == '{"city":"Paris"}'
    assert len(calls) == 1 + 3  # the first fragment, then `pieces` argument fragments
    assert chunks[-2]["choices"] == [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "tool_calls"}]
    assert all(c["usage"] is None for c in chunks[:-1])
    assert chunks[-1]["choices"] == []
    usage = chunks[-1]["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0


def test_without_include_usage_chunks_carry_no_usage_key(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    chunks = stream_chat(client)
    assert all("usage" not in c for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == "Hello from the fake upstream."
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_n_choices_each_get_their_own_deltas_and_finish(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="Two ways.", pieces=2)
    chunks = stream_chat(client, n=2)
    for chunk in chunks:
        validate("CreateChatCompletionStreamResponse", chunk)
    for index in (0, 1):
        mine = [c["choices"][0] for c in chunks if c["choices"][0]["index"] == index]
        assert "".join(c["delta"].get("content", "") for c in mine) == "Two ways."
        assert [c["finish_reason"] for c in mine][-1] == "stop"


def test_non_streamed_completions_are_openai_shaped(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content=None, tool_calls=[WEATHER, ToolCall("get_time", "{}", id="call_custom")])
    fake_upstream.reply(Reply(content="Second.", usage={"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}))
    first = client.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES}).json()
    second = client.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES}).json()
    third = client.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES}).json()
    for body in (first, second, third):
        validate("CreateChatCompletionResponse", body)
    choice = first["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in choice["message"]["tool_calls"]] == [
        ("call_0", "get_weather", '{"city":"Paris"}'),
        ("call_custom", "get_time", "{}"),
    ]
    assert second["choices"][0]["message"]["content"] == "Second."
    assert second["usage"] == {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}
    assert "tool_calls" not in third["choices"][0]["message"]
    assert third["choices"][0]["message"]["content"] == "Hello from the fake upstream."  # queue empty: the default
    assert [first["id"], second["id"], third["id"]] == ["chatcmpl-1", "chatcmpl-2", "chatcmpl-3"]


CALLED = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}


@pytest.mark.parametrize("turn", [{"content": None, "tool_calls": [CALLED]}, {"tool_calls": [CALLED]}])
def test_a_strict_fake_fails_an_assistant_turn_with_tool_calls_and_no_content_as_llama_cpp_does(
    fake_upstream: FakeUpstream, client: httpx.Client, turn: dict[str, Any]
) -> None:
    messages = [*MESSAGES, {"role": "assistant", **turn}, {"role": "tool", "tool_call_id": "call_1", "content": "x"}]
    assert client.post("/chat/completions", json={"model": "m", "messages": messages}).status_code == 200
    fake_upstream.strict = True
    response = client.post("/chat/completions", json={"model": "m", "messages": messages})
    assert response.status_code == 500 and "messages[1]" in response.json()["error"]["message"]
    messages[1] = {"role": "assistant", "content": "", "tool_calls": [CALLED]}
    assert client.post("/chat/completions", json={"model": "m", "messages": messages}).status_code == 200
    fake_upstream.reset()
    assert fake_upstream.strict is False  # the next test gets the fake as it was made


def test_every_response_carries_request_id_and_processing_time(client: httpx.Client) -> None:
    responses = [client.post("/chat/completions", json={"model": "m"}), client.get("/models"), client.get("/other")]
    assert [r.headers["x-request-id"] for r in responses] == ["req_1", "req_2", "req_3"]
    assert all(r.headers["openai-processing-ms"].isdigit() for r in responses)


def test_scripted_errors_come_back_with_status_body_and_headers(
    fake_upstream: FakeUpstream, client: httpx.Client
) -> None:
    fake_upstream.reply(status=429, headers={"retry-after": "7"})
    custom = {"error": {"message": "boom", "type": "server_error", "param": None, "code": "overloaded"}}
    fake_upstream.reply(status=503, error=custom)
    limited = client.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES, "stream": True})
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "7"
    assert limited.headers["content-type"] == "application/json"
    validate("ErrorResponse", limited.json())
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"
    unavailable = client.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES})
    assert (unavailable.status_code, unavailable.json()) == (503, custom)
    broken = client.post("/chat/completions", content=b"{not json")
    assert broken.status_code == 400
    validate("ErrorResponse", broken.json())


def test_the_official_sdk_sees_retry_after_and_error_types(fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(status=401)
    with openai.OpenAI(base_url=fake_upstream.base_url, api_key="sk-test", max_retries=0) as sdk:
        with pytest.raises(openai.AuthenticationError) as caught:
            sdk.chat.completions.create(model="gpt-4o", messages=MESSAGES)
        assert caught.value.code == "invalid_api_key"
        completion = sdk.chat.completions.create(model="gpt-4o", messages=MESSAGES)
        assert completion.choices[0].message.content == "Hello from the fake upstream."
        fake_upstream.reply(content="Streamed.", tool_calls=[WEATHER])
        stream = sdk.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
        deltas = [c.choices[0].delta for c in stream if c.choices]
        assert "".join(d.content or "" for d in deltas) == "Streamed."
        embedding = sdk.embeddings.create(model="text-embedding-3-small", input="hello")  # asks for base64
        assert len(embedding.data[0].embedding) == 8


def test_the_echo_path_reports_what_arrived(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    response = client.put("/files/abc?purpose=test", content=b"12345", headers={"X-Custom": "yes"})
    assert response.status_code == 200
    assert response.headers["x-fake-echo"] == "1"
    assert response.json() == {"method": "PUT", "path": "/v1/files/abc", "query": "purpose=test", "body_bytes": 5}
    seen = fake_upstream.requests[-1]
    assert (seen.method, seen.path, seen.query, seen.body, seen.json) == (
        "PUT",
        "/v1/files/abc",
        "purpose=test",
        b"12345",
        12345,
    )
    assert seen.headers["x-custom"] == "yes"


def test_requests_are_recorded_in_order_and_reset_clears_them(
    fake_upstream: FakeUpstream, client: httpx.Client
) -> None:
    fake_upstream.reply(content="queued")
    client.post("/chat/completions", json={"model": "a", "messages": MESSAGES}, headers={"Authorization": "Bearer k"})
    client.get("/models")
    assert [(r.method, r.path) for r in fake_upstream.requests] == [
        ("POST", "/v1/chat/completions"),
        ("GET", "/v1/models"),
    ]
    first = fake_upstream.requests[0]
    assert first.json == {"model": "a", "messages": MESSAGES}
    assert first.headers["authorization"] == "Bearer k"
    fake_upstream.reply(content="never served")
    fake_upstream.reset()
    assert fake_upstream.requests == []
    body = client.post("/chat/completions", json={"model": "a"}).json()
    assert (body["id"], body["choices"][0]["message"]["content"]) == ("chatcmpl-1", "Hello from the fake upstream.")


def test_models_and_embeddings_are_openai_shaped(client: httpx.Client) -> None:
    models = client.get("/models").json()
    validate("ListModelsResponse", models)
    assert [m["id"] for m in models["data"]] == ["fake-model", "fake-model-2"]
    model = client.get("/models/fake-model-2")
    validate("Model", model.json())
    missing = client.get("/models/nope")
    assert missing.status_code == 404
    validate("ErrorResponse", missing.json())

    one = client.post("/embeddings", json={"model": "text-embedding-3-small", "input": "hello world"}).json()
    many = client.post("/embeddings", json={"model": "text-embedding-3-small", "input": ["a", "hello world"]}).json()
    validate("CreateEmbeddingResponse", one)
    validate("CreateEmbeddingResponse", many)
    assert [d["index"] for d in many["data"]] == [0, 1]
    assert many["data"][1]["embedding"] == one["data"][0]["embedding"]  # deterministic from the text
    assert len(one["data"][0]["embedding"]) == 8
    packed = client.post("/embeddings", json={"model": "e", "input": "hello world", "encoding_format": "base64"}).json()
    decoded = struct.unpack("<8f", base64.b64decode(packed["data"][0]["embedding"]))
    assert decoded == pytest.approx(one["data"][0]["embedding"], abs=1e-6)


def test_raw_sse_is_served_verbatim(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    raw = b': keep-alive\n\ndata: {"choices":null}\r\n\r\ndata: [DONE]\n\n'
    fake_upstream.reply(raw_sse=raw)
    fake_upstream.reply(raw_sse=raw, chunk_delay_s=0.01)
    for _ in range(2):
        response = client.post("/chat/completions", json={"model": "m", "stream": True})
        assert (response.status_code, response.content) == (200, raw)


def test_error_event_ends_the_stream_without_done(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    error = {"error": {"message": "The server had an error", "type": "server_error", "param": None, "code": None}}
    fake_upstream.reply(content="Partial", error_event=error)
    response = client.post("/chat/completions", json={"model": "m", "stream": True})
    payloads = sse_events(response.content)
    assert orjson.loads(payloads[-1]) == error
    for chunk in payloads[:-1]:
        validate("CreateChatCompletionStreamResponse", orjson.loads(chunk))
    assert all(orjson.loads(p)["choices"][0]["finish_reason"] is None for p in payloads[:-1])


def test_fail_after_events_drops_the_connection_mid_stream(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(fail_after_events=2)
    received = []
    with pytest.raises(httpx.RemoteProtocolError):  # noqa: SIM117 - the error comes from inside the stream
        with client.stream("POST", "/chat/completions", json={"model": "m", "stream": True}) as response:
            received = [line for line in response.iter_lines() if line]
    assert len(received) <= 2
    assert fake_upstream.cancelled_streams == 0  # the fake ended it, the client did not go away
    assert client.get("/models").status_code == 200  # and the server is still fine


def test_a_client_leaving_mid_stream_is_counted(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="a slow answer", pieces=10, chunk_delay_s=0.05)
    with client.stream("POST", "/chat/completions", json={"model": "m", "stream": True}) as response:
        first = next(response.iter_lines())
    assert first.startswith("data: ")
    wait_for(lambda: fake_upstream.cancelled_streams == 1)


def test_a_client_leaving_during_delay_is_counted(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(delay_s=30)
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        client.post("/chat/completions", json={"model": "m", "stream": True}, timeout=0.2)
    wait_for(lambda: fake_upstream.cancelled_streams == 1)
    fake_upstream.reply(delay_s=0.1)
    assert client.post("/chat/completions", json={"model": "m"}).status_code == 200
    assert time.monotonic() - started < 5
    assert fake_upstream.cancelled_streams == 1


def test_run_fake_upstream_serves_its_own_instance() -> None:
    with run_fake_upstream() as fake, httpx.Client(base_url=fake.base_url) as client:
        assert fake.base_url.startswith("http://127.0.0.1:")
        assert fake.base_url.endswith("/v1")
        fake.reply(content="own")
        assert client.post("/chat/completions", json={}).json()["choices"][0]["message"]["content"] == "own"
    with pytest.raises(httpx.ConnectError), httpx.Client() as client:
        client.get(fake.base_url + "/models")


def test_module_runs_standalone() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "proxy.testing", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1") as client:
            deadline = time.monotonic() + 20
            while True:
                try:
                    response = client.post("/chat/completions", json={"model": "m", "stream": True})
                    break
                except httpx.ConnectError:
                    assert process.poll() is None and time.monotonic() < deadline, "standalone fake did not start"
                    time.sleep(0.05)
        assert sse_events(response.content)[-1] == b"[DONE]"
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert b"Traceback" not in stderr


# -- litellm's anthropic provider against the /v1/messages fake ------------------------------------------------

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


async def litellm_call(litellm: Any, fake: FakeUpstream, **extra: Any) -> Any:
    return await litellm.acompletion(
        model="anthropic/claude-3-5-sonnet-20241022",
        api_base=fake.root_url,  # litellm appends /v1/messages itself
        api_key="sk-test",
        messages=MESSAGES,
        tools=TOOLS,
        **extra,
    )


@pytest.mark.anyio
async def test_litellm_anthropic_non_streaming(litellm: Any, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="Let me check.", tool_calls=[WEATHER])
    response = await litellm_call(litellm, fake_upstream)
    message = response.choices[0].message
    assert message.content == "Let me check."
    assert response.choices[0].finish_reason == "tool_calls"
    (call,) = message.tool_calls
    assert (call.function.name, orjson.loads(call.function.arguments)) == ("get_weather", {"city": "Paris"})
    seen = fake_upstream.requests[-1]
    assert (seen.method, seen.path) == ("POST", "/v1/messages")
    assert seen.json is not None and seen.json["model"] == "claude-3-5-sonnet-20241022"
    assert response.usage.prompt_tokens == 6  # words in MESSAGES


@pytest.mark.anyio
async def test_litellm_anthropic_streaming(litellm: Any, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="Let me check.", tool_calls=[WEATHER])
    stream = await litellm_call(litellm, fake_upstream, stream=True)
    text, names, arguments, finish = [], [], [], None
    async for chunk in stream:
        choice = chunk.choices[0]
        text.append(choice.delta.content or "")
        for call in choice.delta.tool_calls or []:
            names.append(call.function.name)
            arguments.append(call.function.arguments or "")
        finish = choice.finish_reason or finish
    assert "".join(text) == "Let me check."
    assert [n for n in names if n] == ["get_weather"]
    assert orjson.loads("".join(arguments)) == {"city": "Paris"}
    assert finish == "tool_calls"
    assert (fake_upstream.requests[-1].json or {})["stream"] is True


# -- the Responses API ---------------------------------------------------------------------------------------

RESPONSES_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def named_events(body: bytes) -> list[dict[str, Any]]:
    """The events of a Responses stream, asserting each is framed as ``event: <type>`` + ``data: <json>``."""
    assert body.endswith(b"\n\n")
    events = []
    for block in body[:-2].split(b"\n\n"):
        name, data = block.split(b"\n")
        event = orjson.loads(data.removeprefix(b"data: "))
        assert name == b"event: " + event["type"].encode()
        validate_event(event)
        events.append(event)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    return events


def test_responses_are_openai_shaped_and_echo_the_request(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="Let me check both.", tool_calls=[WEATHER, ToolCall("get_time", "{}", id="call_own")])
    request = {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "Weather and time in Paris?"}],
        "instructions": "Be brief.",
        "tools": [RESPONSES_TOOL],
        "store": False,
        "previous_response_id": "resp_earlier",
        "metadata": {"run": "1"},
    }
    body = client.post("/responses", json=request).json()
    validate("Response", body)
    assert (body["id"], body["object"], body["status"], body["model"]) == (
        "resp_fake_1",
        "response",
        "completed",
        "gpt-5",
    )
    message, weather, time_call = body["output"]
    assert (message["type"], message["role"], message["content"][0]["type"]) == ("message", "assistant", "output_text")
    assert message["content"][0]["text"] == "Let me check both."
    assert [(c["type"], c["call_id"], c["name"], c["arguments"]) for c in (weather, time_call)] == [
        ("function_call", "call_0", "get_weather", '{"city":"Paris"}'),
        ("function_call", "call_own", "get_time", "{}"),
    ]
    assert (body["store"], body["previous_response_id"], body["instructions"]) == (False, "resp_earlier", "Be brief.")
    assert body["metadata"] == {"run": "1"}
    assert body["tools"] == [{**RESPONSES_TOOL, "description": None, "strict": True}]  # as OpenAI echoes them
    usage = body["usage"]
    assert usage["input_tokens"] == 7  # words of the instructions and the input
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > usage["input_tokens"]
    assert fake_upstream.requests[-1].path == "/v1/responses"

    fake_upstream.reply(content="Short.", usage={"prompt_tokens": 5, "completion_tokens": 2})
    plain = client.post("/responses", json={"model": "m", "input": "hi"}).json()
    validate("Response", plain)
    assert (plain["id"], plain["store"], plain["previous_response_id"], plain["tools"]) == (
        "resp_fake_2",
        True,
        None,
        [],
    )
    assert {key: plain["usage"][key] for key in ("input_tokens", "output_tokens", "total_tokens")} == {
        "input_tokens": 5,
        "output_tokens": 2,
        "total_tokens": 7,
    }


def test_a_streamed_response_follows_the_apis_event_grammar(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="It is sunny.", tool_calls=[WEATHER, ToolCall("get_time", "{}")], pieces=2)
    request = {"model": "gpt-5", "input": "Weather?", "tools": [RESPONSES_TOOL], "stream": True}
    response = client.post("/responses", json=request)
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = named_events(response.content)
    text_item = [
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ]
    call_item = [
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    ]
    kinds = [event["type"] for event in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        *text_item,
        *call_item,
        *call_item,
        "response.completed",
    ]
    assert "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta") == "It is sunny."
    arguments = [e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert arguments == ['{"city":', '"Paris"}', "{", "}"]
    assert [e["output_index"] for e in events if e["type"] == "response.output_item.added"] == [0, 1, 2]
    created, final = events[0]["response"], events[-1]["response"]
    assert created["status"] == "in_progress" and created["output"] == [] and "usage" not in created
    assert final["id"] == created["id"] == "resp_fake_1" and final["status"] == "completed"
    assert [item["type"] for item in final["output"]] == ["message", "function_call", "function_call"]
    assert final["usage"]["total_tokens"] > 0


def test_a_response_cut_by_its_length_is_incomplete(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(content="It is", finish_reason="length")
    whole = client.post("/responses", json={"model": "m", "input": "Weather?"}).json()
    validate("Response", whole)
    assert (whole["status"], whole["incomplete_details"]) == ("incomplete", {"reason": "max_output_tokens"})
    fake_upstream.reply(content="It is", finish_reason="length")
    events = named_events(client.post("/responses", json={"model": "m", "input": "?", "stream": True}).content)
    assert events[-1]["type"] == "response.incomplete" and events[-1]["response"]["status"] == "incomplete"


def test_the_openai_sdk_reads_responses_whole_and_streamed(fake_upstream: FakeUpstream) -> None:
    with openai.OpenAI(base_url=fake_upstream.base_url, api_key="sk-test", max_retries=0) as sdk:
        fake_upstream.reply(content="Checking.", tool_calls=[WEATHER, ToolCall("get_time", "{}")])
        whole = sdk.responses.create(model="gpt-5", input="Weather?", tools=[RESPONSES_TOOL])  # type: ignore[list-item]
        assert whole.output_text == "Checking."
        assert [(i.type, getattr(i, "name", None)) for i in whole.output] == [
            ("message", None),
            ("function_call", "get_weather"),
            ("function_call", "get_time"),
        ]
        fake_upstream.reply(content="Checking.", tool_calls=[WEATHER], pieces=5)
        with sdk.responses.stream(model="gpt-5", input="Weather?", tools=[RESPONSES_TOOL]) as stream:  # type: ignore[list-item]
            deltas = [event.delta for event in stream if event.type == "response.output_text.delta"]
            final = stream.get_final_response()
        assert "".join(deltas) == final.output_text == "Checking."
        call = final.output[1]
        assert call.type == "function_call" and orjson.loads(call.arguments) == {"city": "Paris"}
        assert final.usage is not None and final.usage.total_tokens > 0


def test_responses_errors_are_openai_shaped(fake_upstream: FakeUpstream, client: httpx.Client) -> None:
    fake_upstream.reply(status=429, headers={"retry-after": "7"})
    with openai.OpenAI(base_url=fake_upstream.base_url, api_key="sk-test", max_retries=0) as sdk:
        with pytest.raises(openai.RateLimitError) as caught:
            sdk.responses.create(model="gpt-5", input="hi")
        assert caught.value.response.headers["retry-after"] == "7" and caught.value.code == "rate_limit_exceeded"
        error = {"error": {"message": "The server had an error", "type": "server_error", "param": None, "code": None}}
        fake_upstream.reply(content="Partial", error_event=error)
        with pytest.raises(openai.APIError, match="The server had an error"):  # noqa: SIM117
            with sdk.responses.stream(model="gpt-5", input="hi") as stream:
                stream.get_final_response()
    fake_upstream.reply(content="Partial", error_event=error)
    events = named_events(client.post("/responses", json={"model": "m", "input": "hi", "stream": True}).content)
    assert events[-1]["type"] == "error" and events[-1]["message"] == "The server had an error"
    assert "response.completed" not in [event["type"] for event in events]
    broken = client.post("/responses", content=b"{not json")
    assert broken.status_code == 400
    validate("ErrorResponse", broken.json())


# -- Anthropic's Messages API through its own SDK ------------------------------------------------------------


def test_the_anthropic_sdk_reads_parallel_tool_use_whole_and_streamed(fake_upstream: FakeUpstream) -> None:
    calls = [WEATHER, ToolCall("get_time", {"zone": "CET"}, id="toolu_own")]
    request: dict[str, Any] = {"model": "claude-x", "max_tokens": 100, "messages": MESSAGES}
    with anthropic.Anthropic(base_url=fake_upstream.root_url, api_key="sk-ant-test", max_retries=0) as sdk:
        fake_upstream.reply(content="Checking both.", tool_calls=calls, usage={"input_tokens": 12, "output_tokens": 7})
        whole = sdk.messages.create(**request)
        fake_upstream.reply(content="Checking both.", tool_calls=calls, usage={"input_tokens": 12, "output_tokens": 7})
        with sdk.messages.stream(**request) as stream:
            streamed = stream.get_final_message()
    for message in (whole, streamed):
        assert [block.type for block in message.content] == ["text", "tool_use", "tool_use"]
        uses = [block for block in message.content if block.type == "tool_use"]
        assert [(u.id, u.name, u.input) for u in uses] == [
            ("toolu_0", "get_weather", {"city": "Paris"}),
            ("toolu_own", "get_time", {"zone": "CET"}),
        ]
        assert message.stop_reason == "tool_use"
        assert (message.usage.input_tokens, message.usage.output_tokens) == (12, 7)  # message_delta's usage counted
