"""End to end: the openai SDK -> a real proxy on a socket -> the fake upstream. What a client sees."""

from typing import Any

import httpx
import openai
import orjson
import pytest

from proxy.testing import FakeUpstream, ToolCall

from ..openapi_spec import validate

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello."}]


@pytest.fixture
def client(proxy_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy_url, api_key="sk-test", max_retries=0)


def raw_events(proxy_url: str, body: dict[str, Any]) -> list[bytes]:
    """The stream exactly as it crosses the wire, one entry per SSE event."""
    with httpx.Client(timeout=30) as http:
        response = http.post(f"{proxy_url}/chat/completions", json=body, headers={"authorization": "Bearer sk-test"})
    assert response.headers["content-type"].startswith("text/event-stream")
    return [block for block in response.content.split(b"\n\n") if block]


def data_of(events: list[bytes]) -> list[Any]:
    return [orjson.loads(e[len(b"data: ") :]) for e in events if e.startswith(b"data: ") and e != b"data: [DONE]"]


def test_a_completion_is_what_the_upstream_said(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="Hello there.")
    raw = client.chat.completions.with_raw_response.create(model="fake-model", messages=MESSAGES)
    completion = raw.parse()
    assert completion.choices[0].message.content == "Hello there."
    assert raw.headers["x-request-id"].startswith("req_")
    validate("CreateChatCompletionResponse", orjson.loads(raw.content))


def test_unknown_and_extra_fields_reach_the_upstream_unchanged(
    client: openai.OpenAI, fake_upstream: FakeUpstream
) -> None:
    fields: dict[str, Any] = {
        "seed": 7,
        "logit_bias": {"50256": -100},
        "metadata": {"k": "v"},
        "n": 1,
        "response_format": {"type": "json_object"},
        "reasoning_effort": "low",
        "parallel_tool_calls": False,
        "store": False,
    }
    client.chat.completions.create(
        model="fake-model", messages=MESSAGES, extra_body={"top_k": 3, "thinking": {"x": 1}}, **fields
    )
    sent = fake_upstream.requests[-1].json
    assert {k: sent[k] for k in fields} == fields
    assert sent["top_k"] == 3 and sent["thinking"] == {"x": 1} and sent["messages"] == MESSAGES


def test_the_clients_key_and_org_headers_reach_the_upstream(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    openai.OpenAI(base_url=proxy_url, api_key="sk-mine", organization="org-9", max_retries=0).chat.completions.create(
        model="fake-model", messages=MESSAGES
    )
    headers = fake_upstream.requests[-1].headers
    assert headers["authorization"] == "Bearer sk-mine" and headers["openai-organization"] == "org-9"


def test_a_stream_is_relayed_with_openais_framing(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="One two three four.", pieces=4)
    events = raw_events(
        proxy_url,
        {"model": "fake-model", "messages": MESSAGES, "stream": True, "stream_options": {"include_usage": True}},
    )
    assert events[-1] == b"data: [DONE]" and events.count(b"data: [DONE]") == 1
    assert all(e.startswith(b"data: ") for e in events), "no event:, id: or empty events on chat streams"
    chunks = data_of(events)
    for chunk in chunks:
        validate("CreateChatCompletionStreamResponse", chunk)
    assert len({(c["id"], c["created"]) for c in chunks}) == 1
    assert [c["choices"][0]["delta"].get("role") for c in chunks[:-1]].count("assistant") == 1
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert all(c.get("usage") is None for c in chunks[:-1])
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks[:-1]) == "One two three four."


def test_no_usage_chunk_unless_the_client_asks(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    chunks = list(client.chat.completions.create(model="fake-model", messages=MESSAGES, stream=True))
    assert all(chunk.choices for chunk in chunks)


def test_the_sdks_stream_helper_assembles_text_and_usage(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="Streamed answer.")
    with client.chat.completions.stream(
        model="fake-model", messages=MESSAGES, stream_options={"include_usage": True}
    ) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == "Streamed answer."
    assert final.usage is not None and final.usage.total_tokens > 0


def test_client_tool_calls_come_back_whole(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content=None, tool_calls=[ToolCall("get_weather", {"city": "Paris"}, id="call_w")])
    completion = client.chat.completions.create(model="fake-model", messages=MESSAGES, tools=[WEATHER])
    (call,) = completion.choices[0].message.tool_calls
    assert (call.id, call.function.name, orjson.loads(call.function.arguments)) == (
        "call_w",
        "get_weather",
        {"city": "Paris"},
    )
    assert completion.choices[0].finish_reason == "tool_calls"


def test_parallel_streamed_tool_calls_assemble_in_the_sdk(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(
        content=None,
        pieces=4,
        tool_calls=[ToolCall("get_weather", {"city": "Paris"}), ToolCall("get_time", {"zone": "Europe/Paris"})],
    )
    with client.chat.completions.stream(model="fake-model", messages=MESSAGES, tools=[WEATHER, TIME]) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert [(c.function.name, orjson.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "Europe/Paris"}),
    ]
    assert len({c.id for c in calls}) == 2 and final.choices[0].finish_reason == "tool_calls"


def test_n_choices_stream_each_with_its_own_finish(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    chunks = data_of(raw_events(proxy_url, {"model": "fake-model", "messages": MESSAGES, "stream": True, "n": 2}))
    finishes = {
        c["choices"][0]["index"]: c["choices"][0]["finish_reason"]
        for c in chunks
        if c["choices"] and c["choices"][0]["finish_reason"]
    }
    assert finishes == {0: "stop", 1: "stop"}


def test_an_ollama_trace_reaches_the_client_repaired(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    # Ollama: index 0 for every parallel call, role repeated, usage on the finish chunk.
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        body = {
            "id": "chatcmpl-o",
            "object": "chat.completion.chunk",
            "created": 5,
            "model": "llama",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return b"data: " + orjson.dumps(body) + b"\n\n"

    fake_upstream.reply(
        raw_sse=b"".join(
            [
                b": keep-alive\n\n",
                chunk(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "a",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                            }
                        ],
                    }
                ),
                chunk(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "b",
                                "type": "function",
                                "function": {"name": "get_time", "arguments": "{}"},
                            }
                        ],
                    }
                ),
                chunk(
                    {"role": "assistant"},
                    "tool_calls",
                    usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
                ),
                b"data: [DONE]\n\n",
            ]
        )
    )
    with client.chat.completions.stream(
        model="llama", messages=MESSAGES, tools=[WEATHER, TIME], stream_options={"include_usage": True}
    ) as stream:
        final = stream.get_final_completion()
    assert [c.id for c in final.choices[0].message.tool_calls] == ["a", "b"]
    assert final.choices[0].message.role == "assistant" and final.usage is not None and final.usage.total_tokens == 7


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (404, openai.NotFoundError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_upstream_errors_raise_the_sdks_exception(
    client: openai.OpenAI, fake_upstream: FakeUpstream, status: int, error_class: type[Exception], stream: bool
) -> None:
    fake_upstream.reply(status=status, headers={"retry-after": "3"})
    with pytest.raises(error_class) as caught:
        client.chat.completions.create(model="fake-model", messages=MESSAGES, stream=stream)
    error = caught.value
    assert isinstance(error, openai.APIStatusError)
    assert error.status_code == status and error.response.headers["retry-after"] == "3"
    assert error.request_id is not None and error.request_id.startswith("req_")
    validate("ErrorResponse", error.response.json())


def test_a_rate_limited_request_is_retried_by_the_sdk_and_then_succeeds(
    proxy_url: str, fake_upstream: FakeUpstream
) -> None:
    fake_upstream.reply(status=429, headers={"retry-after-ms": "10"})
    fake_upstream.reply(content="after retry")
    client = openai.OpenAI(base_url=proxy_url, api_key="sk-test", max_retries=2)
    assert (
        client.chat.completions.create(model="fake-model", messages=MESSAGES).choices[0].message.content
        == "after retry"
    )


def test_a_mid_stream_failure_raises_in_the_client_instead_of_hanging(
    client: openai.OpenAI, fake_upstream: FakeUpstream
) -> None:
    fake_upstream.reply(content="This will break off", pieces=5, fail_after_events=3)
    stream = client.chat.completions.create(model="fake-model", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError, match="upstream"):
        list(stream)


def test_an_upstream_error_event_reaches_the_client(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(
        error_event={"error": {"message": "overloaded mid-stream", "type": "server_error", "param": None, "code": None}}
    )
    with pytest.raises(openai.APIError, match="overloaded mid-stream"):
        list(client.chat.completions.create(model="fake-model", messages=MESSAGES, stream=True))


def test_a_bad_request_is_a_400_in_openais_shape(client: openai.OpenAI, fake_upstream: FakeUpstream) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="fake-model", messages="hello")  # type: ignore[arg-type]
    assert caught.value.param == "messages"
    validate("ErrorResponse", caught.value.response.json())
    assert fake_upstream.requests == []


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
TIME = {
    "type": "function",
    "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}},
}
