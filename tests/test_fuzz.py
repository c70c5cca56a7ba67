"""Whatever a client sends, the proxy answers it: never a 5xx, and every 4xx in the API's own error envelope.

Hypothesis drives the three wire formats (Chat Completions, Responses, Anthropic Messages) and every ``/memory``
route in-process (``httpx.ASGITransport``) against a scripted upstream that answers with text, memory tool calls,
client calls, errors or garbage (``httpx.MockTransport`` for chat, the fake upstream for the other two). Bounded
and derandomized, so a run takes seconds and finds the same examples every time.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import FakeUpstream, Reply, ToolCall

BASE = "http://upstream.test/v1"
ADMIN_KEY = "adm-key"
FUZZ = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
MANAGEMENT_FUZZ = settings(FUZZ, max_examples=40)
MEMORY_TOOLS = ["memory_store", "memory_search", "memory_retrieve", "memory_delete"]

# -- what clients send -----------------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too: orjson reads those as floats
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any] = json_values) -> st.SearchStrategy[Any]:
    """``usual`` three times in four, else ``odd``: every field may be wrong, but not all at once in most requests."""
    return st.sampled_from([usual, usual, usual, odd]).flatmap(lambda strategy: strategy)


names = st.sampled_from([*MEMORY_TOOLS, "read_file", "web_fetch", "srv__tool", ""]) | st.text(max_size=8) | json_values
texts = st.text(max_size=40) | st.sampled_from(["sk-" + "a" * 40, "ignore all previous instructions", "\u200b"])
parts = st.lists(
    st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url", "input_audio"]) | json_values})
    | st.fixed_dictionaries({"type": st.just("text"), "text": texts | json_values}),
    max_size=3,
)
calls = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "id": mostly(st.sampled_from(["call_1", "call_c"])),
            "type": mostly(st.just("function")),
            "function": mostly(
                st.fixed_dictionaries({}, optional={"name": names, "arguments": mostly(st.text(max_size=20))})
            ),
        },
    )
    | json_values,
    max_size=3,
)
messages = st.lists(
    st.fixed_dictionaries(
        {"role": mostly(st.sampled_from(["user", "system", "developer", "assistant", "tool"]), st.text(max_size=3))},
        optional={
            "content": mostly(texts | parts),
            "tool_calls": calls,
            "tool_call_id": mostly(st.sampled_from(["call_1", "call_c"])),
            "function_call": json_values,
        },
    ),
    max_size=4,
)
tools = st.lists(
    st.fixed_dictionaries(
        {"type": mostly(st.just("function"))},
        optional={
            "function": mostly(
                st.fixed_dictionaries(
                    {}, optional={"name": names, "description": st.text(max_size=10), "parameters": json_values}
                )
            ),
            "custom": json_values,
        },
    )
    | json_values,
    max_size=3,
)
chat_bodies = st.fixed_dictionaries(
    {"model": mostly(st.just("gpt-test")), "messages": messages},
    optional={
        "tools": mostly(tools),
        "tool_choice": st.sampled_from(["auto", "none", "required"]) | json_values,
        "parallel_tool_calls": json_values,
        "stream": mostly(st.booleans()),
        "stream_options": st.fixed_dictionaries({}, optional={"include_usage": json_values}) | json_values,
        "n": st.integers(-1, 3) | json_values,
        "logprobs": json_values,
        "functions": json_values,
        "modalities": json_values,
    },
)


def deeply_nested(where: bytes) -> st.SearchStrategy[bytes]:
    """A body with a value nested past what the proxy re-encodes: orjson reads 1024 levels but writes about 254."""
    return st.builds(
        lambda depth, kind: where.replace(b"DEEP", kind[0] * depth + b"1" + kind[1] * depth),
        st.sampled_from([128, 129, 250, 252, 253, 254, 255, 256, 1022, 1023, 1024, 1025]) | st.integers(1, 1100),
        st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]),
    )


def encoded(bodies: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    return bodies.map(lambda body: json.dumps(body).encode())


chat_requests = mostly(
    mostly(encoded(chat_bodies), encoded(json_values) | st.binary(max_size=40)),
    st.one_of(
        deeply_nested(b'{"model":"m","messages":[{"role":"user","content":DEEP}]}'),
        deeply_nested(b'{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":DEEP}'),
        deeply_nested(
            b'{"model":"m","messages":[{"role":"user","content":"hi"}],'
            b'"tools":[{"type":"function","function":{"name":"t","parameters":DEEP}}]}'
        ),
    ),
)
header_values = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12) | st.binary(
    max_size=12
).filter(lambda value: not any(byte in value for byte in b"\r\n\x00"))
identities = st.fixed_dictionaries(
    {"x-memory-user": mostly(st.just("ada"), header_values | st.none())},
    optional={
        "x-memory-workspace": mostly(st.sampled_from(["default", "proj"]), header_values),
        "x-memory-session": mostly(st.sampled_from(["s1", "s2"]), header_values),
        "x-memory-admin-key": st.just(ADMIN_KEY) | header_values,
        "authorization": st.just("Bearer sk-client") | header_values,
    },
)

# -- what the upstream answers ---------------------------------------------------------------------------------

upstream_scripts = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["text", "memory", "client", "mixed", "error", "garbage"]),
        "name": st.sampled_from(MEMORY_TOOLS),
        "arguments": st.text(max_size=20) | encoded(json_values).map(bytes.decode),
        "content": st.none() | st.text(max_size=10),
    }
)


class ScriptedUpstream:
    """An OpenAI-compatible upstream whose next answers the test scripts: memory calls while the proxy offers the
    memory tools (so the tool loop re-encodes the request), else text."""

    def __init__(self) -> None:
        self.script: dict[str, Any] = {"kind": "text"}
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if request.url.path != "/v1/chat/completions":
            error = {"message": f"Invalid URL ({request.method} {request.url.path})", "type": "invalid_request_error"}
            return httpx.Response(404, json={"error": error | {"param": None, "code": None}})
        body = orjson.loads(request.content)
        script = self.script
        declared = body.get("tools")  # whatever the client sent: the proxy passes odd tools through untouched
        offered = {
            tool["function"].get("name")
            for tool in (declared if isinstance(declared, list) else ())
            if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
        }
        kind = script["kind"]
        if kind == "error":
            error = {"error": {"message": "bad", "type": "invalid_request_error", "param": None, "code": None}}
            return httpx.Response(400, json=error)
        if kind == "garbage":
            return httpx.Response(200, content=b"<html>not json", headers={"content-type": "text/html"})
        calls = []
        if kind in ("memory", "mixed") and script["name"] in offered:
            calls.append(("call_m", script["name"], script["arguments"]))
        if kind in ("client", "mixed"):
            theirs = [name for name in offered if isinstance(name, str) and name not in MEMORY_TOOLS]
            calls += [("call_c", name, "{}") for name in theirs[:1]]
        message = {"role": "assistant", "content": script["content"] if calls else "ok"}
        if calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                for call_id, name, arguments in calls
            ]
        reason = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
        head = {"id": "chatcmpl-f", "created": 1, "model": "gpt-test"}
        if body.get("stream") is True:
            delta = dict(message)
            if calls:
                delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
            chunks = [
                head | {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]},
                head
                | {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]},
                head | {"object": "chat.completion.chunk", "choices": [], "usage": usage},
            ]
            sse = b"".join(b"data: " + orjson.dumps(chunk) + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
            return httpx.Response(200, content=sse, headers={"content-type": "text/event-stream"})
        completion = head | {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": usage,
        }
        return httpx.Response(200, json=completion)


@pytest.fixture
def scripted() -> ScriptedUpstream:
    return ScriptedUpstream()


@pytest.fixture
async def client(scripted: ScriptedUpstream, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    overrides = {
        "upstream.base_url": BASE,
        "store.path": str(tmp_path),
        "memory.admin_key": ADMIN_KEY,
        "server.max_body_bytes": 64 * 1024,
        "tools.max_hops": 2,
    }
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(scripted))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        yield c


def assert_answered(response: httpx.Response) -> None:
    """No 5xx; a 4xx says what was wrong in OpenAI's error shape."""
    event(f"status {response.status_code} {response.text[:60] if response.status_code >= 400 else ''}")
    assert response.status_code < 500, response.text[:300]
    if response.status_code >= 400:
        error = response.json()["error"]
        assert isinstance(error["message"], str) and error["message"]
        assert isinstance(error["type"], str)
        assert set(error) == {"message", "type", "param", "code"}


@pytest.mark.anyio
@FUZZ
@given(body=chat_requests, headers=identities, script=upstream_scripts)
async def test_the_chat_endpoint_answers_every_body_with_a_status_below_500(
    client: httpx.AsyncClient, scripted: ScriptedUpstream, body: bytes, headers: dict[str, Any], script: dict[str, Any]
) -> None:
    scripted.script = script
    headers = {name: value for name, value in headers.items() if value is not None}
    response = await client.post("/v1/chat/completions", content=body, headers=headers)
    assert_answered(response)


ids = st.sampled_from(["m-1", "m-2", "ep-1", "fp-1"]) | st.text(max_size=12)
valid_memory = st.fixed_dictionaries(
    {"text": st.sampled_from(["User prefers tabs", "The staging DB is Postgres 16"])},
    optional={
        "tags": st.lists(st.sampled_from(["style", "db", " "]), max_size=3),
        "scope": st.sampled_from(["workspace", "user", "session", "global"]),
        "category": st.sampled_from(["preference", "fact"]),
        "source": st.sampled_from(["explicit", "inferred"]),
        "confidence": st.floats(0, 1),
        "session": st.sampled_from(["s1", "s2"]),
        "ts": st.sampled_from(["2024-01-01T00:00:00Z", "2024-02-30", "1e999"]) | st.integers(),
        "id": st.sampled_from(["m-1", "m-2"]),
        "superseded_by": st.sampled_from(["m-1", "m-2"]),
        "confirm": st.just(True),
    },
)
FIELDS = ("text", "tags", "scope", "category", "source", "confidence", "session", "ts", "id", "superseded_by")
# A memory right in every field but one: each check meets odd values without the others refusing first.
memory_fields = valid_memory | st.tuples(valid_memory, st.sampled_from(FIELDS), texts | json_values).map(
    lambda odd: {**odd[0], odd[1]: odd[2]}
)
deep_fields = st.sampled_from(FIELDS).flatmap(
    lambda name: deeply_nested(b'{"text":"User prefers tabs","' + name.encode() + b'":DEEP}')
)
bodies = mostly(encoded(memory_fields), encoded(json_values) | st.binary(max_size=30) | deep_fields)
import_bodies = st.lists(bodies, max_size=4).map(b"\n".join)
queries = st.fixed_dictionaries(
    {},
    optional={
        "q": st.text(max_size=10),
        "tag": st.text(max_size=6),
        "category": st.text(max_size=6),
        "limit": st.integers(-3, 300).map(str) | st.text(max_size=4),
    },
)
pages = st.fixed_dictionaries(
    {},
    optional={
        "limit": st.integers(-3, 300).map(str) | st.text(max_size=4),
        "before": st.text(max_size=40) | st.binary(max_size=30).map(lambda b: base64.urlsafe_b64encode(b).decode()),
        "live": st.sampled_from(["true", "false", "", "maybe"]) | st.text(max_size=4),
    },
)
MANAGEMENT = {
    "list": st.tuples(st.just("GET"), st.just("/memory/memories"), st.just(b""), queries),
    "add": st.tuples(st.just("POST"), st.just("/memory/memories"), bodies, st.just({})),
    "delete": st.tuples(
        st.just("DELETE"), ids.map(lambda i: f"/memory/memories/{quote(i, safe='')}"), st.just(b""), st.just({})
    ),
    "export": st.tuples(st.just("GET"), st.just("/memory/export"), st.just(b""), st.just({})),
    "import": st.tuples(st.just("POST"), st.just("/memory/import"), import_bodies, st.just({})),
    "forget_all": st.tuples(st.just("POST"), st.just("/memory/forget-all"), bodies, st.just({})),
    "sessions": st.tuples(st.just("GET"), st.just("/memory/sessions"), st.just(b""), pages),
    "session": st.tuples(
        st.just("GET"), ids.map(lambda i: f"/memory/sessions/{quote(i, safe='')}"), st.just(b""), st.just({})
    ),
    "review": st.tuples(st.just("GET"), st.just("/memory/review"), st.just(b""), pages),
    "reject_memory": st.tuples(
        st.just("POST"), ids.map(lambda i: f"/memory/memories/{quote(i, safe='')}/reject"), bodies, st.just({})
    ),
    "end": st.tuples(
        st.just("POST"), ids.map(lambda i: f"/memory/sessions/{quote(i, safe='')}/end"), bodies, st.just({})
    ),
    "episodes": st.tuples(st.just("GET"), st.just("/memory/episodes"), st.just(b""), st.just({})),
    "approve_or_reject": st.tuples(
        st.sampled_from([("POST", "/approve"), ("POST", "/reject"), ("DELETE", "")]), ids, bodies
    ).map(lambda c: (c[0][0], f"/memory/episodes/{quote(c[1], safe='')}{c[0][1]}", c[2], {})),
    "openapi": st.tuples(st.just("GET"), st.just("/memory/openapi.json"), st.just(b""), st.just({})),
    "that_does_not_exist": st.tuples(  # a 404 or 405 from memproxy, never the upstream's answer
        st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
        st.sampled_from(["/memory", "/memory/", "/memory/memories/", "/memory/x", "/memory/export/1"])
        | ids.map(lambda i: f"/memory/{quote(i)}"),
        bodies,
        st.just({}),
    ),
}


def management_fuzz(route: str) -> Any:
    """One test per route, so each gets examples of its own (a draw inside the test would not mix with anyio)."""

    @pytest.mark.anyio
    @settings(MANAGEMENT_FUZZ, max_examples=150 if route in ("add", "import") else 40)  # the routes that parse most
    @given(call=MANAGEMENT[route], headers=identities)
    async def test(
        client: httpx.AsyncClient,
        scripted: ScriptedUpstream,
        call: tuple[str, str, bytes, dict[str, str]],
        headers: dict[str, Any],
    ) -> None:
        method, path, body, params = call
        headers = {name: value for name, value in headers.items() if value is not None}
        scripted.calls = 0
        response = await client.request(method, path, content=body, params=params, headers=headers)
        assert_answered(response)
        assert scripted.calls == 0, f"{method} {path} reached the upstream"  # /memory is memproxy's, always

    test.__name__ = f"test_the_management_route_{route}_answers_every_request_with_a_status_below_500"
    return test


for _route in MANAGEMENT:
    _test = management_fuzz(_route)
    globals()[_test.__name__] = _test


# -- the Responses API and Anthropic Messages --------------------------------------------------------------------

# A tools list as a fuzzer or a careless client writes it: items that are not objects, nested lists, objects
# without a name or with a name that is not a string, beside well-formed tools of each format.
odd_tool_items = st.sampled_from([[], None, {}, [[]], [{}], 0, "x", {"type": "function"}]) | json_values
responses_tools = st.lists(
    mostly(
        st.fixed_dictionaries(
            {"type": mostly(st.just("function"))},
            optional={"name": names, "parameters": json_values, "strict": json_values},
        ),
        odd_tool_items,
    ),
    max_size=3,
)
messages_tools = st.lists(
    mostly(st.fixed_dictionaries({"name": names}, optional={"input_schema": json_values, "type": json_values}),
           odd_tool_items),
    max_size=3,
)  # fmt: skip
responses_input = texts | st.lists(
    mostly(
        st.fixed_dictionaries(
            {"role": mostly(st.sampled_from(["user", "system", "developer", "assistant"]))},
            optional={"content": mostly(texts), "type": mostly(st.just("message"))},
        )
        | st.fixed_dictionaries(
            {"type": st.just("function_call_output")},
            optional={"call_id": mostly(st.just("call_1")), "output": mostly(texts)},
        )
    ),
    max_size=3,
)
responses_bodies = st.fixed_dictionaries(
    {"model": mostly(st.just("gpt-test")), "input": mostly(responses_input)},
    optional={
        "tools": mostly(responses_tools, odd_tool_items),
        "tool_choice": st.sampled_from(["auto", "none", "required"]) | json_values,
        "stream": mostly(st.booleans()),
        "store": json_values,
        "instructions": mostly(texts),
        "previous_response_id": json_values,
    },
)
messages_bodies = st.fixed_dictionaries(
    {
        "model": mostly(st.just("claude-test")),
        "max_tokens": mostly(st.just(64)),
        "messages": st.lists(
            st.fixed_dictionaries(
                {"role": mostly(st.sampled_from(["user", "assistant"]))}, optional={"content": mostly(texts | parts)}
            ),
            max_size=3,
        ),
    },
    optional={
        "tools": mostly(messages_tools, odd_tool_items),
        "tool_choice": st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "none"}]) | json_values,
        "stream": mostly(st.booleans()),
        "system": mostly(texts),
    },
)
wire_scripts = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["text", "memory", "client", "mixed", "error"]),
        "name": st.sampled_from(MEMORY_TOOLS),
        "arguments": st.text(max_size=20) | encoded(json_values).map(bytes.decode),
    }
)


def _declared_names(body: dict[str, Any]) -> list[str]:
    """The string names of the tools a request declares, whatever else its tools list holds."""
    declared = body.get("tools")
    return [
        tool["name"]
        for tool in (declared if isinstance(declared, list) else ())
        if isinstance(tool, dict) and isinstance(tool.get("name"), str)
    ]


def scripted_reply(script: dict[str, Any]) -> Any:
    """A responder for the fake upstream: memory calls while the proxy offers the memory tools, client calls for
    the client's own tools, an error, or text."""

    def respond(body: dict[str, Any]) -> Reply:
        offered = _declared_names(body)
        kind = script["kind"]
        if kind == "error":
            return Reply(status=400)
        calls = []
        if kind in ("memory", "mixed") and script["name"] in offered:
            calls.append(ToolCall(script["name"], script["arguments"], id="call_m"))
        if kind in ("client", "mixed"):
            calls += [ToolCall(name, "{}", id="call_c") for name in offered if name not in MEMORY_TOOLS][:1]
        return Reply("ok" if not calls else None, calls)

    return respond


@pytest.fixture
async def wire_client(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, FakeUpstream]]:
    fake = FakeUpstream(record_requests=False)
    overrides = {
        "upstream.base_url": BASE,
        "upstream.anthropic_base_url": BASE,
        "store.path": str(tmp_path),
        "server.max_body_bytes": 64 * 1024,
        "tools.max_hops": 2,
    }
    services = build_services(load_settings(overrides=overrides), transport=httpx.ASGITransport(fake.app))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        yield c, fake


def assert_answered_by_anthropic(response: httpx.Response) -> None:
    """No 5xx; a 4xx says what was wrong in Anthropic's error shape."""
    event(f"status {response.status_code} {response.text[:60] if response.status_code >= 400 else ''}")
    assert response.status_code < 500, response.text[:300]
    if response.status_code >= 400:
        body = response.json()
        assert body["type"] == "error" and set(body["error"]) == {"type", "message"}, body
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]


WIRE_FUZZ = settings(FUZZ, max_examples=100)


@pytest.mark.anyio
@WIRE_FUZZ
@given(body=mostly(encoded(responses_bodies), encoded(json_values)), script=wire_scripts)
async def test_the_responses_endpoint_answers_every_body_with_a_status_below_500(
    wire_client: tuple[httpx.AsyncClient, FakeUpstream], body: bytes, script: dict[str, Any]
) -> None:
    client, fake = wire_client
    fake.respond_with(scripted_reply(script))
    response = await client.post("/v1/responses", content=body, headers={"x-memory-user": "ada"})
    assert_answered(response)


@pytest.mark.anyio
@WIRE_FUZZ
@given(body=mostly(encoded(messages_bodies), encoded(json_values)), script=wire_scripts)
async def test_the_messages_endpoint_answers_every_body_with_a_status_below_500(
    wire_client: tuple[httpx.AsyncClient, FakeUpstream], body: bytes, script: dict[str, Any]
) -> None:
    client, fake = wire_client
    fake.respond_with(scripted_reply(script))
    response = await client.post("/v1/messages", content=body, headers={"x-memory-user": "ada"})
    assert_answered_by_anthropic(response)


@pytest.mark.anyio
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("path", "body", "tools"),
    [
        ("/v1/responses", {"model": "m", "input": "hi"}, [[]]),
        ("/v1/responses", {"model": "m", "input": "hi"}, [None]),
        ("/v1/responses", {"model": "m", "input": "hi"}, [{}]),
        ("/v1/responses", {"model": "m", "input": "hi"}, [[{"type": "function", "name": "f"}]]),
        ("/v1/responses", {"model": "m", "input": "hi"}, [{"type": "function", "name": {"a": 1}}]),
        ("/v1/responses", {"model": "m", "input": "hi"}, [{"type": "function", "name": ["f"]}]),
        ("/v1/messages", {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}, [None]),
        ("/v1/messages", {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}, [[]]),
        ("/v1/messages", {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]},
         [{"name": {"a": 1}, "input_schema": {}}]),
    ],
)  # fmt: skip
async def test_a_malformed_tools_list_is_a_400_in_the_apis_own_shape(
    wire_client: tuple[httpx.AsyncClient, FakeUpstream], path: str, body: dict[str, Any], tools: Any, stream: bool
) -> None:
    client, fake = wire_client
    fake.respond_with(scripted_reply({"kind": "mixed", "name": "memory_search", "arguments": "{}"}))
    response = await client.post(path, json={**body, "tools": tools, "stream": stream}, headers={"x-memory-user": "a"})
    assert response.status_code == 400, response.text
    if path == "/v1/messages":
        assert response.json()["type"] == "error" and response.json()["error"]["type"] == "invalid_request_error"
        assert "tools" in response.json()["error"]["message"]
    else:
        error = response.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["param"].startswith("tools")
