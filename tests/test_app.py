"""The app in-process (httpx.ASGITransport) against a respx-scripted upstream: content, not timing."""

from collections.abc import AsyncIterator

import httpx
import orjson
import pytest
import respx

from proxy.app import create_app
from proxy.config import load_settings
from proxy.episodes.extraction_wire import Credential
from proxy.services import build_services

from .dialects.test_chat_stream import LLAMA_CPP

BASE = "http://upstream.test/v1"
CHAT = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def upstream() -> respx.Router:
    return respx.Router(assert_all_called=False)


@pytest.fixture
async def client(upstream: respx.Router) -> AsyncIterator[httpx.AsyncClient]:
    settings = load_settings(overrides={"upstream.base_url": BASE, "server.max_body_bytes": 4096})
    services = build_services(settings, transport=httpx.MockTransport(upstream.async_handler))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        yield c


@pytest.mark.anyio
async def test_a_completion_comes_back_byte_for_byte_with_upstream_headers(client, upstream) -> None:
    body = b'{"id":"chatcmpl-1","object":"chat.completion","unknown_field":{"kept":true}}'
    upstream.post(f"{BASE}/chat/completions").respond(
        200,
        content=body,
        headers={"content-type": "application/json", "x-request-id": "req_9", "openai-processing-ms": "12"},
    )
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.content == body
    assert response.headers["x-request-id"] == "req_9" and response.headers["openai-processing-ms"] == "12"


@pytest.mark.anyio
async def test_the_request_body_reaches_the_upstream_unchanged(client, upstream) -> None:
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json={})
    sent = orjson.dumps(
        CHAT
        | {
            "seed": 7,
            "logit_bias": {"50256": -100},
            "n": 2,
            "reasoning_effort": "low",
            "metadata": {"k": "v"},
            "future_field": [1, {"x": None}],
        }
    )
    await client.post("/v1/chat/completions", content=sent, headers={"content-type": "application/json"})
    assert route.calls.last.request.content == sent


@pytest.mark.anyio
async def test_paths_with_and_without_v1_reach_the_same_upstream_path(client, upstream) -> None:
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json={})
    await client.post("/v1/chat/completions", json=CHAT)
    await client.post("/chat/completions", json=CHAT)
    assert route.call_count == 2


@pytest.mark.anyio
async def test_other_paths_pass_through_with_method_query_and_body(client, upstream) -> None:
    route = upstream.route(method="DELETE", url=f"{BASE}/files/file-1?purge=true").respond(200, json={"deleted": True})
    response = await client.request("DELETE", "/v1/files/file-1?purge=true", content=b"{}")
    assert response.json() == {"deleted": True}
    assert route.calls.last.request.content == b"{}"


@pytest.mark.anyio
async def test_listing_stored_completions_is_not_treated_as_a_chat_request(client, upstream) -> None:
    route = upstream.get(f"{BASE}/chat/completions").respond(200, json={"object": "list", "data": []})
    response = await client.get("/v1/chat/completions")
    assert response.status_code == 200 and route.called


@pytest.mark.anyio
@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 503])
async def test_upstream_errors_reach_the_client_as_the_upstream_said_them(client, upstream, status) -> None:
    error = {"error": {"message": "nope", "type": "x", "param": None, "code": "c"}}
    upstream.post(f"{BASE}/chat/completions").respond(status, json=error, headers={"retry-after": "7"})
    response = await client.post("/v1/chat/completions", json=CHAT | {"stream": True})
    assert response.status_code == status
    assert response.json() == error and response.headers["retry-after"] == "7"


@pytest.mark.anyio
async def test_an_unreachable_upstream_is_a_502(client, upstream) -> None:
    upstream.post(f"{BASE}/chat/completions").mock(side_effect=httpx.ConnectError("refused"))
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_unreachable"


@pytest.mark.anyio
async def test_an_upstream_timeout_is_a_504(client, upstream) -> None:
    upstream.get(f"{BASE}/models").mock(side_effect=httpx.ReadTimeout("slow"))
    response = await client.get("/v1/models")
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "upstream_timeout"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "param"),
    [
        (b"{not json", None),
        (b"", None),
        (b"[1, 2]", None),
        (b'{"model": "m"}', "messages"),
        (b'{"model": "m", "messages": "hello"}', "messages"),
        (b'{"model": "m", "messages": [{"content": "no role"}]}', "messages[0]"),
        (b'{"model": "m", "messages": [], "stream": "yes"}', "stream"),
    ],
)
async def test_malformed_requests_are_a_400_and_never_reach_the_upstream(client, upstream, body, param) -> None:
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json={})
    response = await client.post("/v1/chat/completions", content=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param and error["message"]
    assert not route.called


@pytest.mark.anyio
@pytest.mark.parametrize("kind", [[], {}, [["text"]]])
async def test_a_content_part_whose_type_is_no_string_is_relayed_never_a_500(client, upstream, kind) -> None:
    """The client's mistake is the upstream's to judge: memproxy relays it (here the fake upstream accepts it)."""
    completion = {"id": "c", "object": "chat.completion", "model": "m", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}  # fmt: skip
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json=completion)
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": kind}]}]}
    response = await client.post("/v1/chat/completions", json=body, headers={"x-memory-user": "ada"})
    assert response.status_code == 200 and route.called


@pytest.mark.anyio
async def test_a_body_over_the_limit_is_a_413(client, upstream) -> None:
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json={})
    big = CHAT | {"messages": [{"role": "user", "content": "x" * 5000}]}
    response = await client.post("/v1/chat/completions", json=big)
    assert response.status_code == 413 and response.json()["error"]["code"] == "request_too_large"
    assert not route.called


@pytest.mark.anyio
@pytest.mark.parametrize("depth", [253, 600, 1030])
async def test_a_request_nested_too_deep_is_a_400_in_openais_shape_never_a_500(client, upstream, depth) -> None:
    """orjson reads it but cannot write it back (the session fingerprint, the tool loop): refused at the door."""
    route = upstream.post(f"{BASE}/chat/completions").respond(200, json={})
    deep = b"[" * depth + b'"x"' + b"]" * depth
    body = b'{"model":"m","messages":[{"role":"user","content":' + deep + b"}]}"
    response = await client.post("/v1/chat/completions", content=body, headers={"x-memory-user": "ada"})
    assert response.status_code == 400 and "levels deep" in response.json()["error"]["message"]
    assert response.json()["error"]["type"] == "invalid_request_error" and not route.called


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("path", "opening"),
    [
        ("/v1/responses", b'{"model":"m","input":[{"role":"user","content":'),
        ("/v1/messages", b'{"model":"m","max_tokens":9,"messages":[{"role":"user","content":'),
    ],
)
async def test_the_other_formats_refuse_a_request_nested_too_deep_too(client, upstream, path, opening) -> None:
    deep = b"[" * 600 + b'"x"' + b"]" * 600
    response = await client.post(path, content=opening + deep + b"}]}", headers={"x-memory-user": "ada"})
    assert response.status_code == 400 and "levels deep" in response.text


FIRST_CHUNK = (
    b"data: "
    + orjson.dumps(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}],
        }
    )
    + b"\n\n"
)


@pytest.mark.anyio
async def test_a_stream_that_breaks_off_ends_with_one_error_event(client, upstream) -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield FIRST_CHUNK
        raise httpx.ReadError("connection reset")

    upstream.post(f"{BASE}/chat/completions").mock(
        side_effect=lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=broken())
    )
    response = await client.post("/v1/chat/completions", json=CHAT | {"stream": True})
    events = [block for block in response.content.split(b"\n\n") if block]
    assert events[0] + b"\n\n" == FIRST_CHUNK
    assert len(events) == 2 and orjson.loads(events[1][len(b"data: ") :])["error"]["code"] == "upstream_stream_error"


@pytest.mark.anyio
async def test_a_stream_closed_early_without_done_is_an_error_not_a_hang(client, upstream) -> None:
    upstream.post(f"{BASE}/chat/completions").respond(
        200, headers={"content-type": "text/event-stream"}, content=FIRST_CHUNK
    )
    response = await client.post("/v1/chat/completions", json=CHAT | {"stream": True})
    events = [block for block in response.content.split(b"\n\n") if block]
    assert len(events) == 2 and orjson.loads(events[1][len(b"data: ") :])["error"]["code"] == "upstream_stream_error"
    assert b"[DONE]" not in response.content


@pytest.mark.anyio
async def test_an_event_over_upstream_max_event_bytes_ends_the_stream_with_one_error_event(upstream) -> None:
    async def huge() -> AsyncIterator[bytes]:
        yield FIRST_CHUNK
        yield b"data: " + b"x" * 1500
        for _ in range(100):  # more of the same event: none of it is held past the limit, none reaches the client
            yield b"x" * 1500

    upstream.post(f"{BASE}/chat/completions").mock(
        side_effect=lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=huge())
    )
    settings = load_settings(overrides={"upstream.base_url": BASE, "upstream.max_event_bytes": 4096})
    services = build_services(settings, transport=httpx.MockTransport(upstream.async_handler))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://p") as c,
    ):
        response = await c.post("/v1/chat/completions", json=CHAT | {"stream": True})
    events = [block for block in response.content.split(b"\n\n") if block]
    assert events[0] + b"\n\n" == FIRST_CHUNK and len(events) == 2
    error = orjson.loads(events[1][len(b"data: ") :])["error"]
    assert error["code"] == "upstream_stream_error" and "upstream.max_event_bytes" in error["message"]


@pytest.mark.anyio
@pytest.mark.parametrize("headers", [{}, {"x-memory-user": "ada"}])
async def test_a_llama_cpp_stream_reaches_the_client_byte_for_byte_timings_and_all(client, upstream, headers) -> None:
    """With memory tools offered but not called there is no usage to sum: the usage chunk is the upstream's own."""
    upstream.post(f"{BASE}/chat/completions").respond(
        200, headers={"content-type": "text/event-stream"}, content=LLAMA_CPP
    )
    body = CHAT | {"stream": True, "stream_options": {"include_usage": True}}
    response = await client.post("/v1/chat/completions", json=body, headers=headers)
    assert response.content == LLAMA_CPP


@pytest.mark.anyio
async def test_a_configured_key_replaces_the_clients_authorization(upstream) -> None:
    route = upstream.get(f"{BASE}/models").respond(200, json={"data": []})
    settings = load_settings(overrides={"upstream.base_url": BASE, "upstream.api_key": "sk-proxy"})
    services = build_services(settings, transport=httpx.MockTransport(upstream.async_handler))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://p") as c,
    ):
        await c.get("/v1/models", headers={"authorization": "Bearer sk-client"})
    assert route.calls.last.request.headers["authorization"] == "Bearer sk-proxy"


@pytest.mark.anyio
async def test_healthz_answers_without_the_upstream(client, upstream) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.anyio
async def test_a_responses_api_stream_passes_through_byte_for_byte(client, upstream) -> None:
    # A different SSE grammar (event: lines, sequence numbers): never run through the chat normaliser.
    sse = (
        b'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n'
        b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n'
    )
    upstream.post(f"{BASE}/responses").respond(200, headers={"content-type": "text/event-stream"}, content=sse)
    response = await client.post("/v1/responses", json={"model": "m", "input": "hi", "stream": True})
    assert response.content == sse and response.headers["content-type"] == "text/event-stream"


def test_the_openai_compatible_path_never_imports_litellm() -> None:
    script = """
import asyncio, sys, httpx
from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services

def upstream(request):
    return httpx.Response(200, json={"id": "x", "object": "chat.completion", "choices": []})

async def main():
    services = build_services(load_settings(overrides={"upstream.base_url": "http://u/v1"}),
                              transport=httpx.MockTransport(upstream))
    app = httpx.ASGITransport(create_app(services))
    async with services, httpx.AsyncClient(transport=app, base_url="http://p") as c:
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}
        assert (await c.post("/v1/chat/completions", json=body)).status_code == 200
    print("litellm" in sys.modules)

asyncio.run(main())
"""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_the_write_scanners_models_are_read_at_start_not_by_the_first_write() -> None:
    """Reading them takes about half a second; on the first write it would stall every request on the event loop."""
    script = """
import asyncio, httpx
from proxy.config import load_settings
from proxy.scanning import instructing
from proxy.services import build_services

async def main():
    services = build_services(load_settings(overrides={"upstream.base_url": "http://u/v1"}),
                              transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    async with services:  # started, no write yet
        print(instructing._read.cache_info().currsize)

asyncio.run(main())
"""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2"]


@pytest.mark.anyio
async def test_only_a_request_the_upstream_accepted_sets_a_users_extraction_key_and_model(upstream, tmp_path) -> None:
    """A caller naming alice with a bogus key and a model of its choosing must change neither."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.headers.get("authorization") != "Bearer sk-alice":
            return httpx.Response(401, json={"error": {"message": "bad key", "type": "invalid_request_error"}})
        return httpx.Response(200, json={"id": "c", "object": "chat.completion", "choices": []})

    upstream.post(f"{BASE}/chat/completions").mock(side_effect=answer)
    settings = load_settings(overrides={"upstream.base_url": BASE, "store.path": str(tmp_path)})
    services = build_services(settings, transport=httpx.MockTransport(upstream.async_handler))
    alice = {"x-memory-user": "alice", "x-memory-session": "s1"}
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://p") as c,
    ):
        ok = await c.post("/v1/chat/completions", json=CHAT, headers={**alice, "authorization": "Bearer sk-alice"})
        forged = CHAT | {"model": "attacker-model"}
        refused = await c.post("/v1/chat/completions", json=forged, headers={**alice, "authorization": "Bearer sk-x"})
        session = services.episodes.sessions.get("alice", "default", "s1")
    assert (ok.status_code, refused.status_code) == (200, 401)
    assert services.episodes.key_of("alice") == Credential("sk-alice")
    assert session is not None and session.model == "gpt-test"


@pytest.mark.anyio
async def test_an_import_past_max_import_lines_is_a_400_naming_the_limit(tmp_path) -> None:
    settings = load_settings(overrides={"upstream.base_url": BASE, "store.path": str(tmp_path),
                                        "memory.max_import_lines": 2})  # fmt: skip
    services = build_services(settings, transport=httpx.MockTransport(lambda request: httpx.Response(500)))
    headers = {"X-Memory-User": "ada"}
    lines = [orjson.dumps({"text": f"User fact {n}"}) for n in range(3)]
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        refused = await c.post("/memory/import", content=b"\n".join(lines), headers=headers)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "too_many_lines"
        assert "memory.max_import_lines" in refused.json()["error"]["message"]
        assert (await c.get("/memory/export", headers=headers)).content == b""
        accepted = await c.post("/memory/import", content=b"\n".join(lines[:2]), headers=headers)
        assert accepted.status_code == 200 and len(accepted.json()["imported"]) == 2
