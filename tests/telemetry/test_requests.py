"""What an operator sees of requests, in-process (httpx.ASGITransport) against the fake upstream: the metrics at
``/metrics``, the access log's lines and the request id every response carries."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import Services, build_services
from proxy.telemetry.access import user_hash
from proxy.testing import FakeUpstream, ToolCall
from proxy.testing.runner import run_fake_upstream

pytestmark = pytest.mark.anyio
CHAT = {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}
ADA = {"X-Memory-User": "ada"}


@dataclass
class Proxy:
    client: httpx.AsyncClient
    fake: FakeUpstream
    services: Services
    lines: list[bytes] = field(default_factory=list)

    def logged(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.lines]

    async def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """Every sample at /metrics by name and labels."""
        text = (await self.client.get("/metrics")).text
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }


async def proxy_with(tmp_path: Path, **overrides: Any) -> AsyncIterator[Proxy]:
    fake = FakeUpstream()
    settings = load_settings(
        overrides={
            "upstream.base_url": "http://upstream.test/v1",
            "upstream.anthropic_base_url": "http://upstream.test/v1",
            "store.path": str(tmp_path),
            "memory.store_deadline_ms": 10_000,
            **overrides,
        }
    )
    services = build_services(settings, transport=httpx.ASGITransport(fake.app))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        proxy = Proxy(client, fake, services)
        services.telemetry.access.sink = proxy.lines.append
        yield proxy


@pytest.fixture
async def proxy(tmp_path: Path) -> AsyncIterator[Proxy]:
    async for made in proxy_with(tmp_path):
        yield made


def labels(**given: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(given.items()))


async def test_requests_are_counted_by_route_format_stream_and_status(proxy: Proxy) -> None:
    proxy.fake.reply(content="one")
    proxy.fake.reply(content="two")
    proxy.fake.reply(status=503, error={"error": {"message": "overloaded", "type": "server_error"}})
    await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
    await proxy.client.post("/chat/completions", json={**CHAT, "stream": True}, headers=ADA)
    assert (await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)).status_code == 503
    await proxy.client.get("/memory/memories", headers=ADA)
    found = await proxy.metrics()
    chat = {"route": "/v1/chat/completions", "format": "chat"}
    assert found[("memproxy_http_requests_total", labels(**chat, stream="false", status="200"))] == 1
    assert found[("memproxy_http_requests_total", labels(**chat, stream="true", status="200"))] == 1
    assert found[("memproxy_http_requests_total", labels(**chat, stream="false", status="503"))] == 1
    management = labels(route="/memory/memories", format="none", stream="false", status="200")
    assert found[("memproxy_http_requests_total", management)] == 1
    assert found[("memproxy_upstream_errors_total", labels(format="chat", kind="status_5xx"))] == 1
    for name in (
        "memproxy_http_request_duration_seconds",
        "memproxy_http_time_to_first_byte_seconds",
        "memproxy_http_upstream_duration_seconds",
        "memproxy_http_proxy_duration_seconds",
    ):
        assert found[(f"{name}_count", labels(**chat, stream="false"))] == 2
        assert found[(f"{name}_count", labels(**chat, stream="true"))] == 1
    whole = labels(**chat, stream="false")
    total = found[("memproxy_http_request_duration_seconds_sum", whole)]
    upstream = found[("memproxy_http_upstream_duration_seconds_sum", whole)]
    own = found[("memproxy_http_proxy_duration_seconds_sum", whole)]
    assert 0 < upstream < total and own == pytest.approx(total - upstream)
    # the management API made no upstream call: a duration, but no upstream or proxy time
    quiet = labels(route="/memory/memories", format="none", stream="false")
    assert found[("memproxy_http_request_duration_seconds_count", quiet)] == 1
    assert ("memproxy_http_upstream_duration_seconds_count", quiet) not in found
    assert found[("memproxy_http_requests_in_flight", ())] == 1  # the scrape itself
    assert found[("memproxy_http_streams_in_flight", ())] == 0


async def test_hidden_hops_and_injected_memories_reach_the_access_log(proxy: Proxy) -> None:
    await proxy.client.post("/memory/memories", json={"text": "Ada prefers tea over coffee"}, headers=ADA)
    proxy.fake.reply(content=None, tool_calls=[ToolCall("memory_search", {"query": "tea"})])
    proxy.fake.reply(content="You like tea.")
    ask = {**CHAT, "messages": [{"role": "user", "content": "what do I drink, tea?"}]}
    response = await proxy.client.post("/v1/chat/completions", json=ask, headers=ADA)
    assert response.json()["choices"][0]["message"]["content"] == "You like tea."
    line = proxy.logged()[-1]
    assert line["hops"] == 1 and line["injected"] == 1
    found = await proxy.metrics()
    assert found[("memproxy_tool_hops_total", ())] == 1


async def test_an_access_line_has_the_promised_fields_and_never_a_secret(proxy: Proxy) -> None:
    secret_key = "sk-proj-" + "Q7vR2mXc9LpT4wZk8NbY3hJd6FsA1eGu"
    body_secret = "my password is hunter2-Zebra-Quartz-77"
    proxy.fake.reply(content="noted")
    response = await proxy.client.post(
        "/v1/chat/completions",
        json={**CHAT, "messages": [{"role": "user", "content": body_secret}]},
        headers={"X-Memory-User": "ada@example.com", "Authorization": f"Bearer {secret_key}", "X-Request-Id": "r-1"},
    )
    assert response.status_code == 200
    (raw,) = proxy.lines
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    line = orjson.loads(raw)
    assert line["request_id"] == "r-1" == response.headers["x-memproxy-request-id"]
    assert line["level"] == "info" and line["method"] == "POST" and line["route"] == "/v1/chat/completions"
    assert line["format"] == "chat" and line["status"] == 200 and line["stream"] is False
    assert line["user"] == user_hash("ada@example.com") and line["model"] == "fake-model"
    assert line["upstream_status"] == 200 and line["upstream_request_id"].startswith("req_")
    assert line["hops"] == 0 and line["injected"] == 0
    for key in ("duration_ms", "ttfb_ms", "upstream_ms", "proxy_ms"):
        assert isinstance(line[key], float) and line[key] >= 0
    assert line["duration_ms"] == pytest.approx(line["upstream_ms"] + line["proxy_ms"], abs=0.01)
    assert line["ts"].endswith("Z") and len(line["ts"]) == len("2025-01-01T00:00:00.000Z")
    for secret in (secret_key, "hunter2", "ada@example.com", "Bearer"):
        assert secret.encode() not in raw


async def test_a_memproxy_key_never_reaches_the_access_log(tmp_path: Path) -> None:
    async for proxy in proxy_with(tmp_path, **{"auth.mode": "keys", "upstream.api_key": "sk-server-side-key-xyz"}):
        key = (await proxy.services.admin.keys.create("bob")).key
        proxy.fake.reply(content="hello bob")
        bearer = {"Authorization": f"Bearer {key}"}
        response = await proxy.client.post("/v1/chat/completions", json=CHAT, headers=bearer)
        assert response.status_code == 200
        refused = await proxy.client.post("/v1/chat/completions", json=CHAT, headers={"Authorization": "Bearer mp-no"})
        assert refused.status_code == 401
        lines = proxy.logged()
        assert [line["status"] for line in lines] == [200, 401]
        assert lines[0]["user"] == user_hash("bob")
        for raw in proxy.lines:
            assert key.encode() not in raw and b"sk-server-side" not in raw and b"mp-no" not in raw


async def test_a_model_name_that_holds_a_key_is_redacted(proxy: Proxy) -> None:
    proxy.fake.reply(content="ok")
    leaked = "sk-ant-api03-" + "x7Yq2Lm9Pz4Rt8Wv1Nb6Kc3Hd5Gf0Js2Ae7Ui4Oy9Tr1"
    await proxy.client.post("/v1/chat/completions", json={**CHAT, "model": leaked}, headers=ADA)
    assert leaked.encode() not in proxy.lines[0]
    assert "[redacted]" in proxy.logged()[0]["model"]


async def test_an_upstream_5xx_is_logged_at_warning(proxy: Proxy) -> None:
    proxy.fake.reply(status=502, error={"error": {"message": "bad gateway"}})
    response = await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
    assert response.status_code == 502
    (line,) = proxy.logged()
    assert line["level"] == "warning" and line["upstream_error"] == "status_5xx" and line["upstream_status"] == 502


async def test_an_unreachable_upstream_is_logged_at_warning_and_counted(tmp_path: Path) -> None:
    settings = load_settings(overrides={"upstream.base_url": "http://127.0.0.1:9/v1", "store.path": str(tmp_path)})
    services = build_services(settings)  # the real client: port 9 refuses
    lines: list[bytes] = []
    services.telemetry.access.sink = lines.append
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        response = await client.post("/v1/chat/completions", json=CHAT, headers=ADA)
        assert response.status_code == 502
        text = (await client.get("/metrics")).text
    line = orjson.loads(lines[0])
    assert line["level"] == "warning" and line["status"] == 502 and line["upstream_error"] == "unreachable"
    assert 'memproxy_upstream_errors_total{format="chat",kind="unreachable"} 1.0' in text


async def test_every_response_carries_a_request_id_the_client_may_choose(proxy: Proxy) -> None:
    proxy.fake.reply(content="a")
    proxy.fake.reply(content="b")
    first = await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
    second = await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
    made = {first.headers["x-memproxy-request-id"], second.headers["x-memproxy-request-id"]}
    assert len(made) == 2 and all(rid.startswith("mp-") for rid in made)
    assert first.headers["x-request-id"].startswith("req_")  # the upstream's own id is relayed untouched
    chosen = await proxy.client.get("/healthz", headers={"X-Request-Id": "trace-abc_123"})
    assert chosen.headers["x-memproxy-request-id"] == "trace-abc_123"
    odd = await proxy.client.get("/healthz", headers={"X-Request-Id": "a b<script>"})
    assert odd.headers["x-memproxy-request-id"].startswith("mp-")
    error = await proxy.client.post("/v1/chat/completions", content=b"{not json", headers=ADA)
    assert error.status_code == 400 and error.headers["x-memproxy-request-id"].startswith("mp-")


async def test_the_client_request_id_goes_upstream_as_it_came_and_none_is_added(proxy: Proxy) -> None:
    proxy.fake.reply(content="a")
    proxy.fake.reply(content="b")
    await proxy.client.post("/v1/chat/completions", json=CHAT, headers={**ADA, "X-Request-Id": "client-7"})
    await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
    first, second = proxy.fake.requests
    assert first.headers["x-request-id"] == "client-7"
    assert "x-request-id" not in second.headers and "x-memproxy-request-id" not in second.headers


async def test_held_items_waiting_are_a_gauge(proxy: Proxy) -> None:
    found = await proxy.metrics()
    assert found[("memproxy_held_waiting", labels(kind="memories"))] == 0
    assert found[("memproxy_held_waiting", labels(kind="episodes"))] == 0


async def test_access_log_warning_keeps_only_failures_and_off_keeps_none(tmp_path: Path) -> None:
    async for proxy in proxy_with(tmp_path / "w", **{"server.access_log": "warning"}):
        proxy.fake.reply(content="fine")
        proxy.fake.reply(status=500)
        await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
        await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
        assert [line["status"] for line in proxy.logged()] == [500]
    async for proxy in proxy_with(tmp_path / "o", **{"server.access_log": "off"}):
        proxy.fake.reply(status=500)
        await proxy.client.post("/v1/chat/completions", json=CHAT, headers=ADA)
        assert proxy.lines == []


async def test_the_text_format_is_one_readable_line(tmp_path: Path) -> None:
    async for proxy in proxy_with(tmp_path, **{"server.access_log_format": "text"}):
        proxy.fake.reply(content="fine")
        await proxy.client.post("/v1/chat/completions", json=CHAT, headers={**ADA, "X-Request-Id": "r-9"})
        (line,) = proxy.lines
        text = line.decode()
        assert text.endswith("\n") and text.count("\n") == 1
        assert " info POST /v1/chat/completions 200 request_id=r-9 format=chat " in text
        assert "upstream_ms=" in text and f"user={user_hash('ada')}" in text


async def test_probes_and_scrapes_are_not_logged_unless_they_fail(proxy: Proxy) -> None:
    await proxy.client.get("/healthz")
    await proxy.client.get("/metrics")
    assert proxy.lines == []


async def test_each_wire_format_is_counted_under_its_own_route(proxy: Proxy) -> None:
    proxy.fake.reply(content="r")
    proxy.fake.reply(content="m")
    responses = await proxy.client.post("/v1/responses", json={"model": "fake-model", "input": "hi"}, headers=ADA)
    messages = await proxy.client.post(
        "/v1/messages",
        json={"model": "claude-x", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]},
        headers={**ADA, "x-api-key": "sk-ant-test"},
    )
    assert responses.status_code == messages.status_code == 200
    found = await proxy.metrics()
    for route, format in (("/v1/responses", "responses"), ("/v1/messages", "messages")):
        assert found[("memproxy_http_requests_total", labels(route=route, format=format, stream="false", status="200"))]
    assert [(line["route"], line["format"]) for line in proxy.logged()] == [
        ("/v1/responses", "responses"),
        ("/v1/messages", "messages"),
    ]


async def test_an_upstream_timeout_is_logged_at_warning_and_counted(tmp_path: Path) -> None:
    with run_fake_upstream() as fake:  # a real socket: the real client's timeout
        settings = load_settings(
            overrides={"upstream.base_url": fake.base_url, "upstream.timeout_s": 0.2, "store.path": str(tmp_path)}
        )
        services = build_services(settings)
        lines: list[bytes] = []
        services.telemetry.access.sink = lines.append
        fake.reply(content="late", delay_s=3)
        async with (
            services,
            httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
        ):
            response = await client.post("/v1/chat/completions", json=CHAT, headers=ADA)
            text = (await client.get("/metrics")).text
    assert response.status_code == 504
    line = orjson.loads(lines[0])
    assert line["level"] == "warning" and line["status"] == 504 and line["upstream_error"] == "timeout"
    assert line["upstream_ms"] >= 150
    assert 'memproxy_upstream_errors_total{format="chat",kind="timeout"} 1.0' in text
